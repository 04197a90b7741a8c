"""The performance model: a kernel's time on a target, explained from its compiled binary and its launch.

Nothing here is measured; every figure it prints says "modelled". The kernel's work is split over the
resources that serve it, each with a rate from the device table or `constants.py`:

  tensor / FMA issue   FLOPs / (SMs x the per-SM rate of the instruction family the code issues)
  special functions    exp, rsqrt, ... results (the spec's count) / (SMs x 16 per clock)
  instruction issue    SASS warp instructions (the main loop's body per round, the rest once, per warp) /
                       (SMs x 4 per clock): NVIDIA only
  shared memory        the operand tiles written and read per loop trip (program.py) / (SMs x 128 B/clk); the
                       copy and matrix engines' share is a span (constants.SHARED_ENGINE_SHARE)
  L2                   what every CTA reads (traffic.py), its re-reads L1 does not serve included / the L2's
                       bytes per clock
  local memory         register spills: the STL and LDL bytes the SASS moves per thread (the main loop's
                       per trip), served by L1 as far as the spill frames of an SM's threads fit beside its
                       shared memory, then by L2 as far as the whole chip's frames fit, then by DRAM
                       (constants.L1_BYTES_PER_SM); L1 hits share the SM's one L1/shared-memory path (NVIDIA),
                       the rest adds to the L2 and DRAM terms
  Infinity Cache       AMD's memory-side cache: what the L2s miss (one L2 per XCD on CDNA3/4, traffic.py) and
                       what is written / its peak bandwidth (CDNA3 white paper), where one is published
  DRAM                 what the tile schedule fetches and writes (traffic.py), and the re-reads of a program's
                       own data no cache still holds (spec.rereads) / sustained bandwidth
  latency              Little's law: a CTA keeps R rounds of loads in flight (R from the shared-memory ring
                       the pipeliner built), each waiting a load's latency and then its bytes at what one SM
                       takes in (128 B/clk); an SM overlaps the CTAs it holds at once: (CTA groups per SM) x
                       rounds x round latency / R. A ring of one buffer (R = 0) waits in series with its own
                       work: groups x (rounds x round latency + one CTA's share of the SM's work). A load's
                       latency: the DRAM latency, or where an L2 hit latency was measured (A100, L40, H100:
                       pointer chases, constants.py), a mix of the two by how often each byte an L2 fetches is
                       read from it again

Every per-clock rate runs at the peaks' clock times a share of it (constants.CLOCK_SHARE), except matrix code
that fills the chip on a part whose vendor measured the clock it holds under dense matrix multiply
(Device.matrix_clock_ghz: an MI300X drops to about half its peak clock there): that code runs at the measured
clock (clock_share). Load latencies stay at the usual clock either way.

The kernel body takes as long as its busiest resource (the others overlap it), with one exception:
with a single CTA on an SM and no warp specialisation, a kernel's matrix products and its softmax (its
special functions, or the issue of its other instructions where that takes longer) come from the same
warps in turn, and add (FlashAttention-3, Shah et
al. 2024, section 3: overlapping them takes two warp groups in ping-pong, or warp specialisation).
Then:
- wave quantisation, by SMs: an SM's throughput is taken to be its own whether one CTA or several
  share it (an assumption: occupancy enters through latency, below), so a partial last wave costs as
  many CTA rounds as its busiest SM holds; DRAM and L2 serve the whole chip at full rate however few
  SMs hold CTAs, as long as the bytes in flight cover the latency (the latency term, Little's law, says
  when they do not). A persistent kernel's
  tail is its uneven last round: the slowest program takes ceil(tiles / programs) tiles;
- pipeline fill and drain: one load latency before the first tile arrives, one store latency after
  the last;
- launch overhead, for launches timed back to back.

Each uncertain constant is a span; the model runs at the optimistic, typical and pessimistic end of
every span together, and the two ends are its uncertainty band. Work is assumed even across CTAs.

Checked against published measurements (benchmarks/model_accuracy.py), on GPUs the source names exactly:
median error 2-16% for memory-bound Triton kernels, under 10% for cuBLAS GEMMs, 22% for a plain 2-D-grid Triton
GEMM (modelled too fast on every row: the model stands the tutorial's grouped kernel in for it), 6% and 3% on
the MI300X's and MI325X's library GEMMs (36% too fast on the MI300X before its matrix clock), 8-19% on
PyTorch's own layer norm modelled as its kernel is built (kernels/layernorm_welford.py; 29-41% as the fastest
Triton kernel); near 30% where a source says only "A100" or "H100"; 26-63% on attention (no GPU named
exactly there); faster than measured on 5 rows in 6, worst on attention. Configs: in an autotuner's log on
an L40S, nine GEMM configs at 2048^3 run up to 42% apart. Of the 31 pairs the GPU separates, the model orders
21 as the GPU did (by tile size: smaller tiles read more from L2; num_stages=2's single buffer waits out each
load), ties 8 (warps, stages and BLOCK_K within one tile size, and 64x128 against 128x64: it does not see
what separates them) and orders 2 the other way (the 128x128 tile with num_stages=2 against the two 128x64
configs, which the GPU runs 7% and 11% slower and the model takes for the 64x128 tiles' equals); the two
configs it ranks first ran 7% apart. Every explanation says so in a note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .. import units
from ..core import devices, dtypes, targets
from ..errors import UserError
from ..figures import grid, roofline
from . import constants as K
from . import program as program_
from . import traffic as traffic_

NAMES = {"tensor": "tensor-core issue", "fma": "FMA issue", "special": "special functions",
         "issue": "instruction issue",
         "tensor + special": "tensor cores, then special functions",
         "shared": "shared memory", "local": "L1 (spills, with shared memory)", "l2": "L2",
         "infinity_cache": "Infinity Cache",
         "dram": "DRAM", "latency": "load latency", "fill": "pipeline fill", "launch": "launch"}


@dataclass
class Scenario:
    seconds: float
    body: float
    fill: float
    launch: float
    terms: dict                 # resource -> seconds, wave quantisation included
    bound: str                  # the resource that sets the body's time


@dataclass
class Explanation:
    kernel: str
    target: str
    device: str
    shape: dict
    dtype: str
    config: str
    seconds: float              # the typical scenario
    low: float                  # optimistic end of the band
    high: float                 # pessimistic end
    bound: str
    shares: dict                # part -> share of the typical time: the bound resource, fill, launch
    busy: dict                  # resource -> its time / the body's (how close each is to binding)
    scenarios: dict
    figures: dict               # what the terms were computed from
    notes: list = field(default_factory=list)
    kind: str = "modelled"

    @property
    def tflops(self) -> float:
        return self.figures["flops"] / self.seconds / 1e12

    def as_dict(self) -> dict:
        return {"kind": self.kind, "kernel": self.kernel, "target": self.target, "device": self.device,
                "shape": self.shape, "dtype": self.dtype, "config": self.config, "seconds": self.seconds,
                "band": [self.low, self.high], "bound": self.bound, "shares": self.shares, "busy": self.busy,
                "scenarios": {k: {"seconds": s.seconds, "bound": s.bound, "terms": s.terms}
                              for k, s in self.scenarios.items()},
                "figures": self.figures, "notes": self.notes}


def explain(compiled, device=None, work: tuple | None = None) -> Explanation:
    """Model one compiled kernel at its compiled shape on its target's representative GPU (or `device`).

    `work` = (FLOPs, bytes, CTAs) replaces what the spec would say: a launch captured on the virtual GPU
    knows its own (launch_metadata, its tensors, its grid); its bytes then move through DRAM and L2 once, with
    no re-reads (a capture knows its bytes, not its passes).
    """
    device = device or devices.get(compiled.target)
    spec, cfg = compiled.spec, compiled.config
    if work is None and spec.work_basis:
        # counts from the launch's arguments (core/work.py), not a spec's schedule: modelled as `run` does
        work = (spec.flops(cfg.shape), spec.bytes(cfg.shape, dtypes.size(cfg.dtype)), grid.ctas(compiled))
    if work is None and (spec.flops is None or spec.bytes is None):
        raise UserError(f"{spec.name}: nothing to model: no FLOP or byte count is known for it (only a KernelSpec gives them)")
    elem = dtypes.size(cfg.dtype)
    flops = work[0] if work else spec.flops(cfg.shape)
    prog = program_.read(compiled)
    blocks, why = roofline.active_blocks(compiled)
    if not blocks:
        raise UserError(f"{spec.name}: {why or 'no CTA fits on an SM'}; a kernel that cannot launch has no time")
    ctas = max(1, work[2]) if work else grid.ctas(compiled)
    slots = blocks * device.num_sms
    resident_per_sm = min(blocks, math.ceil(ctas / device.num_sms))     # CTAs an SM holds at once
    moved = (traffic_.Traffic(dram_bytes=work[1], l2_load_bytes=work[1], output_bytes=0, from_schedule=False,
                              memory_side_bytes=work[1] if device.infinity_cache_bytes else 0)
             if work else traffic_.traffic(compiled, slots, device.l2_bytes, device.l2_partitions,
                                           device.infinity_cache_bytes))
    again = None if work else traffic_.rereads(          # captured launches give their bytes, not their passes
        compiled, ctas, resident_per_sm, device.num_sms, l1_room(compiled, device, resident_per_sm), device.l2_bytes,
        device.infinity_cache_bytes or None)
    loaded = moved.l2_load_bytes + (again.bytes if again else 0)     # every repeat is a load, whatever serves it
    if again:       # a repeat L1 does not hold is an L2 load, and a DRAM read too where no cache holds it
        l2_loads, dram = moved.l2_load_bytes + again.beyond_l1, moved.dram_bytes + again.served.get("DRAM", 0)
        beyond_l2 = again.served.get("Infinity Cache", 0) + again.served.get("DRAM", 0)
        side = moved.memory_side_bytes + beyond_l2 if moved.memory_side_bytes else 0
        missed = (side or dram) - moved.output_bytes         # what the L2s fetch
        moved = replace(moved, l2_load_bytes=l2_loads, dram_bytes=dram, memory_side_bytes=side,
                        reuse=l2_loads / missed if missed > 0 else 1.0)
    # a CTA's trips of its main loop: the bytes it loads over those one trip loads (with `work`, whose bytes
    # count loads and stores together, over what one trip loads and stores)
    per_round = prog.load_bytes_per_round + (prog.store_bytes_per_round if work else 0)
    rounds = max(1.0, loaded / ctas / per_round) if prog.load_bytes_per_round else 1.0
    shared = (0, 0)
    if prog.dot_tile and prog.load_bytes_per_round:
        bm, bn = prog.dot_tile
        block_k = max(1, round(prog.load_bytes_per_round / ((bm + bn) * elem)))
        threads, engines = prog.shared_bytes_per_round(elem, block_k)
        shared = (threads * rounds * ctas, engines * rounds * ctas)
    local = _local_traffic(compiled, device, prog, rounds, ctas, blocks, resident_per_sm)
    precision = roofline.matrix_precision(compiled) if prog.mma_family else None
    peak, roof = roofline.peak_for(device, precision)
    share = clock_share(device, precision, fills_chip=ctas >= device.num_sms)
    figures = {"flops": flops, "dram_traffic": moved.dram_bytes, "memory_side_traffic": moved.memory_side_bytes,
               "infinity_cache_gbs": device.infinity_cache_gbs, "l2_traffic": moved.l2_load_bytes + moved.output_bytes,
               "shared_traffic_threads": shared[0], "shared_traffic_engines": shared[1],
               "clock_ghz": model_clock(device, compiled.target.name),
               "clock_share": [share.optimistic, share.typical, share.pessimistic], "rounds_per_cta": rounds,
               "rounds_in_flight": prog.rounds_in_flight,
               "bytes_per_round": prog.load_bytes_per_round, "ctas": ctas, "ctas_per_sm": blocks,
               "num_sms": device.num_sms, "mma": prog.mma_family, "roof": roof, "peak_tflops": peak,
               "reuse": moved.reuse, "traffic_from_schedule": moved.from_schedule,
               "reread_bytes": again.bytes if again else 0, "reread_from": again.where() if again else "",
               "special": spec.special(cfg.shape) if spec.special and not work else 0,
               "work_items": spec.work_items(cfg.shape, cfg.meta) if spec.work_items and not work else 0,
               "serial_special": blocks == 1 and "ttg.warp_specialize" not in compiled.stage("ttgir"),
               # warp instructions issued: each warp runs the main loop's body once per round, the rest once
               "issued": ctas * cfg.num_warps * (prog.loop_instructions * rounds + prog.other_instructions),
               "issued_outside_mma": ctas * cfg.num_warps * (prog.loop_instructions - prog.loop_mma) * rounds,
               **local}
    scenarios = {s: _scenario(s, device, compiled.target.name, prog, figures) for s in K.SCENARIOS}
    typical = scenarios["typical"]
    shares = {typical.bound: typical.body / typical.seconds, "fill": typical.fill / typical.seconds,
              "launch": typical.launch / typical.seconds}
    busy = {r: t / typical.body for r, t in typical.terms.items()}
    return Explanation(kernel=spec.name, target=compiled.target.label, device=device.name, shape=dict(cfg.shape),
                       dtype=cfg.dtype, config=cfg.describe(), seconds=typical.seconds,
                       low=scenarios["optimistic"].seconds, high=scenarios["pessimistic"].seconds,
                       bound=typical.bound, shares=shares, busy=busy, scenarios=scenarios, figures=figures,
                       notes=_notes(compiled, prog, moved, figures, {sc.bound for sc in scenarios.values()}, again)
                       + ([clock_note(device, precision)] if share is not K.CLOCK_SHARE else []))


def _local_traffic(compiled, device, prog, rounds: float, ctas: int, blocks: int, resident: int) -> dict:
    """Where the kernel's local-memory (spill) bytes are served: {"local_bytes", "local_frame",
    "local_l1", "local_l2", "local_dram"} (bytes; local_l2 is what misses L1, local_dram what also misses
    L2). `resident`: the CTAs an SM holds at once.

    Local memory is cached in L1 and L2 like global memory, and consecutive threads' words are adjacent, so
    a warp's access is coalesced (Nsight documentation, "Memory Statistics - Local"). Which share a cache
    serves: its room over the spill frames the threads it serves keep at once (frames that fit all hit), a
    modelling assumption (every spilled word as likely to be reused as any other), not a measurement. Stores
    are taken to be cached as loads are (write-back): the sources say local memory is cached, not how
    stores are."""
    r, threads = compiled.resources, compiled.config.num_warps * device.warp_size
    total = (prog.loop_local_bytes * rounds + prog.other_local_bytes) * threads * ctas
    target = compiled.target.name
    if not total or target not in K.L1_BYTES_PER_SM:    # none, or no cache size to place them with: a note says so
        return {"local_bytes": total, "local_frame": 0, "local_l1": 0, "local_l2": 0, "local_dram": 0}
    # the frame a thread keeps: ptxas's stack frame (cuobjdump STACK) or the amdgcn's ScratchSize; what it
    # stores, when the binary reports no frame
    frame = (r.stack_bytes if compiled.target.is_nvidia else r.local_bytes) or r.spill_store_bytes
    room = l1_room(compiled, device, resident)
    per_sm = frame * threads * resident
    l1 = total * min(1.0, room / per_sm) if per_sm else total
    chip = frame * threads * min(ctas, blocks * device.num_sms)
    l2_hits = min(1.0, device.l2_bytes / chip) if chip else 1.0
    return {"local_bytes": total, "local_frame": frame, "local_l1": l1, "local_l2": total - l1,
            "local_dram": (total - l1) * (1 - l2_hits)}


def l1_room(compiled, device, resident: int) -> int | None:
    """L1 bytes an SM has for cached loads beside the shared memory of its `resident` CTAs; None where no L1
    size was found. NVIDIA's L1 and shared memory are one array: the smallest shared carveout that holds
    the CTAs comes out of it (an assumption: the driver may pick a larger one). AMD's L1 is its own."""
    target = compiled.target.name
    if target not in K.L1_BYTES_PER_SM:
        return None
    room = K.L1_BYTES_PER_SM[target]
    if compiled.target.is_nvidia:
        needed = resident * (compiled.resources.shared_total + device.shared_reserved_per_block)
        steps = [kb * 1024 for kb in K.SHARED_CARVEOUTS_KB.get(target, ())]
        room = max(0, room - min((c for c in steps if c >= needed), default=needed))
    return room


