"""How close is close enough: one table keyed by dtype, atol scaled by the reduction length.

An output element passes when |got - expected| <= atol + rtol * |expected| (torch.isclose's rule),
with `expected` computed in fp64 from the same (already rounded) inputs the kernel saw.

The form follows FlagGems (flag_gems/testing/__init__.py: rtol from a per-dtype RESOLUTION table,
atol = 1e-4 * reduce_dim). Our values:
- rtol covers the rounding of the output itself: a correct result stored as fp16 is off by at most
  half a unit in the last place (2^-11 relative), one unit (2^-10 = 9.8e-4) if the fp32 value
  before rounding was itself a hair off; 1e-3 allows that. bf16 keeps 7 fraction bits, so one unit is
  2^-7 = 7.8e-3; 1.6e-2 allows two (FlagGems' value). fp32's 1e-5 leaves room for the GPU's
  approximate exp/divide (ex2.approx, div.full) and reordered sums.
- atol is an absolute slack per element summed over: a reduction of n terms in an fp32
  accumulator, in a different order than the reference, drifts by far less than 1e-5 * n. A 16-bit
  accumulator drifts by about n * 1.4e-4 (one rounding of a partial sum of size sqrt(k) per step),
  so it fails, which tests/test_check.py pins with a known-wrong GEMM.
- Under the input generators that scale values (x100, near overflow; run/inputs.py), check.py
  multiplies atol by how much larger the reference's outputs are than under N(0, 1): the slack
  is absolute, and a correct kernel's rounding grows with what it handles.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    atol: float   # absolute; already scaled by the reduction length where it applies
    rtol: float   # relative to |expected|

    def describe(self) -> str:
        return f"atol={self.atol:.3g}, rtol={self.rtol:.3g}"


# dtype -> (atol per element of the reduction, rtol)
TABLE = {
    "fp64": Tolerance(1e-12, 1e-9),
    "fp32": Tolerance(1e-6, 1e-5),
    "fp16": Tolerance(1e-5, 1e-3),
    "bf16": Tolerance(1e-4, 1.6e-2),
    "fp8e4nv": Tolerance(1e-3, 1.25e-1),   # 3 fraction bits: one unit is 2^-3
    "fp8e5": Tolerance(1e-3, 2.5e-1),      # 2 fraction bits: one unit is 2^-2
    **{i: Tolerance(0.0, 0.0) for i in ("i8", "i16", "i32", "i64")},   # integers are exact
}

# Per-kernel overrides. Each needs a reason; most kernels need none.
OVERRIDES = {
    # Every softmax output is a ratio to its row's sum, so a rounding error in the sum shows up
    # relative to the output and does not grow with N, while the outputs shrink like 1/N: an atol
    # scaled by N would let a softmax that writes zeros pass long rows.
    "softmax": {"scale_atol": False},
    # Flash attention rounds the softmax weights p to the input dtype before the P @ V product
    # (tensor cores take 16-bit operands), so an output is off by up to one rounding of the
    # weights times |v|: about rtol * max|v|, whatever the lengths. With N(0, 1) inputs that is
    # an atol of the dtype's rtol. An atol scaled by D (the dot-product length behind the scores)
    # is too tight at D=16: a blockwise emulation in torch reaches 1.2x of it.
    "flash_attention": {"scale_atol": False, "atol": {"fp16": 1e-3, "bf16": 1.6e-2}},
}


def for_output(kernel: str, dtype: str, reduction_length: int = 1) -> Tolerance:
    """The tolerance for one output of `kernel` stored as `dtype`, after summing over `reduction_length`."""
    base = TABLE[dtype]
    override = OVERRIDES.get(kernel, {})
    scale = max(int(reduction_length), 1) if override.get("scale_atol", True) else 1
    atol = override.get("atol", {}).get(dtype, base.atol)
    return Tolerance(atol=atol * scale, rtol=base.rtol)
