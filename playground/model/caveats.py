"""The performance model's notes: what it leaves out or assumes for one kernel, each said once beside its time."""
from __future__ import annotations

from .. import units
from ..figures import roofline
from . import constants as K

# Where the model's error against measured times is kept: the validation set's README, written from the set by
# benchmarks/model_accuracy.py (a copy of its figures here would go stale as the set grows).
ACCURACY_NOTE = ("checked against published measurements: its error per kernel and GPU, and how it orders the "
                 "configs an autotuner timed, are in benchmarks/data/README.md (python benchmarks/model_accuracy.py)")


def notes(compiled, prog, moved, f, bounds: set, again=None) -> list[str]:
    """What the model leaves out or assumes for this kernel, and where its figures come from: one line each.
    `f`: the explanation's Figures; `bounds`: the resources that bound it at any end of the band."""
    out = [roofline.work_note(compiled.spec)] if compiled.spec.work_basis else []
    if again:
        out.append(reread_note(again))
    if not moved.from_schedule and not compiled.spec.work_basis:     # work_note says it for the other case
        out.append("DRAM and L2 traffic: every byte of the spec's count once (it gives no operand blocks)"
                     + (", and the re-reads L1 does not serve" if again and again.beyond_l1 else ""))
    if prog.mma_family is None and "tt.dot" in compiled.first_ir:
        out.append("tl.dot without matrix instructions: modelled on the FMA units")
    if not prog.load_bytes_per_round:
        out.append("no tile loads found in TTGIR: load latency counted once per CTA")
    if f.local_bytes and compiled.target.name not in K.L1_BYTES_PER_SM:
        out.append(f"spills: no published L1 size for {compiled.target.name}, so their local-memory traffic "
                     "is not modelled")
    elif f.local_bytes and not compiled.target.is_nvidia:
        out.append("spills: each scratch access counted once, not once per loop trip (the amdgcn's loops are "
                     "not read): a lower bound")
    if not f.rounds_in_flight or "latency" in bounds:      # where the load latency sets a time, its source
        target = compiled.target.name
        hit, dram = K.L2_HIT_LATENCY_CYCLES.get(target), K.dram_latency(target).typical
        measured = ("measured by pointer chase" if target in K.DRAM_LATENCY_CYCLES else
                    "no measurement found for this part: an assumed figure")
        if hit is None:
            out.append(f"load latency: no L2 hit latency found for {target}, so every round's loads wait the DRAM "
                         f"latency ({dram:g} clocks, {measured}): an upper bound")
        elif f.reuse <= 1:
            out.append(f"load latency: every byte is read once, so every load is taken as an L2 miss ({dram:g} "
                         f"clocks, {measured})")
        else:
            out.append(f"load latency: {hit.typical:g} clocks on an L2 hit, {dram:g} on a miss (both measured by "
                         f"pointer chase: model/constants.py), mixed by how often each byte an L2 fetches is read again")
    if compiled.target.name in K.SHARED_RATE_NOTES and f.shared_traffic_threads + f.shared_traffic_engines:
        out.append(K.SHARED_RATE_NOTES[compiled.target.name])
    if f.memory_side_traffic and not f.infinity_cache_gbs:
        out.append(f"Infinity Cache: no published bandwidth for {compiled.target.name}, so the "
                     f"{f.memory_side_traffic:.4g} B that pass it (the L2s' misses and the writes) are not timed")
    if compiled.target.name not in K.L2_BYTES_PER_CLOCK:
        out.append(f"no published L2 bandwidth for {compiled.target.name}: L2 is not modelled")
    elif compiled.target.name in K.L2_RATE_NOTES:
        out.append(K.L2_RATE_NOTES[compiled.target.name])
    ttir = compiled.first_ir
    calls_special = any(f"math.{op} " in ttir for op in ("exp", "exp2", "log", "log2", "rsqrt", "sqrt", "sin",
                                                          "cos", "erf"))
    if calls_special and not compiled.spec.special:
        out.append("special functions (exp, rsqrt, ...): the kernel calls them but its spec gives no count, "
                     "so they are not modelled")
    elif not compiled.target.is_nvidia:
        out.append("special functions: no published rate for AMD, so they are not modelled")
    if compiled.target.is_nvidia:
        out.append("instruction issue: SASS counts (the main loop's body once per round), at 4 per clock per SM "
                     "with no stalls; not modelled: bank conflicts, stalls, uneven work across CTAs")
    else:
        out.append("not modelled: instruction issue (no published rate used for AMD here), bank conflicts, "
                     "uneven work across CTAs")
    out.append(ACCURACY_NOTE)
    return out


def reread_note(again) -> str:
    """Where a kernel's repeated reads are served from, and why."""
    low, high = again.distances
    span = units.binary(low) if low == high else f"{units.binary(low)} to {units.binary(high)}"
    chip = units.binary(again.resident * high)
    l1 = ("no L1 size is known" if again.l1_room is None else
          f"{units.binary(again.resident_per_sm * high)} at most on one SM, beside {units.binary(again.l1_room)} "
          f"of L1 left by shared memory")
    caches = f"L2 {units.binary(again.l2_bytes)}" + (f", Infinity Cache {units.binary(again.memory_side_bytes)}"
                                                     if again.memory_side_bytes else "")
    return (f"re-reads: each CTA reads {units.binary(again.bytes // again.ctas)} again; between a read and its "
            f"repeat it touches {span}, and so does each CTA beside it: the {again.resident} resident on the chip "
            f"touch up to {chip} ({l1}; {caches}). Served by {again.where()} (least recently used, an assumption: "
            f"data reused after more than a cache holds has left it)")


def clock_note(device, precision: str) -> str:
    measured = device.matrix_clock_ghz
    own = measured.get(precision, min(measured.values()))
    which = (f"runs dense {precision} matrix work at {own * 1000:.0f} MHz" if precision in measured else
             f"was not measured at {precision}: its lowest measured matrix clock, {own * 1000:.0f} MHz, is taken")
    return (f"clock: {device.name} {which}, {own / device.clock_ghz:.0%} of the {device.clock_ghz * 1000:.0f} MHz "
            f"its peaks assume (the vendor's measurement: core/devices.py); the band spans its measured "
            f"{min(measured.values()) * 1000:.0f} to {max(measured.values()) * 1000:.0f} MHz; load latencies stay "
            f"at the usual clock")
