"""Find kernel specs: by name in `kernels/`, or in a user's file (`path.py` or `path.py:name`).

Saved references (a captured launch `T.json#N`, a plan's kernel `PLAN.json#N`) are opened by the layers that
wrote them, which register an opener here (`register_opener`); core never imports them. `playground/__init__.py`
imports those layers, so a reference opens wherever the library is imported: the CLI, a notebook, a worker.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import UserError
from . import gated, imports
from .spec import KernelSpec, is_kernel, unwrap



def _kernels_package() -> Path:
    """The repository's kernels/, installed as playground.kernels (pyproject's package-dir). Run from a checkout
    that is not installed so (`python cli.py`, or an editable install made before the mapping), the checkout's
    kernels/ is imported under that name here, so that every process finds it the same way."""
    spec = importlib.util.find_spec("playground.kernels")
    if spec is not None:
        return Path(spec.origin).parent
    folder = Path(__file__).resolve().parents[2] / "kernels"
    spec = importlib.util.spec_from_file_location("playground.kernels", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["playground.kernels"] = package
    spec.loader.exec_module(package)
    return folder


KERNELS_DIR = _kernels_package()


@dataclass(frozen=True)
class Opener:
    """One kind of saved reference: whether it reads a reference, the spec it opens, the target it was made for."""
    claims: Callable[[str], bool]
    open: Callable[[str], KernelSpec]
    target_of: Callable[[str], str]


_OPENERS: list[Opener] = []
_FALLBACK: list[Opener] = []        # tried after every other: they claim any saved reference
_GPU_READER: list[Callable] = []    # one slot: (file, target label, module) -> its definitions, read on a virtual GPU


def register_opener(claims, open, target_of, fallback: bool = False) -> None:
    """A layer above core teaches `load` to open its saved references (`FILE.json#N`, `fuse#N`)."""
    (_FALLBACK if fallback else _OPENERS).append(Opener(claims, open, target_of))


def register_gpu_reader(read) -> None:
    """How a file that asks for a GPU as it loads is read on a virtual one (virtual/trace_kernels.py):
    `read(file, target label, dotted module name or None)` -> the file's definitions."""
    _GPU_READER[:] = [read]


def _opener(ref: str) -> Opener:
    for opener in _OPENERS + _FALLBACK:
        if opener.claims(ref):
            return opener
    raise UserError(f"{ref}: no reader for this saved reference in this process")


def kernel_names() -> list[str]:
    """The built-in kernels: one file each in kernels/, named after the spec."""
    return sorted(p.stem for p in KERNELS_DIR.glob("*.py") if not p.name.startswith("_"))


def load(ref: str, target: str | None = None, args: str | None = None) -> KernelSpec:
    """A kernel by name (`gemm`), by file (`./mine.py`, `./mine.py:my_kernel`; a file inside a package imports
    as the package would, core/imports.py), by module (`liger_kernel.ops.rms_norm:_rms_norm_forward_kernel`,
    any module this Python can import), or a launch captured by
    `playground run --trace T.json` (`T.json#2`: variant 2; virtual/trace_kernels.py), or a kernel of an Inductor
    plan (`PLAN.json#2` saved by `playground fuse --save`, `fuse#2` the last plan; inductor/saved_plans.py).

    `target`: the virtual GPU a user's file is read on when it cannot be imported as it is (below).
    `args`: for a bare kernel (`file.py:kernel`, no spec), its arguments (core/bare.py).
    """
    if _saved_ref(ref):
        _need_torch(ref)
        return _opener(ref).open(ref)
    path, _, name = ref.partition(":") if _looks_like_path(ref) else ("", "", ref)
    if path:
        return _from_file(path, name, target, args)
    module, colon, in_module = ref.partition(":")
    if colon or imports.is_module_name(module):
        file, where = imports.locate(module)
        return _from_file(str(file), in_module, target, args, where)
    if args:
        raise UserError(f"args is for a bare kernel in a file (file.py:kernel); {name} has a spec", param="args")
    if name not in kernel_names():
        raise UserError(f"unknown kernel '{name}'{_suggest(name, kernel_names())}")
    module = importlib.import_module(f"playground.kernels.{name}")
    return _finish(module.SPEC, module.__file__)


