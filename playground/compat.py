"""The torch and Triton releases playground works with, and its reaches into their private internals.

The stack users install moves every month, and a private name may move with it. Each reach below names the
releases it was read from; a torch or Triton outside SUPPORTED stops a command with one line naming the version
and the range (exit 2), before anything of it is imported, instead of a traceback from deep inside.

Importing this module imports neither torch nor Triton: the checks read the installed versions' metadata
(versions.py), and each reach imports what it touches when called.
"""
from __future__ import annotations

import re

from .errors import UserError

# The oldest and newest minor release of each that playground is written for. torch 2.11 pins Triton 3.6, 2.12 and
# 2.13 pin 3.7, 2.14 pins 3.8; 3.9 is the newest Triton. CI runs torch 2.13 (CPU) with Triton 3.9 and 3.6, and
# torch 2.14.1 (CUDA build) with its Triton 3.8 (scripts/test.sh).
SUPPORTED = {"torch": ((2, 11), (2, 15)), "triton": ((3, 6), (3, 9))}
# Accepted with a warning: newer than any release the suite has run on (this project's machines install torch up
# to 2.14.1; 2.15 was released after that and cannot be installed there).
UNTESTED = {"torch": (2, 15)}


class UnsupportedVersion(UserError):
    """A torch or Triton this playground was not written for."""


def minor(version: str) -> tuple[int, int]:
    """(2, 14) for '2.14.1+cu130', '2.14.0a0', '2.14'."""
    m = re.match(r"(\d+)\.(\d+)", version or "")
    if not m:
        raise UnsupportedVersion(f"cannot read the version {version!r}")
    return int(m.group(1)), int(m.group(2))


def supported_range(package: str) -> str:
    (a, b), (c, d) = SUPPORTED[package]
    return f"{a}.{b} to {c}.{d}"


def check(package: str, version: str | None = None) -> str:
    """The installed `package`'s version, or UnsupportedVersion naming it and the supported range."""
    from . import versions
    if version is None:
        version = (versions.torch_build().get("torch") if package == "torch" else versions.package_version(package))
    if version is None:
        raise UnsupportedVersion(f"{package} is not installed: playground works with {package} {supported_range(package)}"
                                 + (" (pip install torch; its CPU build is enough)" if package == "torch" else ""))
    low, high = SUPPORTED[package]
    if not low <= minor(version) <= high:
        raise UnsupportedVersion(f"{package} {version} is not supported: playground works with {package} "
                                 f"{supported_range(package)} (playground/compat.py names what each release needs)")
    if minor(version) == UNTESTED.get(package):
        _warn_once(f"{package} {version} is newer than any release playground's tests have run on "
                   f"(up to {package} 2.14.1): report what fails")
    return version


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        import warnings
        warnings.warn(message, stacklevel=3)


def check_torch() -> str:
    """For the commands that run kernels or plan with torch (run, check, fuse, bench's measurement, puzzle)."""
    check("triton")
    return check("torch")


# ---- torch's internals ------------------------------------------------------------------------------------------

def function_apply(function_cls):
    """The `apply` that autograd.Function subclasses inherit, unbound, so a wrapper can call it for any subclass.

    torch 2.11 to 2.13 define it in Python (a classmethod on Function that calls _C._FunctionBase.apply);
    torch 2.14 assigns _C._FunctionBase's classmethod_descriptor to Function directly (torch/autograd/function.py),
    which has no __func__. Both bind with __get__(None, cls)."""
    for klass in function_cls.__mro__:
        if "apply" in vars(klass):
            raw = vars(klass)["apply"]
            return lambda cls, *args, **kwargs: raw.__get__(None, cls)(*args, **kwargs)
    raise AttributeError(f"{function_cls.__name__} has no apply")


def saved_tensors_property():
    """The C property that unpacks a backward node's saved tensors: _C._FunctionBase.saved_tensors (2.11 to 2.14)."""
    import torch
    return torch._C._FunctionBase.saved_tensors


def function_mode_stack() -> list:
    """The TorchFunctionModes now active, innermost last: torch.overrides._get_current_function_mode_stack (2.11
    to 2.14)."""
    import torch.overrides
    return torch.overrides._get_current_function_mode_stack()


def redispatch_to_cuda(op, *args, **kwargs):
    """Run an OpOverload's kernel registered for the CUDA key (OpOverload.redispatch with a one-key DispatchKeySet,
    2.11 to 2.14)."""
    import torch
    return op.redispatch(torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA), *args, **kwargs)
