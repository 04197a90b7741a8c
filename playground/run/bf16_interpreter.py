"""bf16 arithmetic in Triton's interpreter, computed as the hardware does it.

Triton's interpreter keeps a bf16 tensor as its raw bits in a uint16 numpy array. Loads,
stores and casts to and from fp32 handle those bits; arithmetic does not: `x + y`, `tl.exp`,
`tl.sum`, `tl.max` and `tl.dot` run numpy's integer operations on the bits
(triton-lang/triton#11584; fixes proposed in #11585 and #10945 were not merged). That is why
`check` used to skip every bf16 case on the CPU.

The workaround wraps the builder's floating-point operations and the interpreter's reductions
and scans: a bf16 operand is widened to fp32 (exact: bf16 is fp32's upper half), the operation
runs in fp32, and a result whose type is bf16 is rounded back to nearest-even, as a GPU's
`cvt.rn.bf16.f32` does. The fp32 -> bf16 cast, which the interpreter truncates, rounds to
nearest-even too (Triton lowers `.to(tl.bfloat16)` to round-to-nearest-even). An operation with
an fp32 operand as well (tl.dot's accumulator) keeps its fp32 result.

`install()` runs once in the interpreter worker. `triton_still_broken()` asks an unpatched
interpreter whether bf16 addition is still wrong: tests/test_bf16_interpreter.py fails the day
Triton fixes it, so the workaround can go.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .. import compat

# The builder's operations that compute on floating-point values (casts, loads, stores, layout
# changes and selects move bits and are right already).
ARITHMETIC = (
    "create_fadd", "create_fsub", "create_fmul", "create_fdiv", "create_frem", "create_precise_divf",
    "create_minimumf", "create_maximumf", "create_minnumf", "create_maxnumf", "create_fneg",
    "create_fcmpOLT", "create_fcmpOGT", "create_fcmpOLE", "create_fcmpOGE", "create_fcmpOEQ", "create_fcmpONE",
    "create_fcmpULT", "create_fcmpUGT", "create_fcmpULE", "create_fcmpUGE", "create_fcmpUEQ", "create_fcmpUNE",
    "create_exp", "create_exp2", "create_log", "create_log2", "create_sqrt", "create_precise_sqrt",
    "create_sin", "create_cos", "create_floor", "create_ceil", "create_erf", "create_rsqrt",
    "create_fma", "create_clampf", "create_dot",
)
_ORIGINALS: dict = {}


def widen(bits: np.ndarray) -> np.ndarray:
    """bf16 bits -> the same values as fp32 (exact)."""
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def narrow(values: np.ndarray) -> np.ndarray:
    """fp32 -> bf16 bits, rounded to nearest, ties to even; NaN stays a quiet NaN."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    quiet_nan = ((bits >> np.uint32(16)) | np.uint32(0x0040))
    return np.where(np.isnan(values), quiet_nan, rounded).astype(np.uint16)


def install() -> None:
    """Wrap the interpreter once (in the interpreter worker's process)."""
    if _ORIGINALS:
        return
    interpreter = compat.reach("interpreter")
    builder = interpreter.InterpreterBuilder
    for name in ARITHMETIC:
        if hasattr(builder, name):
            _ORIGINALS[(builder, name)] = getattr(builder, name)
            setattr(builder, name, _in_fp32(getattr(builder, name)))
    _ORIGINALS[(builder, "create_fp_trunc")] = builder.create_fp_trunc
    builder.create_fp_trunc = _rounding_trunc(builder.create_fp_trunc)
    for cls, names in ((interpreter.ReduceOps, ("sum", "min_max")), (interpreter.ScanOps, ("cumsum", "cumprod"))):
        for name in names:
            _ORIGINALS[(cls, name)] = getattr(cls, name)
            setattr(cls, name, _reduction_in_fp32(getattr(cls, name)))


@contextmanager
def unpatched():
    """Triton's own interpreter for a moment (to ask whether it still needs the workaround)."""
    saved = {key: getattr(*key) for key in _ORIGINALS}
    for (owner, name), original in _ORIGINALS.items():
        setattr(owner, name, original)
    try:
        yield
    finally:
        for (owner, name), current in saved.items():
            setattr(owner, name, current)


def _in_fp32(operation):
    import triton.language as tl
    TensorHandle = compat.reach("interpreter").TensorHandle

    def wrapped(self, *args):
        handles = [a for a in args if isinstance(a, TensorHandle)]
        if not any(h.dtype.scalar == tl.bfloat16 for h in handles):
            return operation(self, *args)
        wide = [TensorHandle(widen(a.data), tl.float32)
                if isinstance(a, TensorHandle) and a.dtype.scalar == tl.bfloat16 else a for a in args]
        result = operation(self, *wide)
        keeps_fp32 = any(h.dtype.scalar == tl.float32 for h in handles)     # tl.dot's fp32 accumulator
        if isinstance(result, TensorHandle) and result.dtype.scalar == tl.float32 and not keeps_fp32:
            return TensorHandle(narrow(result.data), tl.bfloat16)
        return result
    return wrapped


