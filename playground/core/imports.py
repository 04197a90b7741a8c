"""How a user's file or module is imported: as its package would import it, or as a script.

A kernel file inside a package (`attorch/act_kernels.py` with `from .utils import ...`, Liger-Kernel's
`src/liger_kernel/ops/rms_norm.py` with `from liger_kernel.ops.utils import ...`) only imports under its dotted
name, with the directory above its top package on `sys.path`. `placement` finds both: a regular package by its
`__init__.py` files, a namespace package (no `__init__.py`, as in many `src/` layouts) by what the file itself
imports (a relative import, or an absolute one of a package the file lies in). A file that is neither is a
script: it runs with its own folder first on the path, as `python file.py` would.

A package's `__init__.py` often imports far more than its kernels need (a model library, a GPU check): when
the import fails, it is tried again with the packages above the file standing in as empty ones, and the
caller says which `__init__.py` did not run.
"""
from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class Placement:
    module: str | None      # the dotted name the file imports as; None for a script
    root: Path | None       # the folder put first on sys.path for it (the file's own, for a script)
    kind: str               # "package", "namespace package", "installed module" or "script"

    def describe(self) -> str:
        """For a header: `liger_kernel.ops.rms_norm (namespace package, root src)`."""
        return f"{self.module} ({self.kind}, root {self.root})" if self.module else ""


def is_module_name(text: str) -> bool:
    """`liger_kernel.ops.rms_norm` (a dotted name: a built-in kernel's name has no dot)."""
    return "." in text and bool(_DOTTED.match(text))


# An edited copy of a file inside a package (the page's editor keeps edits in a scratch folder) -> the file it
# stands in for: it imports as a member of that file's package, under a name of its own.
_EDITS: dict[Path, Path] = {}


def edit_of(copy: Path, original: Path) -> None:
    """`copy` is an edited `original`: its relative imports reach the original's package."""
    _EDITS[copy.resolve()] = original.resolve()


def placement(file: Path) -> Placement:
    """Where `file` belongs: the package that holds it and the folder above that package, or a script."""
    file = file.resolve()
    original = _EDITS.get(file)
    if original is not None:
        of = placement(original)
        if of.module:
            name = f"{of.module}__edited_{abs(hash(str(file))):x}"
            return Placement(name, of.root, "edited copy")
    parts = [file.stem] if file.name != "__init__.py" else []
    top = file.parent
    while (top / "__init__.py").is_file():
        parts.insert(0, top.name)
        top = top.parent
    if top != file.parent and _identifiers(parts):
        root = _project_root(top)
        if root is not None:       # folders without __init__.py between the package and its project's root
            parts = [*top.relative_to(root).parts, *parts]
            return Placement(".".join(parts), root, "package")
        return Placement(".".join(parts), top, "package")
    depth = _namespace_depth(file)
    if depth:
        root = file.parents[depth]
        parts = [p.name for p in reversed(file.parents[:depth])] + [file.stem]
        if _identifiers(parts):
            return Placement(".".join(parts), root, "namespace package")
    return Placement(None, file.parent, "script")


# What a project's root folder holds (or is called): the folder its packages import from. `src` is a root.
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "LICENSE", "LICENSE.txt", "LICENSE.md",
                 "LICENSE-CODE", "COPYING")


def _project_root(folder: Path, most: int = 3) -> Path | None:
    """The nearest folder at or above `folder` (at most `most` up, through folders named as identifiers) that is
    a project's root: a package copied without its top `__init__.py` (flash-attention's `flash_attn/`, which
    needs a compiled extension) still imports as `flash_attn.ops...` from there. None when no root is near."""
    for _ in range(most + 1):
        if folder.name == "src" or any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return folder
        if not folder.name.isidentifier():
            return None
        folder = folder.parent
    return None


def _identifiers(parts: list[str]) -> bool:
    return bool(parts) and all(p.isidentifier() for p in parts)


