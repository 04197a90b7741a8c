"""One output against its reference, element by element, with a tolerance (tolerances.py): how far
off it was, where, and why it failed, in words; NaN, Inf and never-written elements told apart."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import dtypes, tolerances

FIRST = 5   # mismatching elements listed per output


@dataclass
class Mismatch:
    index: tuple
    got: float
    expected: float


@dataclass
class OutputCheck:
    """One output tensor compared with the reference."""
    name: str
    shape: tuple
    dtype: str
    atol: float
    rtol: float
    max_abs: float | None           # over elements finite in both; None when there are none
    max_rel: float | None           # over elements with |expected| > atol
    mismatches: int
    total: int
    first: list[Mismatch]
    nan_got: int
    inf_got: int
    nan_expected: int
    inf_expected: int
    expected_max: float             # largest finite |expected|
    worst: float | None             # largest |got - expected| / (atol + rtol*|expected|): 1 is the edge
    problems: list[str] = field(default_factory=list)   # why it fails; empty when it passes
    warnings: list[str] = field(default_factory=list)
    margin: dict | None = None      # check/margin.py: the error as a multiple of PyTorch's own, where measured

    @property
    def ok(self) -> bool:
        return not self.problems


def compare(name: str, got, expected, dtype: str, tol: tolerances.Tolerance, unwritten=None) -> OutputCheck:
    """Compare one output with its fp64 reference: errors, mismatches, NaN/Inf, and plain-words problems.

    `unwritten` (optional, bool like `got`) marks the elements the kernel never stored to.
    """
    import torch
    g, e = got.double(), _as_stored(expected.double().to(got.device), got.dtype)
    nan_g, nan_e, inf_g, inf_e = torch.isnan(g), torch.isnan(e), torch.isinf(g), torch.isinf(e)
    both_finite = torch.isfinite(g) & torch.isfinite(e)
    diff = (g - e).abs()
    close = diff <= tol.atol + tol.rtol * e.abs()
    close |= (nan_g & nan_e) | (inf_g & (g == e))        # the same NaN or the same infinity agrees
    bad = ~close
    mismatches = int(bad.sum())
    abs_e = torch.where(torch.isfinite(e), e.abs(), torch.zeros_like(e))
    max_abs = float(diff[both_finite].max()) if bool(both_finite.any()) else None
    relevant = both_finite & (e.abs() > tol.atol)
    max_rel = float((diff[relevant] / e.abs()[relevant]).max()) if bool(relevant.any()) else None
    allowed = tol.atol + tol.rtol * e.abs()
    ratio = diff[both_finite] / allowed[both_finite]
    worst = float(ratio.nan_to_num(posinf=math.inf).max()) if ratio.numel() else None
    first = [Mismatch(tuple(int(i) for i in idx), float(g[tuple(idx)]), float(e[tuple(idx)]))
             for idx in bad.nonzero()[:FIRST].tolist()]
    result = OutputCheck(name=name, shape=tuple(got.shape), dtype=dtype, atol=tol.atol, rtol=tol.rtol,
                         max_abs=max_abs, max_rel=max_rel, mismatches=mismatches, total=got.numel(),
                         first=first, nan_got=int(nan_g.sum()), inf_got=int(inf_g.sum()),
                         nan_expected=int(nan_e.sum()), inf_expected=int(inf_e.sum()),
                         expected_max=float(abs_e.max()) if e.numel() else 0.0, worst=worst)
    _explain(result, g, e, unwritten)
    return result


def _as_stored(e, dtype):
    """The reference where the output's type cannot hold it: a value that rounds beyond the largest finite one
    is infinite once stored (IEEE 754 overflow, round to nearest: from the largest finite value plus half an ulp,
    overflow_threshold), so a kernel that stores inf there is right, and one that stores the largest finite value
    below that is right too. Everything else keeps its fp64 value."""
    import torch

    if not dtype.is_floating_point or dtype == torch.float64:
        return e
    return torch.where(e.abs() >= overflow_threshold(dtype), torch.sign(e) * math.inf, e)


def overflow_threshold(dtype) -> float:
    """The smallest magnitude that rounds to infinity when stored as `dtype`: its largest finite value plus half an
    ulp there (IEEE 754 round to nearest, ties to even: the largest finite value has an odd significand, so the tie
    itself goes up). fp16: 65504 + 16 = 65520; bf16: (2 - 2^-7) * 2^127 + 2^119."""
    import torch
    info = torch.finfo(dtype)
    ulp_at_max = 2.0 ** math.floor(math.log2(info.max)) * info.eps
    return info.max + ulp_at_max / 2


def _explain(r: OutputCheck, g, e, unwritten=None) -> None:
    """Fill in the problems and warnings, in words."""
    import torch
    if r.mismatches:
        r.problems.append(f"{r.mismatches} of {r.total} elements differ by more than atol + rtol*|expected| "
                          f"(atol={r.atol:.3g}, rtol={r.rtol:.3g})")
    never = int(unwritten.sum()) if unwritten is not None else 0
    if never:
        r.problems.append(f"{never} element(s) never written (they still hold the NaN the output was filled with)")
    computed_nan = torch.isnan(g) & ~torch.isnan(e)
    if unwritten is not None:
        computed_nan &= ~unwritten
    if int(computed_nan.sum()):
        r.problems.append(f"{int(computed_nan.sum())} NaN computed where the reference has none")
    stray_inf = int((torch.isinf(g) & ~torch.isinf(e)).sum())
    if stray_inf:
        r.problems.append(f"{stray_inf} Inf in the output where the reference has none")
    if r.total and bool((g == 0).all()) and bool((e.to(dtypes.torch_dtype(r.dtype)) != 0).any()):
        r.problems.append(f"wrote only zeros; the reference's largest |value| is {r.expected_max:.4g}")
    if r.nan_expected or r.inf_expected:
        r.warnings.append(f"the reference itself has {r.nan_expected} NaN and {r.inf_expected} Inf")
    if r.total and r.expected_max <= r.atol:
        r.warnings.append(f"the reference's largest |value| ({r.expected_max:.3g}) is within atol ({r.atol:.3g}) "
                          f"of zero: this case cannot tell a correct kernel from one that writes zeros")


def at(name: str, index: tuple) -> str:
    return f"{name}[{', '.join(map(str, index))}]"