def ref(spec: KernelSpec) -> str:
    """How another process finds this spec with `load`: a built-in name, or path:name for any other file."""
    if spec.loaded_from:
        return spec.loaded_from
    path = Path(spec.source_path)
    if path.parent == KERNELS_DIR and path.stem == spec.name:
        return spec.name
    return f"{path}:{spec.name}"


def trace_target(ref) -> str | None:
    """The target a trace reference (`T.json#N`) was captured on; None for any other kernel reference."""
    if not _saved_ref(ref):
        return None
    return _opener(ref).target_of(ref)


def _need_torch(ref: str) -> None:
    """A captured launch is rebuilt with its script's imports, a plan's kernel with Inductor's helpers:
    both need torch, which the compile path otherwise never imports."""
    if importlib.util.find_spec("torch") is None:
        raise UserError(f"{ref}: reopening what torch ran or planned needs torch: pip install torch")
    from .. import compat
    compat.check_torch()


def _saved_ref(ref) -> bool:
    """A trace or plan file (`T.json#N`), or the last plan (`fuse#N`)."""
    return isinstance(ref, str) and (ref.partition("#")[0].endswith(".json") or ref.partition("#")[0] == "fuse")


def load_all() -> list[KernelSpec]:
    return [load(n) for n in kernel_names()]


def _looks_like_path(ref: str) -> bool:
    return ref.partition(":")[0].endswith(".py") or os.sep in ref


