"""`fuse --max-autotune`: the candidates Inductor weighs for a GEMM, ranked by a model, since no GPU is here
to measure them (child side: installed in planner_child.py's process only).

With max_autotune, Inductor lists for each GEMM the library routine (extern mm: cuBLAS) and Triton
template configs, compiles them and times each on the GPU; the fastest is kept. Here nothing can be
timed, so `AlgorithmSelectorCache.autotune` answers from this module: every candidate gets a modelled
time, and the plan takes the best-modelled Triton template, so that its kernel (with the epilogue
Inductor fuses into it) can be shown. That choice is the model's, never Inductor's; the text says so.
Epilogue fusion, which Inductor would also benchmark under max_autotune, is decided without timing
(`benchmark_epilogue_fusion` off).

The model, per candidate, labelled modelled wherever it is shown:
- library: at the roofline, 2·M·N·K FLOPs and each operand read from DRAM once, with no wave
  quantisation (its kernels are not visible here): the best a GEMM can do.
- Triton template, fp16 or bf16: the performance model (model/explain.py, as `bench` and `sweep` use it)
  on a stand-in binary. Inductor's mm template is the grouped, tiled GEMM of kernels/gemm.py (the same
  program order over GROUP_M rows of tiles, the same K loop of tl.dot); the stand-in is that kernel
  compiled for the target with the candidate's BLOCK_M/N/K, GROUP_M, num_warps and num_stages, so its
  registers, shared memory, occupancy and instruction family are a real compile's. What it leaves out
  is the template's own code: its epilogue (the ops fused into it) and its index arithmetic. Configs the
  model cannot order (model.ranking.same_time) share a rank, marked as a tie, as in `sweep`.
- Triton template in other dtypes (no stand-in): CTAs = ceil(M/BLOCK_M)·ceil(N/BLOCK_N) per batch;
  DRAM bytes = CTAs x (BLOCK_M + BLOCK_N) x K + M·N, times the element size (the tiled GEMM's traffic
  with no reuse through L2, an upper bound); CTAs per SM from the occupancy calculator with
  num_warps·32 threads, shared memory as Inductor estimates it
  (torch/_inductor/template_heuristics/triton.py, get_shared_memory_estimation: element size x
  (BLOCK_M·BLOCK_K + BLOCK_N·BLOCK_K) x num_stages + 128) and registers counted as the fp32
  accumulator alone; then the roofline time over the wave fill.
"""
from __future__ import annotations

import math
import re

from .. import compat
from ..errors import UserError

_PARAM = re.compile(r"(\w+)=('[^']*'|[^,\s]+)")
SMEM_EXTRA_BYTES = 128        # Inductor's allowance for barriers (get_shared_memory_estimation)


def template_config(description: str) -> dict:
    """"BLOCK_K=32, BLOCK_M=64, num_stages=3, ..." -> {"BLOCK_K": 32, "BLOCK_M": 64, "num_stages": 3, ...}."""
    out = {}
    for name, value in _PARAM.findall(description or ""):
        value = value.strip("'")
        out[name] = int(value) if re.fullmatch(r"-?\d+", value) else value == "True" if value in ("True", "False") \
            else value
    return out


STAND_IN = "gemm"            # kernels/gemm.py: the grouped, tiled GEMM Inductor's mm template also is
AMD_OPTIONS = ("matrix_instr_nonkdim", "waves_per_eu", "kpack")


def model(kind: str, config: dict, m: int, n: int, k: int, batch: int, element: int, device, matrix: str,
          target: str | None = None) -> dict:
    """One candidate's modelled time (module docstring), with the figures it rests on."""
    from ..figures import roofline
    flops = 2 * batch * m * n * k
    peak, _ = roofline.peak_for(device, matrix)
    if kind == "library":
        nbytes = batch * (m * k + k * n + m * n) * element
        est = roofline.estimate(flops, nbytes, peak, device.mem_bandwidth_gbs)
        return {"modelled_us": est.seconds * 1e6, "dram_bytes": nbytes,
                "basis": "roofline, operands read once (a library's kernels are not visible here)"}
    if matrix in ("fp16", "bf16") and target is not None:
        return stand_in(config, m, n, k, batch, element, matrix, target)
    return _without_stand_in(config, m, n, k, batch, element, device, peak)


