"""The same line of PyTorch planned for several targets, step by step, and where the plans differ.

Inductor asks the device a few questions, and its plan follows the answers. The SM count decides
whether a reduction with few outputs is split in two kernels and how far (`ir.Reduction.num_splits`,
`choices.reduction_split_factor` in torch/_inductor); the capability decides some configs and which
GEMM templates apply. Nothing here is modelled: each plan is what Inductor wrote for its target.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core import devices, targets
from ..core.spec import split_config
from .plan import Plan


def describe(plan: Plan, step) -> dict:
    """What a step is on its target: kind, kernel, loop sizes and Inductor's first config."""
    configs = plan.kernels_read.get(step.name, {}).get("configs", []) if step.kind != "library" else []
    return {"kind": step.kind, "name": step.name, "elements": "x".join(map(str, step.numels)) or "-",
            "config": config_text(configs[0]) if configs else "-", "configs": len(configs)}


def config_text(config: dict) -> str:
    meta, num_warps, num_stages = split_config(config)
    return " ".join([f"{k}={v}" for k, v in meta.items()] + [f"num_warps={num_warps}", f"num_stages={num_stages}"])


@dataclass
class Comparison:
    plans: list[Plan]
    steps: list[dict]          # per launch index: {"index", "by_target": {target: describe(...) or None}, "differs"}
    differences: list[str]     # one sentence per difference

    def as_dict(self) -> dict:
        return {"targets": [p.target for p in self.plans], "plans": [p.as_dict() for p in self.plans],
                "steps": self.steps, "differences": self.differences}


def compare(plans: list[Plan]) -> Comparison:
    steps, differences = [], []
    counts = {p.target: len(p.steps) for p in plans}
    if len(set(counts.values())) > 1:
        differences.append("launches: " + ", ".join(f"{t} {n}" for t, n in counts.items()))
    for index in range(1, max(counts.values(), default=0) + 1):
        by_target = {p.target: (describe(p, p.steps[index - 1]) if index <= len(p.steps) else None) for p in plans}
        present = [d for d in by_target.values() if d]
        differs = len(plans) > 1 and (len(present) < len(plans)
                                      or any(d != present[0] for d in present[1:]))
        steps.append({"index": index, "by_target": by_target, "differs": differs})
        if not differs:
            continue
        for field, what in (("name", "kernel"), ("elements", "loop sizes"), ("config", "first config"),
                            ("configs", "configs")):
            values = {t: d[field] for t, d in by_target.items() if d}
            if len(values) == len(plans) and len(set(values.values())) > 1:
                differences.append(f"step {index} {what}: " + "; ".join(f"{t} {v}" for t, v in values.items()))
        missing = [t for t, d in by_target.items() if d is None]
        if missing:
            differences.append(f"step {index}: only on {', '.join(t for t in by_target if t not in missing)}")
    return Comparison(plans, steps, differences)


def device_line(target: str) -> str:
    """What Inductor reads from the device, as the device table gives it."""
    tgt = targets.resolve(target)
    device = devices.get(tgt)
    if not tgt.is_nvidia:
        return f"{target}: {device.name}, {device.num_sms} CUs, wavefront {tgt.warp_size}"
    return f"{target}: {device.name}, {device.num_sms} SMs, capability {tgt.arch // 10}.{tgt.arch % 10}"