def clock_share(device, precision: str | None, fills_chip: bool = True) -> K.Span:
    """The share of the peaks' clock the SMs run a kernel at. Where the vendor published the clocks its part holds
    under dense matrix multiply (`Device.matrix_clock_ghz`; AMD's MI300X runs matrix work near half its peak
    clock), matrix code that fills the chip runs at its precision's clock, or at the lowest measured where its
    precision was not measured, and the band spans the part's measured clocks (how hard the code works the
    matrix units moves the clock: a kernel that drives them less may hold a higher one). A grid smaller than
    the chip keeps K.CLOCK_SHARE: AMD's blog says lightly loaded work runs near the boost clock. Elsewhere
    K.CLOCK_SHARE too."""
    measured = device.matrix_clock_ghz
    if not measured or precision is None or not fills_chip:
        return K.CLOCK_SHARE
    own = measured.get(precision, min(measured.values()))
    return K.Span(max(measured.values()) / device.clock_ghz, own / device.clock_ghz,
                  min(measured.values()) / device.clock_ghz)


def clock_note(device, precision: str) -> str:
    measured = device.matrix_clock_ghz
    own = measured.get(precision, min(measured.values()))
    which = (f"runs dense {precision} matrix work at {own * 1000:.0f} MHz" if precision in measured else
             f"was not measured at {precision}: its lowest measured matrix clock, {own * 1000:.0f} MHz, is taken")
    return (f"clock: {device.name} {which}, {own / device.clock_ghz:.0%} of the {device.clock_ghz * 1000:.0f} MHz "
            f"its peaks assume (the vendor's measurement: core/devices.py); the band spans its measured "
            f"{min(measured.values()) * 1000:.0f} to {max(measured.values()) * 1000:.0f} MHz; load latencies stay "
            f"at the usual clock")


