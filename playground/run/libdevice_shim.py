"""NVIDIA's libdevice functions for Triton's interpreter, which cannot call them (Triton 3.9 raises
"extern_elementwise not supported in interpreter mode", and its `triton.language.extra.libdevice` holds
only stubs). Inductor's kernels call them for exp, erf, tanh and the like, and so do hand-written ones
(`libdevice.asin`), so wherever kernels are interpreted (`fuse --run`, `run`: run/interpreter.py) they get
this module's functions instead: each computes with torch's CPU kernel of the same name on the
interpreter's arrays. Only for the check: the compiled kernel calls libdevice itself, whose results can
differ from these in the last bits (the tolerance allows that).
"""
from __future__ import annotations

import numpy as np
import torch
import triton.language as tl

from .. import compat

TensorHandle = compat.reach("interpreter").TensorHandle


def _array(x):
    if isinstance(x, tl.tensor):
        return x.handle.data, x.dtype
    if isinstance(x, tl.constexpr):
        x = x.value
    return np.asarray(x), None


def _wrap(data: np.ndarray, dtype, block: bool = True):
    """A result as the interpreter holds one: a scalar's data may have shape (1,) (its arguments do), yet its
    type stays a scalar's, or `tl.store` to a scalar pointer refuses it."""
    shape = list(data.shape)
    ty = tl.block_type(dtype, shape) if shape and block else dtype
    return tl.tensor(TensorHandle(data, dtype), ty)


def _elementwise(compute, boolean: bool = False):
    def fn(*args, _semantic=None, **_):
        arrays, dtype = [], None
        for a in args:
            data, kind = _array(a)
            arrays.append(data)
            dtype = dtype or kind
        dtype = dtype or tl.float32
        result = compute(*(torch.from_numpy(np.ascontiguousarray(a)) for a in arrays)).numpy()
        block = any(isinstance(a, tl.tensor) and a.type.is_block() for a in args) or \
            not any(isinstance(a, tl.tensor) for a in args)
        if boolean:
            return _wrap(result.astype(np.bool_), tl.int1, block)
        return _wrap(result.astype(arrays[0].dtype, copy=False) if arrays[0].dtype.kind == "f" else result, dtype,
                     block)
    return fn


def _round_half_away(x):
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


UNARY = {
    "exp": torch.exp, "exp2": torch.exp2, "exp10": lambda x: torch.pow(10.0, x), "expm1": torch.expm1,
    "log": torch.log, "log2": torch.log2, "log10": torch.log10, "log1p": torch.log1p,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "cbrt": lambda x: torch.sign(x) * x.abs().pow(1 / 3),
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "asin": torch.asin, "acos": torch.acos,
    "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh, "asinh": torch.asinh,
    "acosh": torch.acosh, "atanh": torch.atanh, "erf": torch.erf, "erfc": torch.erfc, "erfinv": torch.erfinv,
    "lgamma": torch.lgamma, "tgamma": lambda x: torch.exp(torch.lgamma(x)) * torch.where(
        (x < 0) & (torch.floor(x) % 2 == 1), -1.0, 1.0).to(x.dtype),
    "floor": torch.floor, "ceil": torch.ceil, "trunc": torch.trunc, "rint": torch.round,
    "nearbyint": torch.round, "round": _round_half_away, "abs": torch.abs, "fabs": torch.abs,
    "llrint": lambda x: torch.round(x).to(torch.int64), "sigmoid": torch.sigmoid,
}
BINARY = {
    "pow": torch.pow, "powf": torch.pow, "atan2": torch.atan2, "fmod": torch.fmod, "copysign": torch.copysign,
    "hypot": torch.hypot, "nextafter": torch.nextafter, "fmax": torch.fmax, "fmin": torch.fmin,
    "div_rn": torch.div, "mul_rn": torch.mul, "add_rn": torch.add,
}
PREDICATES = {"isnan": torch.isnan, "isinf": torch.isinf, "isfinited": torch.isfinite, "finitef": torch.isfinite,
              "signbit": torch.signbit}


class _Shim:
    """A module-like namespace: every function above; any other name fails with the function's name."""

    def __init__(self):
        for table, boolean in ((UNARY, False), (BINARY, False), (PREDICATES, True)):
            for name, compute in table.items():
                setattr(self, name, _elementwise(compute, boolean))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(f"libdevice.{name} has no stand-in for Triton's interpreter")


libdevice = _Shim()
