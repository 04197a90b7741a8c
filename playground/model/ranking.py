"""Ranking configs by modelled time, with ties where the model cannot tell two apart: `sweep` ranks a
kernel's configs, `fuse --max-autotune` a GEMM's candidates, and both rank them this one way."""
from __future__ import annotations

import math
from typing import Callable, Iterable

# Differences smaller than this share of the time are below what the model resolves: its inputs are
# static instruction counts and an even split of work across CTAs. A modelling choice, not a measurement.
RESOLUTION = 0.02


def same_time(a: dict, b: dict) -> bool:
    """Whether the model cannot order two sweep rows (modelled_seconds, modelled_low, modelled_high): their
    typical times lie within RESOLUTION of each other, or their order flips at one end of the band (the
    slower one at typical constants is the faster one at the optimistic or pessimistic end)."""
    fast, slow = sorted((a, b), key=lambda r: r["modelled_seconds"])
    if slow["modelled_seconds"] - fast["modelled_seconds"] <= RESOLUTION * fast["modelled_seconds"]:
        return True
    ends = [k for k in ("modelled_low", "modelled_high") if fast.get(k) is not None and slow.get(k) is not None]
    return any(slow[k] < fast[k] for k in ends)


def ranked(items: Iterable, times: Callable[[object], dict | None]) -> list[tuple[object, int, bool]]:
    """(item, rank, tie) for each item, fastest first: rank 1 is the fastest, and an item the model cannot
    order against the first of the group above it (same_time) shares that rank, with tie True. `times`
    gives an item's times as same_time reads them (any one unit), or None where it has none: those come
    last, in their order, each with a rank of its own."""
    def typical(item) -> float:
        t = times(item)
        return math.inf if t is None else t["modelled_seconds"]
    out, leader, place = [], None, 0
    for i, item in enumerate(sorted(items, key=typical), 1):
        t = times(item)
        tie = leader is not None and t is not None and same_time(leader, t)
        if not tie:
            leader, place = t, i
        out.append((item, place, tie))
    return out
