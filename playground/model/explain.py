"""The performance model: a kernel's time on a target, explained from its compiled binary and its launch.

Nothing here is measured; every figure shown from it says "modelled" (text.py words it, caveats.py adds
what it leaves out). The kernel's work is split over the resources that serve it, each with a rate from the
device table or `constants.py`:

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

How close this comes to measured times, and how it orders configs a GPU ran, is benchmarks/data/README.md,
written from the validation set by benchmarks/model_accuracy.py; a note in every explanation points there.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from ..artefact import instruction_mix
from ..core import devices, dtypes
from ..errors import UserError
from ..figures import grid, roofline
from . import caveats
from . import constants as K
from . import program as program_
from . import traffic as traffic_

# each resource the model times (a scenario's terms), and the fill and launch it adds, in words
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
class Figures:
    """What the model's terms are computed from: the launch's counts (bytes, FLOPs, instructions), in all, and
    the shapes and rates they are divided by."""
    flops: float
    dram_traffic: float             # bytes: what the tile schedule fetches and writes, and re-reads no cache holds
    memory_side_traffic: float      # bytes through AMD's Infinity Cache (the L2s' misses and the writes); else 0
    infinity_cache_gbs: float | None
    l2_traffic: float               # bytes the L2 serves: loads, re-reads L1 does not hold, and the output
    shared_traffic_threads: float   # shared-memory bytes threads issue (ldmatrix, ds_read, plain stores)
    shared_traffic_engines: float   # shared-memory bytes the copy and matrix engines move (cp.async, TMA, wgmma)
    clock_ghz: float                # the clock the per-clock rates run at (model_clock)
    clock_share: list               # its share at the optimistic, typical and pessimistic end (clock_share)
    rounds_per_cta: float           # trips of the main loop one CTA makes
    rounds_in_flight: int           # rounds a CTA keeps loading while it works (program.py); 0: one buffer
    bytes_per_round: int            # bytes a CTA loads per trip
    ctas: int
    ctas_per_sm: int                # resident at once (occupancy)
    num_sms: int
    mma: str | None                 # the matrix-instruction family; None without matrix code
    roof: str                       # the compute roof, in words
    peak_tflops: float
    reuse: float                    # how often each byte an L2 fetches is read from it
    traffic_from_schedule: bool     # DRAM and L2 bytes from the spec's operand blocks, not its byte count
    reread_bytes: float             # bytes programs read again (spec.rereads)
    reread_from: str                # where those are served ("L1 100%", ...)
    special: float                  # special-function results (exp, rsqrt, ...): the spec's count
    work_items: int                 # a persistent kernel's tiles; 0 for any other
    serial_special: bool            # one CTA an SM, no warp specialisation: softmax and matrix work take turns
    issued: float                   # warp instructions issued, the main loop's body once per round
    issued_outside_mma: float       # of the loop's, those that are not matrix instructions
    local_bytes: float              # spills: bytes to and from local memory (_local_traffic)
    local_frame: int                # the spill frame per thread
    local_l1: float                 # of local_bytes, served by L1
    local_l2: float                 # missing L1
    local_dram: float               # missing L2 too


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
    figures: Figures            # what the terms were computed from
    notes: list = field(default_factory=list)
    kind: str = "modelled"

    @property
    def tflops(self) -> float:
        return self.figures.flops / self.seconds / 1e12

    def as_dict(self) -> dict:
        return {"kind": self.kind, "kernel": self.kernel, "target": self.target, "device": self.device,
                "shape": self.shape, "dtype": self.dtype, "config": self.config, "seconds": self.seconds,
                "band": [self.low, self.high], "bound": self.bound, "shares": self.shares, "busy": self.busy,
                "scenarios": {k: {"seconds": s.seconds, "bound": s.bound, "terms": s.terms}
                              for k, s in self.scenarios.items()},
                "figures": asdict(self.figures), "notes": self.notes}


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
    precision = instruction_mix.matrix_precision(compiled) if prog.mma_family else None
    peak, roof = roofline.peak_for(device, precision)
    share = clock_share(device, precision, fills_chip=ctas >= device.num_sms)
    figures = Figures(
        flops=flops, dram_traffic=moved.dram_bytes, memory_side_traffic=moved.memory_side_bytes,
        infinity_cache_gbs=device.infinity_cache_gbs, l2_traffic=moved.l2_load_bytes + moved.output_bytes,
        shared_traffic_threads=shared[0], shared_traffic_engines=shared[1],
        clock_ghz=model_clock(device, compiled.target.name),
        clock_share=[share.optimistic, share.typical, share.pessimistic], rounds_per_cta=rounds,
        rounds_in_flight=prog.rounds_in_flight, bytes_per_round=prog.load_bytes_per_round, ctas=ctas,
        ctas_per_sm=blocks, num_sms=device.num_sms, mma=prog.mma_family, roof=roof, peak_tflops=peak,
        reuse=moved.reuse, traffic_from_schedule=moved.from_schedule,
        reread_bytes=again.bytes if again else 0, reread_from=again.where() if again else "",
        special=spec.special(cfg.shape) if spec.special and not work else 0,
        work_items=spec.work_items(cfg.shape, cfg.meta) if spec.work_items and not work else 0,
        serial_special=blocks == 1 and "ttg.warp_specialize" not in compiled.stage("ttgir"),
        # warp instructions issued: each warp runs the main loop's body once per round, the rest once
        issued=ctas * cfg.num_warps * (prog.loop_instructions * rounds + prog.other_instructions),
        issued_outside_mma=ctas * cfg.num_warps * (prog.loop_instructions - prog.loop_mma) * rounds,
        **local)
    scenarios = {s: _scenario(s, device, compiled.target.name, prog, figures) for s in K.SCENARIOS}
    typical = scenarios["typical"]
    shares = {typical.bound: typical.body / typical.seconds, "fill": typical.fill / typical.seconds,
              "launch": typical.launch / typical.seconds}
    busy = {r: t / typical.body for r, t in typical.terms.items()}
    return Explanation(kernel=spec.name, target=compiled.target.label, device=device.name, shape=dict(cfg.shape),
                       dtype=cfg.dtype, config=cfg.describe(), seconds=typical.seconds,
                       low=scenarios["optimistic"].seconds, high=scenarios["pessimistic"].seconds,
                       bound=typical.bound, shares=shares, busy=busy, scenarios=scenarios, figures=figures,
                       notes=caveats.notes(compiled, prog, moved, figures, {sc.bound for sc in scenarios.values()},
                                           again)
                       + ([caveats.clock_note(device, precision)] if share is not K.CLOCK_SHARE else []))


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


def model_clock(device, target: str) -> float:
    """The clock the per-clock rates run at: the device's, or lower where its tensor peak assumes less."""
    rate = K.TENSOR_FLOP_PER_CLOCK.get(target)
    fp16 = device.peak_tflops.get("fp16")
    if rate and fp16:
        return min(device.clock_ghz, fp16 * 1e12 / (device.num_sms * rate) / 1e9)
    return device.clock_ghz


