"""A trace's variant reopened as a KernelSpec (`T.json#N`), its kernel read out of the script's file.

Reading a script needs a virtual GPU of the target installed (session.reading: scripts query the device
at import), and the virtual GPU's capture turns launches into data (launches.py); so reading lives here,
above both, and launches.py stays the plain data it is.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from .. import compat
from ..core.spec import KernelSpec
from ..errors import UserError
from . import session
from .launches import spec_for, variant_source


def spec_from_trace(ref: str) -> KernelSpec:
    source = variant_source(ref)
    spec = spec_for(source, load_kernel(source["file"], source["kernel"], source["target"]))
    path, _, number = ref.partition("#")
    spec.loaded_from = f"{Path(path).resolve()}#{number or 1}"     # for another process (sweep's workers)
    return spec


# --- reading kernels out of a script without running it -------------------------------------------
def load_kernel(file: str, name: str, target: str):
    """The @triton.jit function `name` defined in `file`, read without running the script's demo code.

    The file's top level runs statement by statement on a virtual GPU of `target` (scripts query the
    device at import): imports, definitions, assignments and `try`/`if` blocks run; a statement that
    fails is skipped; bare expressions (`benchmark.run(...)`, `print(...)`), loops, `with` blocks and
    `if __name__ == "__main__":` do not run, and no kernel is launched.
    """
    namespace = read_script(Path(file), target)
    for value in namespace.values():
        jit = _unwrap(value)
        if jit is not None and jit.fn.__name__ == name:
            return jit
    raise UserError(f"{file}: no @triton.jit function named {name}")


_READ: dict[str, dict] = {}


def read_script(path: Path, target: str, module: str | None = None) -> dict:
    """The file's definitions, read on a virtual GPU of `target` without running its demo code. `module`: the
    dotted name of a file inside a package (core/imports.py), so that its relative imports resolve."""
    with session.reading(target):
        return _read_module(path, module)


def _read_module(path: Path, module: str | None = None) -> dict:
    key = str(path.resolve())
    if key in _READ:
        return _READ[key]
    if not path.is_file():
        raise UserError(f"{path}: the kernel's file is gone")
    tree = ast.parse(path.read_text(), filename=str(path))
    namespace = {"__name__": module or "__main__", "__file__": str(path), "__builtins__": __builtins__}
    if module:
        namespace["__package__"] = module.rpartition(".")[0]
    else:
        sys.path.insert(0, str(path.parent))
    _run_statements(tree.body, namespace, str(path))
    _READ[key] = namespace
    return namespace


def _run_statements(body: list, namespace: dict, path: str) -> None:
    """Each statement that runs when reading, on its own: one that fails is skipped. An `if` (not the demo block)
    is decided here and its branch read statement by statement too, so that one failing line under
    `if has_triton():` (torchao's gate around all its kernels) does not take every kernel below it along."""
    for node in body:
        if not _runs_when_reading(node):
            continue
        if isinstance(node, ast.If):
            try:
                _ask_again(node.test, namespace, path)
                taken = bool(eval(compile(ast.Expression(body=node.test), path, "eval"), namespace))  # noqa: S307
            except Exception:
                continue
            _run_statements(node.body if taken else node.orelse, namespace, path)
            continue
        code = compile(ast.Module(body=[node], type_ignores=[]), path, "exec")
        try:
            exec(code, namespace)
        except Exception:
            continue


def _ask_again(test, namespace: dict, path: str) -> None:
    """A condition's functions that cache their answer (torch.utils._triton.has_triton is functools.cache'd, in torch
    2.11 to 2.15) may have answered on the CPU before this virtual GPU was installed: their caches are cleared, so
    that they ask the device again."""
    for call in ast.walk(test):
        if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)):
            try:
                function = eval(compile(ast.Expression(body=call.func), path, "eval"), namespace)  # noqa: S307
            except Exception:
                continue
            if callable(getattr(function, "cache_clear", None)):
                function.cache_clear()


def _runs_when_reading(node) -> bool:
    if isinstance(node, ast.If):
        test = ast.unparse(node.test).replace("'", '"')
        return "__name__" not in test
    return isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Try))


def _unwrap(value):
    JITFunction = compat.reach("JITFunction")
    for _ in range(8):
        if isinstance(value, JITFunction):
            return value
        value = getattr(value, "fn", None)
        if value is None:
            return None
    return None
