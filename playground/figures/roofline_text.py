"""The roofline model in words (roofline.py computes it), and beside it the performance model's explanation
when `bench` asked for one: every line says modelled."""
from __future__ import annotations

from ..core import devices, targets
from ..model import text as model_text
from ..text import microseconds
from .occupancy import unit_names
from .occupancy_text import waves_phrase
from .roofline import MEASURE_HINT, SM_BYTES_PER_CLOCK, Model


def lines(m: Model, reason: str = "") -> list[str]:
    """The model in words; every line says modelled."""
    e = m.estimate
    shape = ", ".join(f"{k}={v}" for k, v in m.shape.items())
    rows = [("kernel", ", ".join(filter(None, [f"{m.kernel} on {m.target} ({m.device})", shape, m.dtype])))]
    if reason:
        rows.append(("why", reason))
    rows += [
        ("work", f"{e.flops:.4g} FLOP, {e.bytes:.4g} bytes from DRAM at best "
                 f"-> intensity {e.intensity:.3g} FLOP/byte"),
        ("roofs", f"{m.peak_tflops:g} TFLOP/s ({m.roof}), {m.bandwidth_gbs:g} GB/s; "
                  f"ridge at {e.ridge:.3g} FLOP/byte -> {e.bound}-bound"
                  + (" by the roofline" if m.explained else "")),
        ("roofline", f"{microseconds(e.roofline_seconds)} (compute {microseconds(e.compute_seconds)}, "
                     f"memory {microseconds(e.memory_seconds)})"),
    ]
    if e.waves:
        sm = unit_names(devices.get(targets.resolve(m.target)))[0]     # AMD: CU (WGP on RDNA)
        busy = (f"bandwidth: each {sm} takes in at most {SM_BYTES_PER_CLOCK} bytes a clock, so a partial wave "
                f"on {m.dram_sms:.3g} {sm}s or more draws all of it" if e.bound == "memory"
                else "compute: a partial wave's empty slots idle")
        rows.append(("waves", f"{waves_phrase(e.ctas, m.active_blocks_per_sm, m.num_sms, sm)}; the model keeps "
                              f"{100 * e.wave_fill:.1f}% of peak {busy}"))
    rows.append(("ceiling" if m.explained else "time",
                 f"{microseconds(e.seconds)}, {e.tflops:.4g} TFLOP/s, {e.gbs:.4g} GB/s, "
                 f"{e.percent_of_peak:.1f}% of peak {'bandwidth' if e.bound == 'memory' else 'compute'}"
                 + (": the roofline with waves, beside the model's time below" if m.explained else "")))
    # the model's time counts launch overhead itself
    rows += [("note", n) for n in m.notes
             if not (m.explained and (n.startswith("launch overhead") or n in m.explained.notes))]
    if m.explained:
        rows += model_text.rows(m.explained)
    rows.append(("how", MEASURE_HINT))
    return [f"modelled  {label:<9} {text}" for label, text in rows]
