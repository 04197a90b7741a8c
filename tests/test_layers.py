"""The import graph points one way. Every import of every module is parsed (function-local ones too, since a
lazy import is still a dependency) and checked against the layers, low to high:

  leaves (errors, units, files, lifecycle, text, tools, versions, compat, triton_envs,
  removed_features) < core < artefact < figures, model
  < run, bench, sweep, compare, report < virtual, inductor, web < check < commands and playground/cli.py

A module imports its own layer or lower, and no two modules import each other, however indirectly. The
package's face (playground/__init__.py) imports what it re-exports and the layers whose saved references it
registers; nothing in the library imports it back. In the spirit of click's tests/test_imports.py.
"""
import ast
from pathlib import Path

import pytest

from playground.cli import main
from playground import commands, report

pytestmark = pytest.mark.compile

ROOT = Path(__file__).resolve().parents[1]
LAYERS = [{"errors", "units", "files", "lifecycle", "text", "tools", "versions", "spec", "compat",
           "triton_envs", "removed_features"}, {"core"}, {"artefact"},
          {"figures", "model"}, {"run", "bench", "sweep", "compare", "report"}, {"virtual", "inductor", "web"},
          {"check"}, {"commands"}]
# Edges the rules above would refuse, each with its reason. Empty: keep it so.
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in [ROOT / "cli.py", *sorted((ROOT / "playground").rglob("*.py"))]}


def layer(module: str) -> int:
    if module in ("cli", "playground.cli"):      # the checkout's shim, and the command line itself
        return len(LAYERS)
    part = module.split(".")[1] if "." in module else ""
    found = next((i for i, names in enumerate(LAYERS) if part in names), -1)
    assert found >= 0 or module in ("playground", "playground.__init__"), f"{module}: in no layer of LAYERS"
    return found


def imports(module: str) -> set[str]:
    """The library modules `module` imports, anywhere in its body."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module and not name.startswith(module + "."):   # a package's own children
                found.add(name)
    return found


GRAPH = {m: imports(m) for m in MODULES}


def test_the_graph_is_read():
    """The parser sees what it should, or an empty graph would pass."""
    assert {"playground.core.spec", "playground.errors"} <= GRAPH["playground.core.registry"]
    assert "playground.artefact.compiler" in GRAPH["playground.artefact.request"]
    assert "playground.commands.common" in GRAPH["playground.cli"] and GRAPH["cli"] == {"playground.cli"}
    assert len(MODULES) > 100
    assert layer("playground.errors") < layer("playground.core.spec") < layer("playground.artefact.compiler") \
        < layer("playground.model.explain") < layer("playground.sweep.triage") < layer("playground.web.server") \
        < layer("playground.commands.cmd_compile") < layer("playground.cli")


def test_every_import_points_down():
    upward = {(a, b): f"{layer(a)} -> {layer(b)}" for a in GRAPH for b in GRAPH[a]
              if a != "playground" and layer(b) > layer(a)}
    assert {edge: why for edge, why in upward.items() if edge not in ALLOWED} == {}
    assert all(layer(m) >= 0 for m in MODULES if m not in ("playground",)), \
        [m for m in MODULES if layer(m) < 0 and m != "playground"]


def circles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_two_modules_import_each_other():
    graph = {m: {t for t in targets if (m, t) not in ALLOWED} for m, targets in GRAPH.items()}
    assert circles(graph) == []


def test_circles_are_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_command_line_stays_thin():
    """playground/cli.py is the contract and the loader; a command is one short module."""
    lengths = {p.name: len(p.read_text().splitlines())
               for p in [ROOT / "playground" / "cli.py", *(ROOT / "playground" / "commands").glob("*.py")]}
    assert lengths.pop("cli.py") <= 200
    assert {name: n for name, n in lengths.items() if n > 150} == {}


def test_every_command_is_a_file_and_every_json_command_has_a_schema():
    names = main.list_commands(None)
    assert names == commands.names() and all(main.get_command(None, n).name == n for n in names)
    with_json = sorted(n for n in names if any(p.name == "as_json" for p in main.get_command(None, n).params))
    assert with_json == report.commands_with_schema()
