"""Statistics of timed samples: every sample is kept; the median and the 20th/80th percentiles are
reported (the quantiles Triton's own perf reports use). TFLOP/s = FLOPs / time, GB/s = bytes / time."""
from __future__ import annotations

import math
from dataclasses import dataclass

QUANTILES = (0.2, 0.5, 0.8)


def quantile(samples: list[float], q: float) -> float:
    """Linear interpolation between order statistics: numpy's default, and triton.testing's `_quantile`."""
    if not samples:
        raise ValueError("no samples")
    if not 0 <= q <= 1:
        raise ValueError(f"quantile {q} outside [0, 1]")
    a = sorted(samples)
    point = q * (len(a) - 1)
    lo, hi = math.floor(point), math.ceil(point)
    return a[lo] + (a[hi] - a[lo]) * (point - lo)


@dataclass
class Timing:
    """Every sample of one timed function, in milliseconds, and the statistics we report."""
    samples_ms: list[float]

    def __post_init__(self):
        if not self.samples_ms:
            raise ValueError("a timing needs at least one sample")

    @property
    def n(self) -> int:
        return len(self.samples_ms)

    @property
    def median_ms(self) -> float:
        return quantile(self.samples_ms, 0.5)

    @property
    def q20_ms(self) -> float:
        return quantile(self.samples_ms, QUANTILES[0])

    @property
    def q80_ms(self) -> float:
        return quantile(self.samples_ms, QUANTILES[2])

    @property
    def spread_ms(self) -> float:
        return self.q80_ms - self.q20_ms

    @property
    def min_ms(self) -> float:
        return min(self.samples_ms)

    def as_dict(self) -> dict:
        return {"n": self.n, "median_ms": self.median_ms, "q20_ms": self.q20_ms, "q80_ms": self.q80_ms,
                "min_ms": self.min_ms}


def tflops(flops: int, ms: float) -> float:
    return flops / (ms * 1e-3) / 1e12


def gbs(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9
