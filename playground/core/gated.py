"""Kernels a module defines only when a GPU is present, read from its text (an AST walk that runs nothing).

torchao writes `if has_triton():` around its kernels (torch.utils._triton.has_triton asks for a CUDA device of
compute capability 7 or more), others `if torch.cuda.is_available():` or `if is_triton_available():`. Imported on
a machine with no GPU such a module defines no kernel, though it imports cleanly; registry.py reads it on a
virtual GPU instead (`gates`), and when that still gives no kernel, says why (`why_none`): which condition was
false, or that the file defines no @triton.jit function of its own at all.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

# a kernel's decorator: @triton.jit, @jit, @gluon.jit, @triton.autotune(...), @triton.heuristics(...), not @torch.jit
_KERNEL_DECORATOR = re.compile(r"^(?!torch\.)[\w.]*\b(jit|autotune|heuristics)\b")


@dataclass(frozen=True)
class Gate:
    """An `if` a kernel is defined under: its test as written, its line, and whether the kernel is in its else."""
    test: str
    line: int
    negated: bool
    node: ast.expr

    def describe(self) -> str:
        return f"`if {'not ' if self.negated else ''}{self.test}:` (line {self.line})"


@dataclass(frozen=True)
class Kernel:
    name: str
    line: int
    gates: tuple[Gate, ...]     # the module-level ifs around it, outermost first
    inside: str | None          # the function or class it is defined in, if not at module level


def kernels(file: Path) -> list[Kernel]:
    """Every function the file decorates as a kernel, with the `if`s it is defined under."""
    try:
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except (SyntaxError, ValueError, OSError):
        return []
    found: list[Kernel] = []

    def walk(body, gates: tuple[Gate, ...], inside: str | None):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_KERNEL_DECORATOR.match(ast.unparse(d)) for d in node.decorator_list):
                    found.append(Kernel(node.name, node.lineno, gates, inside))
                walk(node.body, gates, inside or node.name)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, gates, inside or node.name)
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "__name__" in test:          # the demo block: never a gate
                    continue
                walk(node.body, gates + (Gate(test, node.lineno, False, node.test),), inside)
                walk(node.orelse, gates + (Gate(test, node.lineno, True, node.test),), inside)
            elif isinstance(node, (ast.Try, ast.With)):
                walk(node.body, gates, inside)
                for handler in getattr(node, "handlers", ()):
                    walk(handler.body, gates, inside)
                walk(getattr(node, "orelse", []), gates, inside)
                walk(getattr(node, "finalbody", []), gates, inside)

    walk(tree.body, (), None)
    return found


# a condition that asks about the GPU or Triton; a package version check is not one (the virtual GPU would answer the
# same, and a file read on it compiles for one target per command)
_ASKS_THE_GPU = re.compile(r"cuda|gpu|device|triton|available|hip|rocm|capability|sm_?\d", re.I)
_VERSION_CHECK = re.compile(r"__version__|version_info|parse_version|Version\(")


def gates(file: Path) -> list[Gate]:
    """The GPU-asking conditions the file's module-level kernels are defined under (none: it defines them
    whatever the machine has)."""
    seen: dict[tuple[int, bool], Gate] = {}
    for kernel in kernels(file):
        if kernel.inside is None:
            for gate in kernel.gates:
                if _ASKS_THE_GPU.search(gate.test) and not _VERSION_CHECK.search(gate.test):
                    seen.setdefault((gate.line, gate.negated), gate)
    return list(seen.values())


def why_none(file: Path, namespace: dict, where: str) -> str:
    """Why the file, read into `namespace`, defined no kernel: `where` says how it was read ("on a virtual
    sm_90", "here, with no GPU")."""
    found = kernels(file)
    if not found:
        imported = sorted(f"{k} from {_module_of(v)}" for k, v in namespace.items() if _is_kernel(v))
        return (f"{file.name} defines no @triton.jit function itself"
                + (f"; it imports {', '.join(imported)}: open the module that defines them" if imported else ""))
    nested = [k for k in found if k.inside is not None]
    if len(nested) == len(found):
        k = nested[0]
        return (f"its kernels are made inside {k.inside} ({k.name}, line {k.line}), when that runs, not as the "
                f"module loads")
    reasons: list[str] = []
    for kernel in found:
        reason = _gate_reason(kernel, namespace, where)
        if reason and reason not in reasons:
            reasons.append(reason)
    if reasons:
        return "its kernels are defined only under " + "; ".join(reasons)
    at = ", ".join(f"{k.name} (line {k.line})" for k in found[:3])
    return f"the statements that define its kernels failed {where}: {at}"


def why_missing(file: Path, name: str, namespace: dict, where: str) -> str | None:
    """Why the file's kernel `name` is not in `namespace`, where the file defines it under a condition that was
    false (torchao's mx_formats defines its sm_100 kernels under `if _triton_kernels_available:`); else None."""
    for kernel in kernels(file):
        if kernel.name == name:
            reason = _gate_reason(kernel, namespace, where)
            if reason:
                return f"{name} (line {kernel.line}) is defined only under {reason}"
    return None


def _gate_reason(kernel: Kernel, namespace: dict, where: str) -> str | None:
    """The first of a module-level kernel's conditions, outermost first, that kept it from being defined."""
    if kernel.inside is not None:
        return None
    for gate in kernel.gates:
        value = _evaluate(gate.node, namespace)
        if isinstance(value, Exception):
            return f"{gate.describe()}, which raised {type(value).__name__}: {value}"
        if bool(value) == gate.negated:
            return f"{gate.describe()}, {'true' if gate.negated else 'false'} {where}"
    return None


def _evaluate(node: ast.expr, namespace: dict):
    try:
        return eval(compile(ast.Expression(body=node), "<gate>", "eval"), dict(namespace))   # noqa: S307
    except Exception as e:      # the file's own condition: whatever it raises is the answer
        return e


def _is_kernel(value) -> bool:
    from .spec import is_kernel
    return is_kernel(value)


def _module_of(kernel) -> str:
    from .spec import unwrap
    return getattr(getattr(unwrap(kernel)[0], "fn", None), "__module__", None) or "another module"