def model_clock(device, target: str) -> float:
    """The clock the per-clock rates run at: the device's, or lower where its tensor peak assumes less."""
    rate = K.TENSOR_FLOP_PER_CLOCK.get(target)
    fp16 = device.peak_tflops.get("fp16")
    if rate and fp16:
        return min(device.clock_ghz, fp16 * 1e12 / (device.num_sms * rate) / 1e9)
    return device.clock_ghz


def _scenario(name: str, device, target: str, prog, f: dict) -> Scenario:
    at = lambda span: span.at(name)   # noqa: E731
    clock_share = at(K.Span(*f["clock_share"]))
    clock = f["clock_ghz"] * 1e9 * clock_share
    # a load's latency is counted in clocks of the usual clock: memory does not slow with a matrix clock
    usual = f["clock_ghz"] * 1e9 * at(K.CLOCK_SHARE)
    latency = at(K.dram_latency(target)) / usual
    round_latency = _load_latency(at, target, f) / usual + f["bytes_per_round"] / roofline.SM_BYTES_PER_CLOCK / clock
    sms, ctas, blocks = device.num_sms, f["ctas"], f["ctas_per_sm"]
    slots = blocks * sms
    terms = {}
    if f["mma"]:
        efficiency = at(K.HOPPER_MMA_SYNC_EFFICIENCY if (f["mma"] == "mma.sync" and target == "sm_90")
                        else K.TENSOR_EFFICIENCY)
        terms["tensor"] = f["flops"] / (f["peak_tflops"] * 1e12 * efficiency * clock_share)
    else:
        terms["fma"] = f["flops"] / (f["peak_tflops"] * 1e12 * at(K.FMA_EFFICIENCY) * clock_share)
    shared = f["shared_traffic_threads"] + at(K.SHARED_ENGINE_SHARE) * f["shared_traffic_engines"]
    if shared:
        terms["shared"] = shared / (K.SHARED_BYTES_PER_CLOCK * clock * sms)
    if f["local_l1"] and device.is_nvidia:
        # spills that hit L1 use the same SRAM path as shared memory (AMD's L1 is its own: no rate used there)
        terms["local"] = (f["local_l1"] + shared) / (K.SHARED_BYTES_PER_CLOCK * clock * sms)
    l2_rate = K.l2_bytes_per_clock(target, device)
    if l2_rate:
        terms["l2"] = (f["l2_traffic"] + f["local_l2"]) / (l2_rate * clock * at(K.L2_EFFICIENCY))
    if f["special"] and device.is_nvidia:
        terms["special"] = f["special"] / (K.SPECIAL_PER_CLOCK_NVIDIA * clock * sms)
    if f["issued"] and device.is_nvidia:
        terms["issue"] = f["issued"] / (K.ISSUE_PER_CLOCK_NVIDIA * clock * sms)
    terms["dram"] = (f["dram_traffic"] + f["local_dram"]) / (device.mem_bandwidth_gbs * 1e9 * at(K.DRAM_EFFICIENCY))
    if f["memory_side_traffic"] and device.infinity_cache_gbs:
        # the L2s' misses and the writes pass AMD's Infinity Cache; its rate is absolute (on the IODs' clock, not
        # the XCDs'), with L2's efficiency span (an assumption: a busy cache loses some cycles)
        terms["infinity_cache"] = (f["memory_side_traffic"] + f["local_dram"]) / (device.infinity_cache_gbs * 1e9
                                                                                  * at(K.L2_EFFICIENCY))
    # Wave quantisation, by SMs: an SM's throughput is its own whether one CTA or several share it, so a
    # partial last wave costs as many rounds as its busiest SM has CTAs (ceil(last / SMs)), not a full
    # wave. DRAM and L2 are one pool for the chip: a grid on few SMs still streams at their full rate
    # unless its bytes in flight cannot cover the latency, which the latency term below decides (Little's
    # law). Not an even share per SM: the validation set's L40S rows (M=16, 32 CTAs on 142 SMs) stream
    # 34 MB at 60% of peak or more, where an even share would allow 23%. (figures/roofline.py's ceiling
    # caps what each SM takes in at 128 bytes a clock instead, far above what these grids need.)
    full, last = divmod(ctas, slots)
    sm_fill = ctas / (full * slots + (math.ceil(last / sms) * sms if last else 0))
    slowest = 1.0                         # the slowest CTA's work over the average CTA's
    if f["work_items"]:
        # a persistent kernel: its slowest program takes ceil(items / programs) tiles
        items = f["work_items"]
        per_program = items / ctas
        slowest = math.ceil(per_program) / per_program
        sm_fill /= slowest
    for r in terms:
        if r not in ("l2", "dram", "infinity_cache"):
            terms[r] /= sm_fill
    if f["serial_special"] and "special" in terms and "tensor" in terms:
        # one CTA per SM and no warp specialisation: its warps run the softmax (its exponentials, and the
        # instructions around them, as issue allows) and the matrix products in turn, not side by side
        softmax = terms.pop("special")
        if "issue" in terms:
            softmax = max(softmax, f["issued_outside_mma"] / (K.ISSUE_PER_CLOCK_NVIDIA * clock * sms) / sm_fill)
        terms["tensor + special"] = terms.pop("tensor") + softmax
    # Little's law per CTA: each round waits one latency, R rounds overlap; the CTAs an SM holds at once
    # overlap theirs, and an SM works through its CTAs `blocks` at a time
    per_sm = math.ceil(ctas / sms)
    groups = math.ceil(per_sm / blocks)
    waited = groups * f["rounds_per_cta"] * slowest * round_latency
    if f["rounds_in_flight"]:
        terms["latency"] = waited / f["rounds_in_flight"]
    else:
        # a ring of one buffer: every round waits out its load, then works; the SM's other CTAs work while
        # one waits (Hong and Kim, ISCA 2009: memory waits overlap other warps' computation, not their own),
        # so a CTA's cycle is its latency plus its own share of the SM's work
        work = max(terms.get(r, 0.0) for r in ("tensor", "fma", "tensor + special", "issue", "shared", "special",
                                                "local"))
        terms["latency"] = waited + groups * work / per_sm
    bound = max(terms, key=terms.get)
    body, fill, launch_s = terms[bound], 2 * latency, at(K.LAUNCH_SECONDS)
    return Scenario(seconds=body + fill + launch_s, body=body, fill=fill, launch=launch_s, terms=terms, bound=bound)