def _scenario(name: str, device, target: str, prog, f: Figures) -> Scenario:
    at = lambda span: span.at(name)   # noqa: E731
    clock_share = at(K.Span(*f.clock_share))
    clock = f.clock_ghz * 1e9 * clock_share
    # a load's latency is counted in clocks of the usual clock: memory does not slow with a matrix clock
    usual = f.clock_ghz * 1e9 * at(K.CLOCK_SHARE)
    latency = at(K.dram_latency(target)) / usual
    round_latency = _load_latency(at, target, f) / usual + f.bytes_per_round / roofline.SM_BYTES_PER_CLOCK / clock
    sms, ctas, blocks = device.num_sms, f.ctas, f.ctas_per_sm
    slots = blocks * sms
    terms = {}
    if f.mma:
        efficiency = at(K.HOPPER_MMA_SYNC_EFFICIENCY if (f.mma == "mma.sync" and target == "sm_90")
                        else K.TENSOR_EFFICIENCY)
        terms["tensor"] = f.flops / (f.peak_tflops * 1e12 * efficiency * clock_share)
    else:
        terms["fma"] = f.flops / (f.peak_tflops * 1e12 * at(K.FMA_EFFICIENCY) * clock_share)
    shared = f.shared_traffic_threads + at(K.SHARED_ENGINE_SHARE) * f.shared_traffic_engines
    if shared:
        terms["shared"] = shared / (K.SHARED_BYTES_PER_CLOCK * clock * sms)
    if f.local_l1 and device.is_nvidia:
        # spills that hit L1 use the same SRAM path as shared memory (AMD's L1 is its own: no rate used there)
        terms["local"] = (f.local_l1 + shared) / (K.SHARED_BYTES_PER_CLOCK * clock * sms)
    l2_rate = K.l2_bytes_per_clock(target, device)
    if l2_rate:
        terms["l2"] = (f.l2_traffic + f.local_l2) / (l2_rate * clock * at(K.L2_EFFICIENCY))
    if f.special and device.is_nvidia:
        terms["special"] = f.special / (K.SPECIAL_PER_CLOCK_NVIDIA * clock * sms)
    if f.issued and device.is_nvidia:
        terms["issue"] = f.issued / (K.ISSUE_PER_CLOCK_NVIDIA * clock * sms)
    terms["dram"] = (f.dram_traffic + f.local_dram) / (device.mem_bandwidth_gbs * 1e9 * at(K.DRAM_EFFICIENCY))
    if f.memory_side_traffic and device.infinity_cache_gbs:
        # the L2s' misses and the writes pass AMD's Infinity Cache; its rate is absolute (on the IODs' clock, not
        # the XCDs'), with L2's efficiency span (an assumption: a busy cache loses some cycles)
        terms["infinity_cache"] = (f.memory_side_traffic + f.local_dram) / (device.infinity_cache_gbs * 1e9
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
    if f.work_items:
        # a persistent kernel: its slowest program takes ceil(items / programs) tiles
        items = f.work_items
        per_program = items / ctas
        slowest = math.ceil(per_program) / per_program
        sm_fill /= slowest
    for r in terms:
        if r not in ("l2", "dram", "infinity_cache"):
            terms[r] /= sm_fill
    if f.serial_special and "special" in terms and "tensor" in terms:
        # one CTA per SM and no warp specialisation: its warps run the softmax (its exponentials, and the
        # instructions around them, as issue allows) and the matrix products in turn, not side by side
        softmax = terms.pop("special")
        if "issue" in terms:
            softmax = max(softmax, f.issued_outside_mma / (K.ISSUE_PER_CLOCK_NVIDIA * clock * sms) / sm_fill)
        terms["tensor + special"] = terms.pop("tensor") + softmax
    # Little's law per CTA: each round waits one latency, R rounds overlap; the CTAs an SM holds at once
    # overlap theirs, and an SM works through its CTAs `blocks` at a time
    per_sm = math.ceil(ctas / sms)
    groups = math.ceil(per_sm / blocks)
    waited = groups * f.rounds_per_cta * slowest * round_latency
    if f.rounds_in_flight:
        terms["latency"] = waited / f.rounds_in_flight
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


def _load_latency(at, target: str, f: Figures) -> float:
    """Core clocks a round's loads wait before their first byte. A round's time to its last byte adds its bytes at
    what one SM takes in (roofline.SM_BYTES_PER_CLOCK): one round's arrival, as a latency; that several CTAs of
    an SM share its intake is a throughput, which the shared-memory term counts. Where an L2 hit latency was
    measured, a round's loads hit L2 as often as each byte an L2 fetches is read from it again (1 - 1/reuse)
    and miss otherwise; elsewhere every load takes the DRAM latency, the longer one."""
    dram = at(K.dram_latency(target))
    hit = K.L2_HIT_LATENCY_CYCLES.get(target)
    reuse = max(1.0, f.reuse or 1.0)
    return dram if hit is None else at(hit) * (1 - 1 / reuse) + dram / reuse
