"""`fuse`'s results as text, `lines(result)`: a plan (its steps in launch order, then a short legend), plans
for several targets side by side, and `--run`'s check of a plan against eager PyTorch."""
from __future__ import annotations

import math
from functools import singledispatch

from ..text import table
from ..units import kib, size
from .across_targets import Comparison, device_line
from .autotune import STAND_IN, by_modelled_time
from .fakes import ROCM_RELEASE
from .plan import Plan, shapes_text
from .plan_check import PlanCheck

LIBRARIES = {"cuda": "cuBLAS", "hip": "hipBLAS"}


def _what(step, backend: str) -> str:
    if step.kind == "library":
        routine = step.name.removeprefix("extern_kernels.")
        gemm = routine in ("mm", "addmm", "bmm", "baddbmm")
        return f"library: {LIBRARIES.get(backend, 'vendor')} {'GEMM' if gemm else routine}"
    return step.kind


@singledispatch
def lines(result, *args, **kwargs) -> list[str]:
    raise TypeError(f"no text for {type(result).__name__}")


@lines.register
def _(p: Plan, backend: str = "cuda", saved_as: str | None = None) -> list[str]:
    """One plan: its steps, buffers, a legend, --max-autotune's candidates, and how to open its kernels."""
    shapes = shapes_text(p.shapes)
    build = f" as a ROCm {ROCM_RELEASE} build" if backend == "hip" else ""    # fakes.py: how ROCm is stood in
    out = [f"{p.expr}  ({shapes}, {p.dtype}) on {p.target} ({p.device}), as torch {p.torch_version}'s "
           f"Inductor plans it{build}: {len(p.steps)} launch{'es' if len(p.steps) != 1 else ''}", ""]
    rows = []
    for s in p.steps:
        loop = "x".join(str(n) for n in s.numels) or "-"
        if s.kind == "Triton template":      # its integer arguments are its grid
            loop = f"{math.prod(s.numels)} CTAs" if s.numels else "-"
        saved = size(s.saved_bytes) if s.saved_bytes else "-"
        rows.append([str(s.index), _what(s, backend), s.name, ", ".join(a.removeprefix("aten.") for a in s.aten) or "-",
                     loop, saved])
    out += table(["#", "step", "kernel", "covers (ATen)", "elements", "saved (modelled)"], rows, align="rlllrr")
    total = sum(b["bytes"] for b in p.buffers)
    out += ["", f"buffers     {len(p.buffers)} allocated ({size(total)}), {p.reused} reused in place, at most "
                f"{size(p.peak_bytes)} alive at once besides the inputs"
                + (f" (eager PyTorch: {size(p.eager_peak_bytes)})" if p.eager_peak_bytes is not None else "")
                + "; memory in use is capacity pressure, not how busy the SMs are",
            "legend      fusion: one generated kernel covers several operations and keeps their intermediates on "
            "chip; 'saved' is the DRAM traffic those would have cost as separate kernels (modelled: written once, "
            "read once). Library steps are routines Inductor chose not to generate (a vendor GEMM)."]
    out += autotune_lines(p)
    if p.kernels:
        first = p.kernels[0].index
        out.append("open a generated kernel in any command as fuse#N (this plan, until the next one)"
                   + (f" or {saved_as}#N" if saved_as else "") + f", e.g. playground compile fuse#{first} --show sass; its code: --show-kernel N")
    return out


@lines.register
def _(c: Comparison) -> list[str]:
    """Plans for several targets: one row per launch, a column per target, then what differs and why."""
    first = c.plans[0]
    shapes = shapes_text(first.shapes)
    out = [f"{first.expr}  ({shapes}, {first.dtype}) as torch {first.torch_version}'s Inductor plans it for "
           + ", ".join(p.target for p in c.plans), ""]
    head = ["#"] + [p.target for p in c.plans] + [""]
    rows = []
    for step in c.steps:
        cells = []
        for p in c.plans:
            d = step["by_target"][p.target]
            cells.append("-" if d is None else f"{d['name']} {d['elements']}"
                         + (f" {d['config']}" if d["config"] != "-" else ""))
        rows.append([str(step["index"]), *cells, "differs" if step["differs"] else "same"])
    out += table(head, rows, align="r")
    out += ["", "devices     " + "; ".join(device_line(p.target) for p in c.plans)]
    if c.differences:
        out += ["differences " + c.differences[0]] + ["            " + d for d in c.differences[1:]]
    else:
        out.append("differences none: every step, loop size and config is the same on these targets")
    out.append("legend      Inductor reads the device: its SM count decides whether a reduction with few outputs is "
               "split into two kernels and how far; its capability picks some configs and which GEMM templates "
               "apply. Each plan is Inductor's own for its target; nothing here is modelled.")
    return out


