"""How close is close enough: an output's error against an fp64 reference, as a multiple of the error PyTorch itself
makes in the same dtype.

For each case the reference runs twice, on the very inputs the kernel saw: in fp64 (the answer) and in the problem's
own dtype, as PyTorch runs it (the yardstick). An output passes when

    max |got - fp64|  <=  K * max |pytorch - fp64|  +  FLOOR_ULPS * eps(dtype) * max |fp64|

over the elements finite in both. This is the rule of FlashAttention's tests (tests/test_flash_attn.py: "the error
of our output is at most twice the error of a PyTorch implementation in the same dtype", both against an fp32/fp64
reference), with two changes measured on this project's own corpus (tests/data/margins, benchmarks/margins.py):
- K: PyTorch's CPU kernels round well (pairwise and vectorised sums, correctly rounded exp), so a correct kernel
  with other numerics (a sequential loop over blocks, an online softmax, exp2 scaling, split-K atomics) lands up to
  a few times PyTorch's error; K leaves room for those and stays far below the subtle bugs' 30x and more.
- the floor: where PyTorch computes an output exactly (a copy, a max, a sum of few terms) its error is 0, and any
  rounding of a correct kernel would fail; FLOOR_ULPS units in the last place at the output's largest magnitude
  (eps(dtype) * max|fp64| is one to two ulps there) let those through.
The multiple (error / PyTorch's error) is reported for every output, so a user sees how close a pass was.
"""
from __future__ import annotations

from dataclasses import dataclass

K = 4.0
FLOOR_ULPS = 2.0


@dataclass(frozen=True)
class Margin:
    error: float          # max |got - fp64| over elements finite in both
    pytorch: float        # max |PyTorch in the dtype - fp64| over the same elements
    floor: float          # FLOOR_ULPS * eps(dtype) * max |fp64|
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
        return (f"error {self.error:.3g}, {self.multiple:.3g}x PyTorch's own ({self.pytorch:.3g} in the same dtype); "
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
    eps = torch.finfo(got.dtype).eps if got.dtype.is_floating_point else 0.0
    return Margin(error=float((g[finite] - e_f).abs().max()), pytorch=float((t[finite] - e_f).abs().max()),
                  floor=FLOOR_ULPS * eps * float(e_f.abs().max()), k=k)