def _load_latency(at, target: str, f: dict) -> float:
    """Core clocks a round's loads wait before their first byte. A round's time to its last byte adds its bytes at
    what one SM takes in (roofline.SM_BYTES_PER_CLOCK): one round's arrival, as a latency; that several CTAs of
    an SM share its intake is a throughput, which the shared-memory term counts. Where an L2 hit latency was
    measured, a round's loads hit L2 as often as each byte an L2 fetches is read from it again (1 - 1/reuse)
    and miss otherwise; elsewhere every load takes the DRAM latency, the longer one."""
    dram = at(K.dram_latency(target))
    hit = K.L2_HIT_LATENCY_CYCLES.get(target)
    reuse = max(1.0, f["reuse"] or 1.0)
    return dram if hit is None else at(hit) * (1 - 1 / reuse) + dram / reuse


def _notes(compiled, prog, moved, f, bounds: set, again=None) -> list[str]:
    notes = [roofline.work_note(compiled.spec)] if compiled.spec.work_basis else []
    if again:
        notes.append(reread_note(again))
    if not moved.from_schedule and not compiled.spec.work_basis:     # work_note says it for the other case
        notes.append("DRAM and L2 traffic: every byte of the spec's count once (it gives no operand blocks)"
                     + (", and the re-reads L1 does not serve" if again and again.beyond_l1 else ""))
    if prog.mma_family is None and "tt.dot" in compiled.stage("ttir"):
        notes.append("tl.dot without matrix instructions: modelled on the FMA units")
    if not prog.load_bytes_per_round:
        notes.append("no tile loads found in TTGIR: load latency counted once per CTA")
    if f["local_bytes"] and compiled.target.name not in K.L1_BYTES_PER_SM:
        notes.append(f"spills: no published L1 size for {compiled.target.name}, so their local-memory traffic "
                     "is not modelled")
    elif f["local_bytes"] and not compiled.target.is_nvidia:
        notes.append("spills: each scratch access counted once, not once per loop trip (the amdgcn's loops are "
                     "not read): a lower bound")
    if not f["rounds_in_flight"] or "latency" in bounds:      # where the load latency sets a time, its source
        target = compiled.target.name
        hit, dram = K.L2_HIT_LATENCY_CYCLES.get(target), K.dram_latency(target).typical
        measured = ("measured by pointer chase" if target in K.DRAM_LATENCY_CYCLES else
                    "no measurement found for this part: an assumed figure")
        if hit is None:
            notes.append(f"load latency: no L2 hit latency found for {target}, so every round's loads wait the DRAM "
                         f"latency ({dram:g} clocks, {measured}): an upper bound")
        elif f["reuse"] <= 1:
            notes.append(f"load latency: every byte is read once, so every load is taken as an L2 miss ({dram:g} "
                         f"clocks, {measured})")
        else:
            notes.append(f"load latency: {hit.typical:g} clocks on an L2 hit, {dram:g} on a miss (both measured by "
                         f"pointer chase: model/constants.py), mixed by how often each byte an L2 fetches is read again")
    if compiled.target.name in K.SHARED_RATE_NOTES and f["shared_traffic_threads"] + f["shared_traffic_engines"]:
        notes.append(K.SHARED_RATE_NOTES[compiled.target.name])
    if f.get("memory_side_traffic") and not f.get("infinity_cache_gbs"):
        notes.append(f"Infinity Cache: no published bandwidth for {compiled.target.name}, so the "
                     f"{f['memory_side_traffic']:.4g} B that pass it (the L2s' misses and the writes) are not timed")
    if compiled.target.name not in K.L2_BYTES_PER_CLOCK:
        notes.append(f"no published L2 bandwidth for {compiled.target.name}: L2 is not modelled")
    elif compiled.target.name in K.L2_RATE_NOTES:
        notes.append(K.L2_RATE_NOTES[compiled.target.name])
    ttir = compiled.stage("ttir")
    calls_special = any(f"math.{op} " in ttir for op in ("exp", "exp2", "log", "log2", "rsqrt", "sqrt", "sin",
                                                          "cos", "erf"))
    if calls_special and not compiled.spec.special:
        notes.append("special functions (exp, rsqrt, ...): the kernel calls them but its spec gives no count, "
                     "so they are not modelled")
    elif not compiled.target.is_nvidia:
        notes.append("special functions: no published rate for AMD, so they are not modelled")
    if compiled.target.is_nvidia:
        notes.append("instruction issue: SASS counts (the main loop's body once per round), at 4 per clock per SM "
                     "with no stalls; not modelled: bank conflicts, stalls, uneven work across CTAs")
    else:
        notes.append("not modelled: instruction issue (no published rate used for AMD here), bank conflicts, "
                     "uneven work across CTAs")
    notes.append("checked against published measurements (benchmarks/model_accuracy.py): on GPUs named exactly, "
                 "median error 2-16% for memory-bound Triton kernels, under 10% for cuBLAS GEMMs, 22% for a plain "
                 "Triton GEMM, 8-19% for PyTorch's layer norm; 26-63% on attention; near 30% where the GPU's variant "
                 f"is unknown; faster than measured on 5 rows in 6; {config_order_check()}")
    return notes


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