def _rounding_trunc(trunc):
    import triton.language as tl
    TensorHandle = compat.reach("interpreter").TensorHandle

    def wrapped(self, src, dst_type):
        if dst_type.scalar == tl.bfloat16 and src.dtype.scalar == tl.float32:
            return TensorHandle(narrow(src.data), tl.bfloat16)
        return trunc(self, src, dst_type)
    return wrapped


def _reduction_in_fp32(reduce):
    import triton.language as tl

    def wrapped(self, input, *args, **kwargs):
        tensor = input[0] if isinstance(input, (list, tuple)) else input
        if tensor.dtype.scalar != tl.bfloat16:
            return reduce(self, input, *args, **kwargs)
        saved = tensor.handle.data
        tensor.handle.data = widen(saved)
        try:
            # to_tensor casts the result to bf16's storage type: hand it bits, not floats
            original_to_tensor = self.to_tensor
            self.to_tensor = lambda ret, dtype: original_to_tensor(
                narrow(np.asarray(ret, dtype=np.float32)) if dtype.scalar == tl.bfloat16 else ret, dtype)
            return reduce(self, input, *args, **kwargs)
        finally:
            tensor.handle.data = saved
            del self.to_tensor
    return wrapped


def triton_still_broken() -> bool:
    """True while Triton's own interpreter adds two bf16 tensors on their bits (run where it interprets)."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr):
        offsets = tl.arange(0, 4)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))

    x = torch.tensor([1.0, 2.0, -3.0, 0.5], dtype=torch.bfloat16)
    out = torch.empty_like(x)
    with unpatched():
        add[(1,)](x, x, out)
    return not torch.equal(out, x + x)


def ops_against_torch(seed: int = 0) -> dict:
    """Each bf16 operation run in the (patched) interpreter against torch's bf16 CPU operation on the
    same inputs: op -> the largest difference in units of bf16's last place (0: bit-identical)."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def ops(x_ptr, y_ptr, add_ptr, mul_ptr, div_ptr, max_ptr, exp_ptr, sum_ptr, rowmax_ptr, dot_ptr, cast_ptr):
        rows = tl.arange(0, 16)[:, None]
        cols = tl.arange(0, 16)[None, :]
        x = tl.load(x_ptr + rows * 16 + cols)
        y = tl.load(y_ptr + rows * 16 + cols)
        tl.store(add_ptr + rows * 16 + cols, x + y)
        tl.store(mul_ptr + rows * 16 + cols, x * y)
        tl.store(div_ptr + rows * 16 + cols, x / y)
        tl.store(max_ptr + rows * 16 + cols, tl.maximum(x, y))
        tl.store(exp_ptr + rows * 16 + cols, tl.exp(x.to(tl.float32)).to(tl.bfloat16))   # exp takes fp32
        tl.store(sum_ptr + tl.arange(0, 16), tl.sum(x, axis=1))
        tl.store(rowmax_ptr + tl.arange(0, 16), tl.max(x, axis=1))
        tl.store(dot_ptr + rows * 16 + cols, tl.dot(x, y))
        tl.store(cast_ptr + rows * 16 + cols, (x.to(tl.float32) * 1.001).to(tl.bfloat16))

    gen = torch.Generator().manual_seed(seed)
    x, y = (torch.randn(16, 16, generator=gen).to(torch.bfloat16) for _ in range(2))
    expected = {"add": x + y, "mul": x * y, "div": x / y, "max": torch.maximum(x, y), "exp": torch.exp(x.float()).to(torch.bfloat16),
                "sum": x.float().sum(1).to(torch.bfloat16), "rowmax": x.max(1).values,
                "dot": (x.float() @ y.float()), "cast": (x.float() * 1.001).to(torch.bfloat16)}
    got = {k: torch.empty_like(v) for k, v in expected.items()}
    install()
    ops[(1,)](x, y, *got.values())
    return {k: _ulps(got[k], expected[k]) for k in expected}


def _ulps(got, expected) -> float:
    """The largest |got - expected| in units of the last place of expected's type at each element."""
    import torch
    g, e = got.double(), expected.double()
    fraction_bits = {torch.bfloat16: 7, torch.float16: 10, torch.float32: 23}[expected.dtype]
    exponent = torch.frexp(e.abs().clamp_min(torch.finfo(expected.dtype).tiny))[1] - 1
    ulp = torch.ldexp(torch.ones_like(e), exponent - fraction_bits)
    return float(((g - e).abs() / ulp).max())
