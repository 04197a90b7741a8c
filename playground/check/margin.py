"""How close is close enough: an output's error against an fp64 reference, as a multiple of the error PyTorch itself
makes in the same dtype.

For each case the reference runs twice, on the very inputs the kernel saw: in fp64 (the answer) and in the problem's
own dtype, as PyTorch runs it (the yardstick). An output passes when

    max |got - fp64|  <=  K * max |pytorch - fp64|  +  FLOOR_ULPS * ulp(max |fp64|)

over the elements finite in both. This is the rule of FlashAttention's tests (tests/test_flash_attn.py: "the error
of our output is at most twice the error of a PyTorch implementation in the same dtype", both against an fp32/fp64
reference), with two changes measured on this project's own corpus (tests/data/margins, benchmarks/margins.py):
- K: PyTorch's CPU kernels round well (pairwise and vectorised sums, correctly rounded exp), so a correct kernel
  with other numerics (a sequential loop over blocks, an online softmax, exp2 scaling, split-K atomics) lands up to
  a few times PyTorch's error; K leaves room for those and stays far below the subtle bugs' 30x and more.
- the floor: where PyTorch computes an output exactly (a copy, a max, a sum of few terms) its error is 0, and any
  rounding of a correct kernel would fail; FLOOR_ULPS units in the last place of the dtype at the output's
  largest magnitude let those through (FlashAttention's floor, 2 * |(out + 0.3) - 0.3 - out|, is about one).
The multiple (error / PyTorch's error) is reported for every output, so a user sees how close a pass was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

K = 10.0
FLOOR_ULPS = 2.0
# Input classes where PyTorch's own exactness is luck, not a yardstick: rows of one repeated value give a mean,
# a max and a spread that one algorithm gets exactly and another a rounding off, amplified by 1/sqrt(eps) in a
# norm. Those cases are judged by the table alone, as they test ties and zero spread, not rounding.
TABLE_ONLY_CLASSES = ("equal",)
# A spec's "long reduction" run (check/variants.py) exists to catch a narrow accumulator over the spec's own
# reduction length, which the table does with its atol scaled by that length. The margin rule cannot judge it:
# PyTorch's CPU kernels accumulate some reductions in double (ATen/AccumulateType.h: CPU_ACC_TYPE(float, double)), so
# their error is one final rounding, while a correct fp32 scan of 4113 terms carries about sqrt(4113) ulps
# (tutorials/puzzles' prefix sum: 29x PyTorch's error, and right).
TABLE_ONLY_RUNS = ("long reduction",)


@dataclass(frozen=True)
class Margin:
    error: float          # max |got - fp64| over elements finite in both
    pytorch: float        # max |PyTorch in the dtype - fp64| over the same elements
    floor: float          # FLOOR_ULPS * ulp(max |fp64|) in the output's dtype
    k: float = K

    @property
    def allowed(self) -> float:
        return self.k * self.pytorch + self.floor

    @property
    def ok(self) -> bool:
        return self.error <= self.allowed

    @property
    def multiple(self) -> float | None:
        """The error as a multiple of PyTorch's own; None where PyTorch is exact (then the floor decides)."""
        return self.error / self.pytorch if self.pytorch > 0 else None

    def describe(self) -> str:
        if self.multiple is None:
            return f"error {self.error:.3g} where PyTorch is exact (allowed: {FLOOR_ULPS:g} ulps, {self.floor:.3g})"
        times = f"{self.multiple:.0f}" if self.multiple >= 10 else f"{self.multiple:.2g}"
        return (f"error {self.error:.3g}, {times}x PyTorch's own ({self.pytorch:.3g} in the same dtype); "
                f"allowed {self.k:g}x + {FLOOR_ULPS:g} ulps = {self.allowed:.3g}")

    def as_dict(self) -> dict:
        return {"error": self.error, "pytorch": self.pytorch, "floor": self.floor, "k": self.k,
                "allowed": self.allowed, "multiple": self.multiple, "ok": self.ok}


def measure(got, fp64, pytorch, k: float = K) -> Margin | None:
    """The margin of `got` (any dtype) against `fp64`, with `pytorch` the reference's own output in got's dtype; None
    when no element is finite in all three."""
    import torch
    g, e, t = got.double(), fp64.double(), pytorch.double()
    finite = torch.isfinite(g) & torch.isfinite(e) & torch.isfinite(t)
    if not bool(finite.any()):
        return None
    e_f = e[finite]
    return Margin(error=float((g[finite] - e_f).abs().max()), pytorch=float((t[finite] - e_f).abs().max()),
                  floor=FLOOR_ULPS * ulp(float(e_f.abs().max()), got.dtype), k=k)


def ulp(magnitude: float, dtype) -> float:
    """One unit in the last place of `dtype` at `magnitude`: 2^floor(log2 |x|) * eps (IEEE 754, normal numbers;
    below the smallest normal, the subnormals' spacing)."""
    import torch
    if not dtype.is_floating_point:
        return 0.0
    info = torch.finfo(dtype)
    if magnitude < info.tiny:
        return info.tiny * info.eps
    return 2.0 ** math.floor(math.log2(magnitude)) * info.eps


def judge(check, got, fp64, native, dtype: str, tol, unwritten=None) -> Margin | None:
    """Measure `got` against `fp64` with PyTorch's `native` output as the yardstick, into `check` (a
    core.closeness.OutputCheck compared element by element under `tol`, the dtype's table without the length
    factor): its margin, and a problem where the margin fails. The table stays as a second, element-wise test where
    PyTorch's own output clears it, at K times its width (the kernel may be K times PyTorch's error, element by
    element too); where PyTorch's own output misses it (a sum that cancels to near zero misses an atol not scaled
    by length in PyTorch's hands too) it is no bar, and is dropped. Returns the margin; None where no element
    could be measured (then `check` is left as the table made it)."""
    from ..core import closeness, tolerances
    yardstick = native.to(got.dtype) if native.dtype != got.dtype else native
    measured = measure(got, fp64, yardstick)
    if measured is None:
        return None
    missed = _misses(yardstick, fp64, tol)
    if missed:
        check.problems = [p for p in check.problems if "differ by more than" not in p]
        check.mismatches, check.first = 0, []
        table = f"not applied: PyTorch's own output misses it at {missed} of {fp64.numel()} elements"
    else:
        wide = tolerances.Tolerance(measured.k * tol.atol, measured.k * tol.rtol)
        if check.mismatches:          # else nothing is outside the wider table either: only its width changes
            again = closeness.compare(check.name, got, fp64, dtype, wide, unwritten)
            for name in ("mismatches", "first", "problems"):
                setattr(check, name, getattr(again, name))
        check.worst = None if check.worst is None else check.worst / measured.k
        check.atol, check.rtol = wide.atol, wide.rtol
        table = f"applied at {measured.k:g}x its width, which PyTorch's own output clears"
    check.margin = {**measured.as_dict(), "table": table}
    if not measured.ok:
        check.problems.append(measured.describe())
    return measured


def _misses(t, fp64, tol) -> int:
    """Elements of `t` outside the table (finite ones; a NaN or Inf is nonfinite's concern, not the table's)."""
    import torch
    t64, e = t.double(), fp64.double()
    both = torch.isfinite(t64) & torch.isfinite(e)
    return int(((t64 - e).abs() > tol.atol + tol.rtol * e.abs())[both].sum())


def usable(got, fp64, native) -> bool:
    """Whether `native` can be the yardstick of `got`: both floating, of fp64's shape."""
    return native is not None and got.dtype.is_floating_point and native.is_floating_point() and \
        list(native.shape) == list(fp64.shape)