@lines.register
def _(c: PlanCheck) -> list[str]:
    """`fuse --run`: what ran, where, and each output against eager PyTorch."""
    shapes = shapes_text(c.shapes)
    kernels = ", ".join(f"{name} ({n} config{'s' if n != 1 else ''})" for name, n in c.kernels.items()) or "none"
    if c.device:
        out = [f"run         torch.compile on {c.device} at {shapes}: Inductor's own kernels and library calls, its "
               f"autotuner picking among the configs."]
    else:
        out = [f"run         Inductor's plan for {c.target} at {shapes}"
               + {"scaled": " (scaled down for Triton's interpreter; --run-shape picks others)",
                  "given": " (--run-shape)"}.get(c.chosen, "")
               + f", executed on the CPU: generated kernels in Triton's interpreter, {kernels}; library calls "
                 f"({', '.join(c.library_calls) or 'none'}) in PyTorch. Each config ran."]
    for r in c.runs:
        for o in r["outputs"]:
            where = f"config {r['config_index'] + 1}: " if len(c.runs) > 1 else ""
            error = "-" if o["max_abs"] is None else f"{o['max_abs']:.3g}"
            verdict = "correct" if o["ok"] else "WRONG: " + "; ".join(o["problems"])
            shape = "x".join(map(str, o["shape"])) or "scalar"
            out.append(f"            {where}{o['name']} {shape} {o['dtype']} against eager "
                       f"PyTorch in fp64: max |error| {error}, {o['mismatches']} of {o['total']} outside "
                       f"atol={o['atol']:.3g} rtol={o['rtol']:.3g}: {verdict}")
    return out


def autotune_lines(p: Plan, shown: int = 8) -> list[str]:
    """--max-autotune: each GEMM's candidates, best-modelled first, and what the plan took and why."""
    out = []
    for gemm in p.autotune:
        ranked = sorted(gemm["candidates"], key=by_modelled_time)
        shape = f"{gemm['m']}x{gemm['n']}x{gemm['k']}" + (f" (x{gemm['batch']})" if gemm["batch"] > 1 else "")
        out += ["", f"autotune    {gemm['op']} {shape}: {len(ranked)} candidates; a GPU times every one and Inductor "
                    f"keeps the fastest. None can be timed here, so they are ranked by a model (modelled, not "
                    f"measured; inductor/autotune.py): the library at the roofline, each template by the "
                    f"performance model on kernels/{STAND_IN}.py compiled with its config; 'tie': the model "
                    f"cannot order it against the rank above", ""]
        rows = []
        for c in ranked[:shown]:
            cfg = c["config"]
            tile = (f"{cfg.get('BLOCK_M')}x{cfg.get('BLOCK_N')}x{cfg.get('BLOCK_K')} w{cfg.get('num_warps')} "
                    f"s{cfg.get('num_stages')}") if c["kind"] != "library" else "-"
            shared = kib(int(c["shared_bytes"])) if "shared_bytes" in c else \
                f"{kib(int(c['smem_bytes']))} (est.)" if "smem_bytes" in c else "-"
            time = f"{c['modelled_us']:.1f}" if c["modelled_us"] is not None else c.get("basis", "-")
            rows.append([f"{c['rank_modelled']}{' tie' if c.get('tie') else ''}", c["name"], c["kind"], tile, shared,
                         str(c.get("blocks_per_sm", "-")), str(c.get("waves", "-")), time,
                         c.get("bound", "roofline" if c["kind"] == "library" else "-")])
        out += table(["rank", "candidate", "kind", "tile MxNxK warps stages", "shared", "CTAs/SM", "waves",
                      "us (modelled)", "bound"], rows, align="rllllrrrl")
        if len(ranked) > shown:
            out.append(f"... and {len(ranked) - shown} more (--json has all)")
        out.append(f"taken       {gemm['taken']}: the best-modelled Triton template, so that its kernel and the "
                   "epilogue fused into it can be shown. This is the model's pick, not Inductor's: on a GPU it "
                   "might keep another template or the library GEMM. Epilogue fusion was decided without timing.")
    return out