# How the model ordered the configs of the validation set's L40S autotuner log at 2048^3 (benchmarks/
# model_accuracy.py's "config orderings"; tests/test_validation_data.py checks these against it): pairs the GPU
# ran more than 5% apart, how many the model ordered as the GPU did, tied, reversed, and how far apart the
# configs it ranks first measured.
L40S_CONFIG_ORDER = {"separated": 31, "right": 21, "tied": 8, "reversed": 2, "first_apart": 0.07}


def config_order_check() -> str:
    o = L40S_CONFIG_ORDER
    return (f"of {o['separated']} pairs of GEMM configs an L40S ran apart, the model ordered {o['right']} as the "
            f"GPU did, tied {o['tied']} and reversed {o['reversed']}; the configs it ranked first ran up to "
            f"{o['first_apart']:.0%} apart")


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


def shares_phrase(e: Explanation) -> str:
    """"tensor-core issue 93%, pipeline fill 1%, launch 6%": where the typical time goes."""
    return ", ".join(f"{NAMES[k]} {100 * v:.0f}%" for k, v in sorted(e.shares.items(), key=lambda kv: -kv[1]))


def busy_phrase(e: Explanation) -> str:
    """Each resource's time against the body's: 100% is the bound one."""
    return ", ".join(f"{NAMES[k]} {100 * v:.0f}%" for k, v in sorted(e.busy.items(), key=lambda kv: -kv[1]))