def stand_in_request(config: dict, m: int, n: int, k: int, dtype: str, target: str):
    """kernels/gemm.py with the template's BLOCK_M/N/K, GROUP_M, warps and stages, at the GEMM's shape."""
    from ..core import targets
    from ..artefact.request import Request
    meta = {"BLOCK_SIZE_M": config.get("BLOCK_M", 64), "BLOCK_SIZE_N": config.get("BLOCK_N", 64),
            "BLOCK_SIZE_K": config.get("BLOCK_K", 32), "GROUP_SIZE_M": config.get("GROUP_M", 8)}
    if not targets.resolve(target).is_nvidia:
        meta.update({name: config[name] for name in AMD_OPTIONS if name in config})
    return Request.of(STAND_IN, target, meta=meta, num_warps=config.get("num_warps", 4),
                      num_stages=config.get("num_stages", 2), shape={"M": m, "N": n, "K": k}, dtype=dtype)


def compile_side_by_side(requests: list) -> None:
    """Compile the stand-ins in sweep's process pool, one per core, and disassemble them together, so that
    modelling them one by one afterwards reads Triton's cache (a config that fails here fails again, and says
    why, when modelled)."""
    import os

    from ..artefact import disasm
    from ..sweep import pool
    tasks = [{"request": r.ref(), "config": {}, "num_sms": None, "index": i, "model": False}
             for i, r in enumerate(requests)]
    if len(tasks) > 1:
        pool.in_workers(tasks, min(len(tasks), os.cpu_count() or 1), finish=lambda done: None)
        compiled = []
        for r in requests:
            try:
                compiled.append(r.compile())     # a cache hit, or the same failure again
            except Exception:
                pass
        disasm.keep_counted(compiled)


def stand_in(config: dict, m: int, n: int, k: int, batch: int, element: int, dtype: str, target: str) -> dict:
    """The performance model on kernels/gemm.py compiled with the template's tiles, warps and stages."""
    from ..figures import grid, occupancy
    from ..model import explain
    bm, bn, bk = config.get("BLOCK_M", 64), config.get("BLOCK_N", 64), config.get("BLOCK_K", 32)
    ctas = batch * math.ceil(m / bm) * math.ceil(n / bn)
    out = {"ctas": ctas, "smem_bytes": element * (bm * bk + bn * bk) * config.get("num_stages", 2) + SMEM_EXTRA_BYTES}
    basis = (f"performance model on kernels/{STAND_IN}.py compiled with this config (the same grouped tiled GEMM; "
             f"the template's epilogue is not in it)")
    try:
        compiled = stand_in_request(config, m, n, k, dtype, target).compile()
        occ = occupancy.of(compiled)
        out.update(shared_bytes=compiled.resources.shared_total, registers=compiled.resources.registers,
                   blocks_per_sm=occ.active_blocks_per_sm if occ.launchable else 0)
        if not occ.launchable:
            return {**out, "modelled_us": math.inf, "basis": f"cannot launch: {', '.join(occ.limiter)}"}
        work = None if batch == 1 else (2 * batch * m * n * k, batch * (m * k + k * n + m * n) * element,
                                        batch * grid.ctas(compiled))
        e = explain.explain(compiled, work=work)
    except Exception as err:            # a config the stand-in cannot take: say so, rank it last
        return {**out, "modelled_us": math.inf, "basis": f"not modelled: {str(err).splitlines()[0][:160]}"}
    waves = math.ceil(ctas / (out["blocks_per_sm"] * grid.device_of(compiled).num_sms))
    return {**out, "waves": waves, "modelled_us": e.seconds * 1e6, "modelled_low_us": e.low * 1e6,
            "modelled_high_us": e.high * 1e6, "bound": explain.NAMES[e.bound], "basis": basis}