def _namespace_depth(file: Path) -> int:
    """How many folders above the file its package reaches, judged by its own imports: a relative import of
    level n needs n; an absolute import of a folder the file lies in needs that folder. 0: a script."""
    try:
        tree = ast.parse(file.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return 0
    folders = [p.name for p in file.parents]          # the file's own folder first
    depth = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            depth = max(depth, node.level)
        names = [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            first = name.split(".")[0]
            # the nearest folder of that name; the file's own folder cannot be a package it imports from above
            if first in folders[1:]:
                depth = max(depth, folders.index(first, 1) + 1)
    return depth if depth < len(folders) else 0


def locate(module: str) -> tuple[Path, Placement]:
    """An importable module's file and placement, found without running any package's `__init__.py`."""
    if not _DOTTED.match(module):
        raise UserError(f"{module}: not a module name (as in liger_kernel.ops.rms_norm)")
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise UserError(f"no module named '{top}'{install_hint(top)}")
    where = list(spec.submodule_search_locations or [])
    if not rest:
        if not spec.origin or not spec.origin.endswith(".py"):
            raise UserError(f"{module}: not a Python source file")
        file = Path(spec.origin)
    else:
        file = None
        for i, name in enumerate(rest):
            last = i == len(rest) - 1
            found = [Path(d) / f"{name}.py" for d in where if last and (Path(d) / f"{name}.py").is_file()] or \
                [Path(d) / name for d in where if (Path(d) / name).is_dir()]
            if not found:
                raise UserError(f"no module named '{'.'.join([top, *rest[:i + 1]])}'")
            if found[0].suffix == ".py":
                file = found[0]
            elif last:
                file = found[0] / "__init__.py"
                if not file.is_file():
                    raise UserError(f"{module}: a namespace package, not a file of kernels")
            where = [str(found[0])]
    root = file.parents[len(rest) if file.name != "__init__.py" else len(rest) + 1]
    return file, Placement(module, root, "installed module")


def import_placed(file: Path, where: Placement, script_name: str) -> tuple[types.ModuleType, str | None, Placement]:
    """Import `file` as `where` says; (the module, the `__init__.py` that could not run or None, where it was
    imported: a package found to reach higher than its `__init__.py` files say is imported from there). A
    script is imported under `script_name`. Raises what the import raised."""
    if where.module is None:
        _on_path(where.root)
        return _import_script(file, script_name), None, where
    for _ in range(len(file.parents)):
        taken = _taken_elsewhere(where)
        if taken:                     # `kernels`, say, already imported from another folder in this process
            wider = _one_level_up(where)
            if wider is None:
                raise UserError(f"imports as {where.module}, but the name {where.module.split('.')[0]} is "
                                f"{taken} in this process; open it in a process of its own")
            where = wider
            continue
        _on_path(where.root)
        importlib.invalidate_caches()
        try:
            module, skipped_init = _import_package_module(where, file)
            return _same_file(module, file, where), skipped_init, where
        except ImportError as e:
            wider = _one_level_up(where) if "beyond top-level package" in str(e) else None
            if wider is None:
                raise
            _forget(where.module)
            where = wider
    raise AssertionError("unreachable: a package cannot reach above the file system's root")


def _taken_elsewhere(where: Placement) -> str | None:
    """Where the file's top package name already points, if it is imported from a folder other than the root."""
    module = sys.modules.get(where.module.split(".")[0])
    if module is None:
        return None
    folders = [Path(p).resolve() for p in getattr(module, "__path__", [])]
    if not folders and getattr(module, "__file__", None):
        folders = [Path(module.__file__).resolve().parent]
    if any(f.parent == where.root.resolve() for f in folders):
        return None
    return str(folders[0]) if folders else repr(module)


def put_on_path(where: Placement) -> None:
    """The folder `where`'s module imports from, first on sys.path (as import_placed puts it)."""
    if where.root is not None:
        _on_path(where.root)


def _on_path(folder: Path) -> None:
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def _import_package_module(where: Placement, file: Path) -> tuple[types.ModuleType, str | None]:
    """The module by its dotted name; if an `__init__.py` above it raises, again with the packages above standing
    in as empty ones (the `__init__.py` that raised, and why, comes back)."""
    try:
        return _import_dotted(where, file), None
    except Exception as first:
        failed_init = _failed_init(first, where)
        if failed_init is None:
            raise
        _forget(where.module)
        _stand_in_parents(where)
        return _import_dotted(where, file), f"{failed_init} ({type(first).__name__}: {first})"


def _import_dotted(where: Placement, file: Path) -> types.ModuleType:
    if where.kind != "edited copy":
        return importlib.import_module(where.module)
    importlib.import_module(where.module.rpartition(".")[0])     # its package, from the original's folder
    spec = importlib.util.spec_from_file_location(where.module, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[where.module] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[where.module]
        raise
    return module


def _one_level_up(where: Placement) -> Placement | None:
    """The folder above the root as a namespace package, for a package that reaches above its last `__init__.py`
    (a sibling's `from ..x import`, its top package's `__init__.py` not there); None when that folder's name is
    not a module name."""
    if not where.root.name.isidentifier():
        return None
    return Placement(f"{where.root.name}.{where.module}", where.root.parent, "namespace package")


def _import_script(file: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _failed_init(error: BaseException, where: Placement) -> str | None:
    """The package `__init__.py` above the file that raised `error`, if one did."""
    inits = {str((where.root / Path(*where.module.split(".")[:i + 1]) / "__init__.py").resolve())
             for i in range(where.module.count("."))}
    tb = error.__traceback__
    while tb is not None:
        name = str(Path(tb.tb_frame.f_code.co_filename).resolve())
        if name in inits:
            return str(Path(name).relative_to(where.root))
        tb = tb.tb_next
    return None


def _forget(module: str) -> None:
    """Drop what a failed import left of the file's packages."""
    top = module.split(".")[0]
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        del sys.modules[name]


def _stand_in_parents(where: Placement) -> None:
    """Empty packages in place of the file's parents, their `__init__.py` not run: the file's own imports of
    its siblings still find them through each package's folder."""
    parts = where.module.split(".")[:-1]
    for i in range(len(parts)):
        name = ".".join(parts[:i + 1])
        folder = where.root / Path(*parts[:i + 1])
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        package.__package__ = name
        package.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        package.__spec__.submodule_search_locations = [str(folder)]
        sys.modules[name] = package
        if i:
            setattr(sys.modules[".".join(parts[:i])], parts[i], package)


def _same_file(module: types.ModuleType, file: Path, where: Placement) -> types.ModuleType:
    found = getattr(module, "__file__", None)
    if not found or Path(found).resolve() != file.resolve():
        raise UserError(f"imports as {where.module}, but that name is {found} in this Python (another copy is "
                        f"installed or already imported)")
    return module


# The package pip installs each module from, for modules Triton projects commonly import (the name differs for
# several: cv2, PIL, yaml, sklearn, flash_attn, liger_kernel, fla, mamba_ssm).
_PIP_NAMES = {"cv2": "opencv-python", "PIL": "pillow", "yaml": "pyyaml", "sklearn": "scikit-learn",
              "flash_attn": "flash-attn", "liger_kernel": "liger-kernel", "fla": "flash-linear-attention",
              "mamba_ssm": "mamba-ssm", "attr": "attrs", "bitsandbytes": "bitsandbytes", "einops": "einops",
              "transformers": "transformers", "accelerate": "accelerate", "safetensors": "safetensors",
              "xformers": "xformers", "numpy": "numpy", "scipy": "scipy", "pandas": "pandas",
              "matplotlib": "matplotlib", "packaging": "packaging", "pytest": "pytest",
              "torch": "torch==2.13.0 (the CPU build)"}


def install_hint(module: str) -> str:
    """`; pip install NAME` when the package that provides `module` is known."""
    pip = _PIP_NAMES.get(module.split(".")[0])
    return f" (pip install {pip})" if pip else ""


def missing(error: ModuleNotFoundError, file: Path) -> str:
    """What a module the file imports and this Python lacks is: one of its own package's (named after a folder
    the file lies in), or another project's."""
    name = error.name or str(error)
    top = name.split(".")[0]
    package = next((folder for folder in Path(file).resolve().parents if folder.name == top), None)
    if package is not None:
        return f"imports {name}, which is not in {package.parent}"
    return f"needs the module '{name}', which is not installed here{install_hint(name)}"
