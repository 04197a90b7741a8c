"""The element types the tools know: one row per dtype, every name it goes by and what it weighs.

Rows are keyed by Triton's short names, the ones `--dtype` takes. The tolerance a dtype gets in
`check` lives in tolerances.py, which says why each value is what it is.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError


@dataclass(frozen=True)
class DType:
    name: str            # Triton's short name, as --dtype takes it
    bytes: int
    triton: str          # the triton.language attribute
    torch: str           # the torch attribute
    mlir: str            # the element type as Triton's IR spells it (tensor<128xf16>)
    peak: str            # the key of the device table's peak_tflops for math in this type
    # What an output starts as in `check`, so "never written" can be told from anything a kernel
    # computes: a quiet NaN with a payload arithmetic never produces (a computed NaN has the
    # canonical bits; fp8e4nv has a single NaN code), or an unlikely integer.
    sentinel_bits: int


DTYPES = {d.name: d for d in (
    DType("fp8e4nv", 1, "float8e4nv", "float8_e4m3fn", "f8E4M3FN", "fp8", 0x7F),
    DType("fp8e5", 1, "float8e5", "float8_e5m2", "f8E5M2", "fp8", 0x7E),
    DType("fp16", 2, "float16", "float16", "f16", "fp16", 0x7E5A),
    DType("bf16", 2, "bfloat16", "bfloat16", "bf16", "bf16", 0x7FDA),
    DType("fp32", 4, "float32", "float32", "f32", "fp32", 0x7FC5A5A5),
    DType("fp64", 8, "float64", "float64", "f64", "fp64", 0x7FF8A5A5A5A5A5A5),
    DType("i8", 1, "int8", "int8", "i8", "i8", -77),
    DType("i16", 2, "int16", "int16", "i16", "i16", -7777),
    DType("i32", 4, "int32", "int32", "i32", "i32", -7777777),
    DType("i64", 8, "int64", "int64", "i64", "i64", -7777777),
    # Booleans (torch.bool masks; Triton's int1): no value can mark "never written", so check's
    # sentinel is True; a kernel that leaves a True output alone is not caught (tests/test_dtypes.py).
    DType("i1", 1, "int1", "bool", "i1", "i8", 1),
)}

# Unsigned integers: what a launch's tensors may hold (cut-cross-entropy's uint32 locks, gemlite's uint8 packed
# weights), which the binder makes Triton's *u8..*u64 pointers. Kept out of DTYPES, the dtypes a problem is
# checked and timed in: torch has no arithmetic on uint16/32/64 tensors on the CPU (add, sub, abs), so `check`
# could not make or compare them. Their sentinels are the signed rows' bits, as run/runner.py fills them.
UNSIGNED = {d.name: d for d in (
    DType("u8", 1, "uint8", "uint8", "i8", "i8", -77),
    DType("u16", 2, "uint16", "uint16", "i16", "i16", -7777),
    DType("u32", 4, "uint32", "uint32", "i32", "i32", -7777777),
    DType("u64", 8, "uint64", "uint64", "i64", "i64", -7777777),
)}
KNOWN = DTYPES | UNSIGNED     # every element type a tensor may be given in

# Element sizes by the IR's spelling, for reading tensor types out of TTGIR: the dtypes above (the IR's
# integers are signless, so u32 is i32 there), plus the IR's own booleans and 64-bit pointers.
IR_BYTES = {d.mlir: d.bytes for d in KNOWN.values()} | {"i1": 1, "!tt.ptr": 8}


# Every other name a dtype goes by, as launches and specs are written: torch's and Triton's attribute names
# (float16, bfloat16, bool, int1, float8_e4m3fn, float8e4nv, uint32), torch's short aliases (torch.half is
# float16, torch.float float32, torch.double float64, torch.short int16, torch.int int32, torch.long int64:
# torch's _tensor_docs / torch.dtype table), each also with its module written (torch.float16, tl.float16).
ALIASES = {alias: d.name for d in KNOWN.values() for alias in (d.triton, d.torch)} | {
    "half": "fp16", "float": "fp32", "double": "fp64", "short": "i16", "int": "i32", "long": "i64"}
_MODULES = ("torch.", "triton.language.", "tl.")


def canonical(name: str) -> str:
    """The short name of a dtype given by any of its names (`float16`, `torch.float16`, `tl.float16`, `fp16`)."""
    if name in KNOWN:
        return name
    bare = next((name[len(m):] for m in _MODULES if name.startswith(m)), name)
    if bare in KNOWN or bare in ALIASES:
        return ALIASES.get(bare, bare)
    raise UserError(f"dtype {name}: unknown dtype; known: {', '.join(KNOWN)} (or torch's names: float16, "
                    f"bfloat16, float32, bool, int32, uint32, float8_e4m3fn, ...)", param="dtype")


def get(name: str) -> DType:
    return KNOWN[canonical(name)]


def size(name: str) -> int:
    """Bytes per element."""
    return get(name).bytes


def torch_dtype(name: str):
    """The torch dtype `name` stands for; torch is imported here, not above, as compiling never needs it."""
    import torch
    return getattr(torch, get(name).torch)