def _from_file(path: str, name: str, target: str | None = None, args: str | None = None,
               where: imports.Placement | None = None) -> KernelSpec:
    """A user's file is imported as it is. If that fails (a script written for a GPU machine queries the
    device at import, as Triton's tutorials do), it is read again on a virtual GPU of `target`: its
    imports, definitions and assignments run, its demo code (bare calls, loops, `with`, the
    `if __name__ == "__main__":` block) does not, and no kernel launches (virtual/trace_kernels.py)."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise UserError(f"no such kernel file: {path}")
    where = where or imports.placement(file)
    module_name = where.module or f"playground_user_{abs(hash(str(file.resolve())))}"
    module = sys.modules.get(module_name)
    if module is not None and Path(getattr(module, "__file__", "") or "").resolve() != file.resolve():
        module = None         # the same dotted name from another folder (a second project's `kernels.k`): not this file
    namespace = vars(module) if module is not None else None
    read = "when imported here"          # how the namespace was read, for a message that finds no kernel in it
    if module is None and gated.gates(file):      # kernels only when a GPU is present: read on a virtual one
        namespace = _read_gated_on_virtual_gpu(path, file, target, where)
        read = f"on a virtual {_READ_ON.get(str(file.resolve()))}" if namespace is not None else read
    if namespace is None:
        loaded = set(sys.modules)
        try:
            module, skipped_init, where = imports.import_placed(file, where, module_name)
            namespace = vars(module)
            if skipped_init:
                import warnings
                warnings.warn(_one_line(f"{path}: imported as {where.module} without running {skipped_init}"))
        except UserError as e:  # a KernelSpec that says what is wrong with it
            raise UserError(f"{path}: {e}") from e
        except ModuleNotFoundError as e:
            raise UserError(f"{path}: {imports.missing(e, file)}") from e
        except Exception as e:  # broken, or written for a GPU machine: read it on the virtual GPU
            if not (_refers_to_a_gpu(file) or _asked_for_a_gpu(e)):
                raise UserError(f"{path}: cannot import: {type(e).__name__}: {e}") from e
            _forget_half_imported(where.module, loaded)
            namespace = _read_on_virtual_gpu(path, file, target, e, where.module)
            read = f"on a virtual {_READ_ON[str(file.resolve())]}"
    specs = {k: v for k, v in namespace.items() if isinstance(v, KernelSpec)}
    by_name = {s.name: s for s in specs.values()} | specs
    if args:
        if not name or not is_kernel(namespace.get(name)):
            raise UserError(f"args needs a bare kernel: {path}:NAME, NAME a @triton.jit (or autotune / "
                            f"heuristics) function; kernels there: "
                            f"{_kernels_there(file, name, namespace, read)}", param="args")
        from .bare import spec_for
        return _finish(spec_for(namespace[name], name, str(file.resolve()), args), str(file), where)
    if name:
        if name not in by_name:
            if is_kernel(namespace.get(name)):
                raise UserError(f"{path}:{name} is a @triton.jit function with no KernelSpec; pass its arguments "
                                f"(`args` 'x=fp32[1024], n=1024, BLOCK=256') or describe it with "
                                f"`SPEC = KernelSpec(...)` as in kernels/vector_add.py")
            if not specs and _bare_kernels(namespace):     # a project's module: kernels, no specs
                missing = _missing(file, name, namespace, read)
                raise UserError(f"{path} has no kernel named '{name}'"
                                f"{missing or _suggest(name, _bare_kernels(namespace))}")
            if not specs:
                raise UserError(f"{path} has no kernel named '{name}'; kernels there: {_none(file, namespace, read)}")
            raise UserError(f"{path} has no kernel spec named '{name}'"
                            f"{_suggest(name, sorted({s.name for s in specs.values()}))}")
        return _finish(by_name[name], str(file), where)
    if len(set(map(id, specs.values()))) == 1:
        return _finish(next(iter(specs.values())), str(file), where)
    if not specs and not _bare_kernels(namespace):
        raise UserError(f"{path} defines no KernelSpec and no kernel ({gated.why_none(file, namespace, read)})")
    if not specs:
        raise UserError(f"{path} defines no KernelSpec; see kernels/vector_add.py for the form")
    raise UserError(f"{path} defines several kernels; pick one: "
                    + ", ".join(f"{path}:{n}" for n in sorted({s.name for s in specs.values()})))


def _refers_to_a_gpu(file: Path) -> bool:
    """Whether a file asks for a GPU (torch.cuda, Triton's active driver, "cuda" tensors)."""
    return any(word in file.read_text(errors="replace") for word in ("driver.active", "torch.cuda", "cuda"))


def _asked_for_a_gpu(error: Exception) -> bool:
    """Whether an import failed for want of a GPU somewhere in its package, not in the file itself (FlagGems'
    __init__ looks for one: "No device were detected on your machine"; torch: "Torch not compiled with CUDA")."""
    text = str(error).lower()
    return any(words in text for words in ("no device", "not compiled with cuda", "active drivers", "no cuda gpus"))


# The files read on a virtual GPU in this process (they ask the device as they load): resolved path -> the target
# (its label) whose device answered. What they define (a persistent grid of NUM_SMS programs, say) is that GPU's.
_READ_ON: dict[str, str] = {}


def read_on_virtual_gpu(spec: KernelSpec) -> str | None:
    """The target whose virtual device answered when `spec`'s file was read, if it was read that way."""
    path = spec.source_path and str(Path(spec.source_path).resolve())
    return _READ_ON.get(path) if path else None


def check_one_gpu(spec: KernelSpec, names: list[str]) -> None:
    """A spec read on a virtual GPU holds what that GPU answered; compiling it for other GPUs in the same
    command would give them its answers (another process reads it again per target)."""
    read_on = read_on_virtual_gpu(spec)
    others = sorted(set(names) - {read_on})
    if read_on and others:
        raise UserError(f"{spec.source_path} asks the device as it loads, and was read on a virtual {read_on}: "
                        f"what it defines is that GPU's, not {', '.join(others)}'s; name one target at a time")


def _forget_half_imported(module: str | None, loaded: set) -> None:
    """Drop what the failed import left of the file's own package: on the virtual GPU it imports again from the
    start (FlagGems' submodules keep the failed device query otherwise)."""
    package = (module or "").split(".")[0]
    for name in set(sys.modules) - loaded:
        if package and (name == package or name.startswith(package + ".")):
            del sys.modules[name]


def _read_on_virtual_gpu(path: str, file: Path, target: str | None, error: Exception, module: str | None) -> dict:
    import warnings

    from . import targets
    target = targets.resolve(target).label
    try:
        namespace = _GPU_READER[0](file, target, module) if _GPU_READER else {}
    except ImportError:        # no torch: the virtual GPU cannot stand in
        namespace = {}
    if not any(isinstance(v, KernelSpec) or is_kernel(v) for v in namespace.values()):
        raise UserError(f"{path}: cannot import: {type(error).__name__}: {error}") from error
    warnings.warn(_one_line(f"{path} does not import as it is ({type(error).__name__}: {error}); read its "
                            f"definitions on a virtual {target}, without running its top-level demo code"))
    _READ_ON[str(file.resolve())] = target
    return namespace


def _read_gated_on_virtual_gpu(path: str, file: Path, target: str | None, where: imports.Placement) -> dict | None:
    """A module that defines its kernels only when a GPU is present (`if has_triton():`, core/gated.py), read on a
    virtual GPU of `target` before anything imports it (its conditions, and those of the modules it imports, are
    asked once and often cached: torch's has_triton is). None where no virtual GPU can stand in (no torch)."""
    import warnings

    from . import targets
    if not _GPU_READER:
        return None
    label = targets.resolve(target).label
    imports.put_on_path(where)
    try:
        namespace = _GPU_READER[0](file, label, where.module)
    except ImportError:        # no torch: imported as it is, and the message says what that left out
        return None
    conditions = ", ".join(gate.describe() for gate in gated.gates(file))
    warnings.warn(_one_line(f"{path} defines its kernels only when a GPU is present ({conditions}): read its "
                            f"definitions on a virtual {label}, without running its top-level demo code"))
    _READ_ON[str(file.resolve())] = label
    return namespace


def _missing(file: Path, name: str, namespace: dict, read: str) -> str:
    """'; NAME is defined only under `if ...:`, false ...' where the file defines `name` under a condition that was
    false (core/gated.py); '' otherwise."""
    why = gated.why_missing(file, name, namespace, read) if name and name not in namespace else None
    return f"; {why}" if why else ""


def _kernels_there(file: Path, name: str, namespace: dict, read: str) -> str:
    """The file's own kernels, and why `name` is not one of them where the file says; or 'none', and why."""
    there = _bare_kernels(namespace)
    return ", ".join(there) + _missing(file, name, namespace, read) if there else _none(file, namespace, read)


def _none(file: Path, namespace: dict, read: str) -> str:
    """'none', and why (core/gated.py): which GPU-asking condition was false, or that it defines no kernel."""
    return f"none ({gated.why_none(file, namespace, read)})"


def _one_line(text: str) -> str:
    """A warning is one line, though a package's own error may span several (FlagGems' 'No device ...')."""
    return " ".join(text.split())


def _bare_kernels(namespace: dict) -> list[str]:
    """The kernels the file itself defines, underscored ones too (Liger-Kernel's all are): not those it imports."""
    here = namespace.get("__name__")
    return sorted(k for k, v in namespace.items() if is_kernel(v)
                  and getattr(getattr(unwrap(v)[0], "fn", None), "__module__", here) == here)


def _finish(spec: KernelSpec, file: str, where: imports.Placement | None = None) -> KernelSpec:
    spec.source_path = spec.source_path or str(Path(file).resolve())
    if where is not None:
        spec.imported_as = where.describe()
    return spec


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)   # difflib's default; 0.5 matched "nonexistent"
    if not close:
        close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
    if close:
        return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return "; known kernels: " + ", ".join(known) if known else ""
