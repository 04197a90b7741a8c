"""`fuse --max-autotune`: the candidates Inductor weighs for a GEMM, ranked by a model, since no GPU is here
to measure them (child side: installed in child.py's process only).

With max_autotune, Inductor lists for each GEMM the library routine (extern mm: cuBLAS) and Triton
template configs, compiles them and times each on the GPU; the fastest is kept. Here nothing can be
timed, so `AlgorithmSelectorCache.autotune` answers from this module: every candidate gets a modelled
time, and the plan takes the best-modelled Triton template, so that its kernel (with the epilogue
Inductor fuses into it) can be shown. That choice is the model's, never Inductor's; the text says so.
Epilogue fusion, which Inductor would also benchmark under max_autotune, is decided without timing
(`benchmark_epilogue_fusion` off).

The model, per candidate, from the device table (core/devices.py) and figures/roofline.estimate:
- work: 2·M·N·K FLOPs.
- library: at the roofline, each operand read from DRAM once, with no wave quantisation (its kernels
  are not visible here): the best a GEMM can do.
- template: CTAs = ceil(M/BLOCK_M)·ceil(N/BLOCK_N) per batch; each CTA reads its BLOCK_M x K strip of A
  and K x BLOCK_N strip of B, so DRAM bytes are CTAs x (BLOCK_M + BLOCK_N) x K + M·N (the output), times
  the element size: the tiled GEMM's traffic with no reuse through L2, an upper bound that makes
  small tiles pay for re-reading the operands; CTAs per SM from the occupancy calculator
  (figures/occupancy.compute) with num_warps·32 threads, shared memory as Inductor estimates it
  (torch/_inductor/template_heuristics/triton.py, get_shared_memory_estimation: element size x
  (BLOCK_M·BLOCK_K + BLOCK_N·BLOCK_K) x num_stages + 128), and registers counted as the fp32
  accumulator alone, BLOCK_M·BLOCK_N / threads (a lower bound: the templates are not compiled here);
  then the roofline time over the wave fill.
"""
from __future__ import annotations

import math
import re

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


def model(kind: str, config: dict, m: int, n: int, k: int, batch: int, element: int, device, matrix: str) -> dict:
    """One candidate's modelled time (module docstring), with the figures it rests on."""
    from ..figures import occupancy, roofline
    flops = 2 * batch * m * n * k
    peak, _ = roofline.peak_for(device, matrix)
    if kind == "library":
        nbytes = batch * (m * k + k * n + m * n) * element
        est = roofline.estimate(flops, nbytes, peak, device.mem_bandwidth_gbs)
        return {"modelled_us": est.seconds * 1e6, "dram_bytes": nbytes,
                "basis": "roofline, operands read once (a library's kernels are not visible here)"}
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
                            device.num_sms)
    return {**out, "waves": est.waves, "modelled_us": est.seconds * 1e6,
            "basis": "roofline over wave fill; tile traffic without L2 reuse; registers: the accumulator only"}


def by_modelled_time(candidate: dict) -> float:
    return math.inf if candidate["modelled_us"] is None else candidate["modelled_us"]


def install(target: str, element: int, matrix: str) -> list[dict]:
    """Make Inductor's autotuning answer from the model; returns the list each GEMM's candidates are
    recorded in, as the plan reports them."""
    import torch._inductor.config as inductor_config
    from torch._inductor import select_algorithm

    from ..core import devices
    device = devices.get(target)
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
        for choice in choices:
            kind = "Triton template" if type(choice).__name__ == "TritonTemplateCaller" else "library"
            config = template_config(getattr(choice, "description", "")) if kind != "library" else {}
            figures = model(kind, config, m, n, k, batch, element, device, matrix)
            candidates.append({"name": choice.name, "kind": kind, "config": config, **figures})
            timings[choice] = figures["modelled_us"]
        for c in candidates:     # JSON has no infinity: a candidate that cannot launch has no time
            c["modelled_us"] = c["modelled_us"] if math.isfinite(c["modelled_us"]) else None
        templates = [c for c in candidates if c["kind"] != "library" and c["modelled_us"] is not None]
        taken = min(templates, key=lambda c: c["modelled_us"])["name"] if templates else None
        for choice in choices:     # what Inductor is told: the taken template fastest, the rest after it
            if taken is not None and choice.name != taken:
                timings[choice] = max(timings[choice], 0.0) + 1e9
        ranked = sorted(candidates, key=by_modelled_time)
        for place, c in enumerate(ranked, 1):
            c["rank_modelled"] = place
        recorded.append({"op": name, "m": m, "n": n, "k": k, "batch": batch, "taken": taken,
                         "candidates": candidates})
        return timings

    select_algorithm.AlgorithmSelectorCache.autotune = autotune
    return recorded