def band_phrase(e: Explanation) -> str:
    return f"{_us(e.seconds)} (band {_us(e.low)} to {_us(e.high)})"


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
        ("traffic", f"{f['flops']:.4g} FLOP on {f['roof']}; DRAM {f['dram_traffic']:.4g} B, "
                 + (f"Infinity Cache {f['memory_side_traffic']:.4g} B, " if f.get("memory_side_traffic") else "")
                 + f"L2 {f['l2_traffic']:.4g} B (each byte an L2 fetches is read {f['reuse']:.3g}x from it), shared "
                 f"{f['shared_traffic_threads'] + f['shared_traffic_engines']:.4g} B"
                 + (f" ({f['shared_traffic_engines']:.4g} B by the copy and matrix engines)"
                    if f["shared_traffic_engines"] else "")),
        ("loads", f"{f['rounds_per_cta']:.4g} round{'' if f['rounds_per_cta'] == 1 else 's'} of "
                  f"{f['bytes_per_round']} B per CTA, "
                  f"{f['rounds_in_flight']} in flight"
                  + ("" if f["rounds_in_flight"] else " (one buffer: each round waits out its loads, then works)")
                  + f"; {f['ctas']} CTAs, {f['ctas_per_sm']} per SM"),
    ]
    if f.get("local_bytes") and targets.resolve(e.target).name in K.L1_BYTES_PER_SM:   # e.target: a label
        l1 = f["local_l1"] / f["local_bytes"]
        l2 = 1 - f["local_dram"] / f["local_l2"] if f["local_l2"] else 1.0
        out.append(("spills", f"{f['local_bytes']:.4g} B to and from local memory ({f['local_frame']} B frame per "
                              f"thread): {100 * l1:.3g}% served by L1, then {100 * l2:.3g}% of the rest by L2, "
                              f"{f['local_dram']:.4g} B by DRAM"))
    return out + [("note", n) for n in e.notes]


def _spill_share(e: Explanation) -> str:
    """", 80% of its bytes are spills" when the bound resource is DRAM or L2 and spills are a share of its traffic."""
    f = e.figures
    spilled, own = {"dram": (f.get("local_dram", 0), f["dram_traffic"]),
                    "l2": (f.get("local_l2", 0), f["l2_traffic"])}.get(e.bound, (0, 0))
    return f", {100 * spilled / (spilled + own):.3g}% of its bytes are spills" if spilled else ""


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.4g} us"
