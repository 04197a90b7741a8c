"""A KernelBench problem file as that project lays it out: `Model`, `get_inputs()`, `get_init_inputs()` and the
module-level sizes they read (`batch_size = 16`, `dim = 16384`). The file is the reference, so it is trusted:
it runs in this process. `--set batch_size=4` rewrites the assignment before the file runs (an AST edit), so a
size another one is computed from (`dim2 = dim * 2`) follows it."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ...errors import UserError

SMALLEST_PERTURBED = 8          # sizes below this are axes, kernel sizes, strides: kept as they are


@dataclass
class Problem:
    path: Path
    namespace: dict
    sizes: dict                 # every module-level number, after --set

    @property
    def model(self):
        return self.namespace["Model"]

    def inputs(self, seed: int) -> list:
        import torch
        torch.manual_seed(seed)
        return list(self.namespace["get_inputs"]())

    def init_inputs(self) -> list:
        return list(self.namespace["get_init_inputs"]())


def load(path: str | Path, overrides: dict | None = None) -> Problem:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no such problem file: {path}", param="ref")
    source = path.read_text()
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as e:
        raise UserError(f"{path}: {e.msg} (line {e.lineno})", param="ref") from None
    sizes = _sizes(tree)
    overrides = dict(overrides or {})
    unknown = [k for k in overrides if k not in sizes]
    if unknown:
        raise UserError(f"{path.name} has no module-level size {', '.join(unknown)}; it has "
                        f"{', '.join(sizes) or 'none'}", param="set")
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in overrides:
            node.value = ast.copy_location(ast.Constant(overrides[node.targets[0].id]), node.value)
    namespace = {"__name__": f"playground_problem_{path.stem}", "__file__": str(path.resolve())}
    try:
        exec(compile(tree, str(path), "exec"), namespace)
    except Exception as e:
        raise UserError(f"{path.name}: cannot run: {type(e).__name__}: {e}", param="ref") from None
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if n not in namespace]
    if missing:
        raise UserError(f"{path.name} is not a KernelBench problem: it defines no {', '.join(missing)}", param="ref")
    now = {k: namespace.get(k, v) for k, v in sizes.items()}
    return Problem(path, namespace, now)


def is_problem(path: str | Path) -> bool:
    """Whether a file reads as a KernelBench problem (defines Model and get_inputs), without running it."""
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError, ValueError):
        return False
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return {"Model", "get_inputs"} <= names


def other_sizes(sizes: dict) -> list[dict]:
    """Other sizes to try, in order, for the `shapes` guard. First, each size of at least SMALLEST_PERTURBED changed
    on its own: about 3/4 of it, odd (a multiple of no power-of-two block, so every tile has a remainder), and no
    two alike (sizes that were equal become unequal, so a square weight read with the wrong stride shows: 64, 64 ->
    47, 45). Then, where an odd size breaks a divisibility the problem needs (heads dividing a width), each
    halved."""
    def half(n): return max(1, n // 2)
    out = []
    for changed in (_asymmetric(sizes), {k: half(v) for k, v in _perturbed(sizes).items()}):
        if changed and changed not in out:
            out.append(changed)
    return out


def _perturbed(sizes: dict) -> dict:
    return {k: v for k, v in sizes.items() if isinstance(v, int) and not isinstance(v, bool) and v >= SMALLEST_PERTURBED}


def _asymmetric(sizes: dict) -> dict:
    taken = {v for k, v in sizes.items() if k not in _perturbed(sizes)}
    out = {}
    for k, v in _perturbed(sizes).items():
        n = v - v // 4 - 1
        n -= 1 - n % 2                      # odd
        while n in taken and n > 2:
            n -= 2
        out[k] = max(1, n)
        taken.add(out[k])
    return out


def what_changed(before: dict, after: dict) -> str:
    """'in_features=47, out_features=45; odd, equal sizes made unequal': the sizes a case changed, and the
    assumptions that change breaks."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    said = ", ".join(f"{k}={v}" for k, v in changed.items())
    broken = []
    if changed and all(v % 2 for v in changed.values()):
        broken.append("odd")
    equal_before = {(a, b) for a in changed for b in changed if a < b and before.get(a) == before.get(b)}
    if any(after[a] != after[b] for a, b in equal_before):
        broken.append("equal sizes made unequal")
    return said + (f"; {', '.join(broken)}" if broken else "")


def _sizes(tree: ast.Module) -> dict:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, SyntaxError, TypeError):
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[node.targets[0].id] = value
    return out