def _without_stand_in(config: dict, m: int, n: int, k: int, batch: int, element: int, device, peak) -> dict:
    from ..figures import occupancy, roofline
    flops = 2 * batch * m * n * k
    bm, bn, bk = config.get("BLOCK_M", 64), config.get("BLOCK_N", 64), config.get("BLOCK_K", 32)
    threads = 32 * config.get("num_warps", 4)
    smem = element * (bm * bk + bn * bk) * config.get("num_stages", 2) + SMEM_EXTRA_BYTES
    accumulator_regs = math.ceil(bm * bn / threads)
    ctas = batch * math.ceil(m / bm) * math.ceil(n / bn)
    nbytes = (ctas * (bm + bn) * k + batch * m * n) * element
    out = {"ctas": ctas, "smem_bytes": smem, "accumulator_registers": accumulator_regs, "dram_bytes": nbytes}
    try:
        occ = occupancy.compute(device, threads, min(accumulator_regs, device.max_regs_per_thread or 255), smem)
        per_sm = occ.active_blocks_per_sm if occ.launchable else 0
    except Exception:          # a shape the calculator rejects (too much shared memory): it cannot launch
        per_sm = 0
    out["blocks_per_sm"] = per_sm
    if not per_sm:
        return {**out, "modelled_us": math.inf, "basis": "cannot launch: too much shared memory or threads"}
    est = roofline.estimate(flops, nbytes, peak, device.mem_bandwidth_gbs, ctas, per_sm * device.num_sms,
                            roofline.sms_to_fill_dram(device))
    return {**out, "waves": est.waves, "modelled_us": est.seconds * 1e6,
            "basis": "roofline over wave fill; tile traffic without L2 reuse; registers: the accumulator only"}


def by_modelled_time(candidate: dict) -> float:
    return math.inf if candidate["modelled_us"] is None else candidate["modelled_us"]


def rank(candidates: list[dict]) -> None:
    """rank_modelled (1 = fastest by the model) and tie: a candidate the model cannot order against the
    first of the group above it (ranking.same_time: within 2%, or in the other order at an end of the
    band) shares its rank. Candidates with no time come last, in order."""
    from ..model import ranking

    def times(c):       # microseconds: same_time compares times by their ratios, in any one unit
        return None if c["modelled_us"] is None else {
            "modelled_seconds": c["modelled_us"], "modelled_low": c.get("modelled_low_us"),
            "modelled_high": c.get("modelled_high_us")}
    for c, place, tie in ranking.ranked(candidates, times):
        c["tie"], c["rank_modelled"] = tie, place


def install(target: str, element: int, matrix: str) -> list[dict]:
    """Make Inductor's autotuning answer from the model; returns the list each GEMM's candidates are
    recorded in, as the plan reports them."""
    inductor_config, select_algorithm = compat.reach("inductor_config"), compat.reach("select_algorithm")

    from ..core import devices, targets
    device = devices.get(targets.resolve(target))
    inductor_config.max_autotune = True
    inductor_config.benchmark_epilogue_fusion = False     # no GPU to time fused against unfused
    inductor_config.compile_threads = 1                   # the fakes live in this process only
    recorded: list[dict] = []

    def autotune(self, name, input_nodes, layout, input_gen_fns, choices, *args, **kwargs):
        size = [int(d) for d in layout.size]
        m, n = size[-2], size[-1]
        k = int(input_nodes[-1].get_size()[-2])
        batch = math.prod(size[:-2])
        candidates, timings = [], {}
        if matrix in ("fp16", "bf16"):
            configs = [template_config(getattr(c, "description", "")) for c in choices
                       if type(c).__name__ == "TritonTemplateCaller"]
            try:
                compile_side_by_side([stand_in_request(cfg, m, n, k, matrix, target) for cfg in configs])
            except UserError:         # a config the stand-in refuses: modelled one by one, it says why
                pass
        for choice in choices:
            kind = "Triton template" if type(choice).__name__ == "TritonTemplateCaller" else "library"
            config = template_config(getattr(choice, "description", "")) if kind != "library" else {}
            figures = model(kind, config, m, n, k, batch, element, device, matrix, target)
            candidates.append({"name": choice.name, "kind": kind, "config": config, **figures})
            timings[choice] = figures["modelled_us"]
        for c in candidates:     # JSON has no infinity: a candidate that cannot launch has no time
            c["modelled_us"] = c["modelled_us"] if math.isfinite(c["modelled_us"]) else None
        templates = [c for c in candidates if c["kind"] != "library" and c["modelled_us"] is not None]
        taken = min(templates, key=lambda c: c["modelled_us"])["name"] if templates else None
        for choice in choices:     # what Inductor is told: the taken template fastest, the rest after it
            if taken is not None and choice.name != taken:
                timings[choice] = max(timings[choice], 0.0) + 1e9
        rank(candidates)
        recorded.append({"op": name, "m": m, "n": n, "k": k, "batch": batch, "taken": taken,
                         "candidates": candidates})
        return timings

    select_algorithm.AlgorithmSelectorCache.autotune = autotune
    return recorded
