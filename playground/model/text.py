"""The performance model's explanation in words (model/explain.py computes it): every line says modelled."""
from __future__ import annotations

from ..core import targets
from ..text import microseconds
from . import constants as K
from .explain import NAMES, Explanation


def lines(e: Explanation) -> list[str]:
    """The explanation in words; every line says modelled."""
    return [f"modelled  {label:<9} {text}" for label, text in rows(e)]


def rows(e: Explanation) -> list[tuple[str, str]]:
    """(label, text) for each line of the explanation."""
    f = e.figures
    out = [
        ("time", f"{band_phrase(e)}, {e.tflops:.4g} TFLOP/s at the typical time"),
        ("bound", f"the kernel's body by {NAMES[e.bound]}{_spill_share(e)}; time goes to {shares_phrase(e)}"),
        ("busy", busy_phrase(e)),
        ("traffic", f"{f.flops:.4g} FLOP on {f.roof}; DRAM {f.dram_traffic:.4g} B, "
                 + (f"Infinity Cache {f.memory_side_traffic:.4g} B, " if f.memory_side_traffic else "")
                 + f"L2 {f.l2_traffic:.4g} B (each byte an L2 fetches is read {f.reuse:.3g}x from it), shared "
                 f"{f.shared_traffic_threads + f.shared_traffic_engines:.4g} B"
                 + (f" ({f.shared_traffic_engines:.4g} B by the copy and matrix engines)"
                    if f.shared_traffic_engines else "")),
        ("loads", f"{f.rounds_per_cta:.4g} round{'' if f.rounds_per_cta == 1 else 's'} of "
                  f"{f.bytes_per_round} B per CTA, "
                  f"{f.rounds_in_flight} in flight"
                  + ("" if f.rounds_in_flight else " (one buffer: each round waits out its loads, then works)")
                  + f"; {f.ctas} CTAs, {f.ctas_per_sm} per SM"),
    ]
    if f.local_bytes and targets.resolve(e.target).name in K.L1_BYTES_PER_SM:   # e.target: a label
        l1 = f.local_l1 / f.local_bytes
        l2 = 1 - f.local_dram / f.local_l2 if f.local_l2 else 1.0
        out.append(("spills", f"{f.local_bytes:.4g} B to and from local memory ({f.local_frame} B frame per "
                              f"thread): {100 * l1:.3g}% served by L1, then {100 * l2:.3g}% of the rest by L2, "
                              f"{f.local_dram:.4g} B by DRAM"))
    return out + [("note", n) for n in e.notes]


def shares_phrase(e: Explanation) -> str:
    """"tensor-core issue 93%, pipeline fill 1%, launch 6%": where the typical time goes."""
    return ", ".join(f"{NAMES[k]} {100 * v:.0f}%" for k, v in sorted(e.shares.items(), key=lambda kv: -kv[1]))


def busy_phrase(e: Explanation) -> str:
    """Each resource's time against the body's: 100% is the bound one."""
    return ", ".join(f"{NAMES[k]} {100 * v:.0f}%" for k, v in sorted(e.busy.items(), key=lambda kv: -kv[1]))


def band_phrase(e: Explanation) -> str:
    return f"{microseconds(e.seconds)} (band {microseconds(e.low)} to {microseconds(e.high)})"


def _spill_share(e: Explanation) -> str:
    """", 80% of its bytes are spills" when the bound resource is DRAM or L2 and spills are a share of its traffic."""
    f = e.figures
    spilled, own = {"dram": (f.local_dram, f.dram_traffic),
                    "l2": (f.local_l2, f.l2_traffic)}.get(e.bound, (0, 0))
    return f", {100 * spilled / (spilled + own):.3g}% of its bytes are spills" if spilled else ""
