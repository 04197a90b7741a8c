"""`bench`: throughput against PyTorch, measured on the local GPU (measured.py) or modelled for the
target (model/explain.py, with figures/roofline.py as its ceiling; labelled modelled everywhere), at one shape or over a swept dimension."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from ..core import devices, targets
from ..core.params import doubling
from ..errors import KernelFailure, UserError
from ..figures import roofline
from ..figures.roofline import MEASURE_HINT
from ..model import explain
from ..text import config_words
from .measured import measure

CONFIG = "config"          # BenchResult.sweep_dim when a result holds one point per config at one shape


@dataclass
class BenchResult:
    kind: str                          # "measured" or "modelled"
    kernel: str
    target: str
    device: str
    points: list                       # Measured or roofline.Model, one per shape (or per config)
    sweep_dim: str | None = None       # the swept dimension, or CONFIG when every config is timed at one shape
    reason: str = ""                   # why modelled (no GPU here, another target named)
    configs: list = field(default_factory=list)    # with CONFIG: each point's config, as the space gives it
    skipped: list = field(default_factory=list)    # with CONFIG: (config, why) for each one not timed
    over: str | None = None                        # with CONFIG: the dimension swept as well (--sweep), if any

    def as_dict(self) -> dict:
        d = {"kind": self.kind, "kernel": self.kernel, "target": self.target, "device": self.device,
             "sweep": self.sweep_dim, "reason": self.reason, "points": [p.as_dict() for p in self.points]}
        if self.sweep_dim == CONFIG:
            d["configs"] = self.configs
            d["skipped"] = [{"config": c, "why": why} for c, why in self.skipped]
            d["over"] = self.over
        if self.kind == "modelled":
            d["how_to_measure"] = MEASURE_HINT
        return d


def parse_sweep(text: str, spec) -> tuple[str, list[int]]:
    """`N=256..32768` -> ("N", [256, 512, ..., 32768]): doubling from LO up to HI, the range grammar
    `sweep -m` uses too (params.doubling). `N=100,1000,4096` lists the values instead."""
    dim, eq, values = text.partition("=")
    dim = dim.strip()
    if not eq or not dim or not values.strip():
        raise UserError(f"sweep '{text}': expected DIM=LO..HI (doubling from LO) or DIM=A,B,C", param="sweep")
    if dim not in spec.default_shape:
        raise UserError(f"sweep {dim}: {spec.name} has dimensions {', '.join(spec.default_shape)}", param="sweep")
    if ".." in values:
        return dim, doubling(values.strip(), f"sweep {dim}", param="sweep")
    try:
        points = [int(v) for v in values.split(",")]
    except ValueError:
        raise UserError(f"sweep '{text}': sizes are positive integers", param="sweep") from None
    if any(p < 1 for p in points):
        raise UserError(f"sweep '{text}': sizes are positive integers", param="sweep")
    return dim, points


def measurable(target) -> str:
    """Why this target cannot be measured here, or "" when it can."""
    native = targets.native()
    if native is None:
        return "no GPU on this machine"
    if native.name != target.name:
        return f"--target {target.label} is not this machine's GPU ({native.name})"
    try:
        import torch
    except ImportError:
        return "torch is not installed, and the measured path runs the kernel through it"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if target.gpu and not devices.same_gpu(target.gpu, torch.cuda.get_device_name()):
        return (f"--target {target.label} names the {devices.get(target).name}; this machine's GPU is the "
                f"{torch.cuda.get_device_name()}")
    return ""


def run(request, sweep: str | None = None, cuda_graph: bool = False, num_sms: int | None = None,
        progress: bool = False, configs: list[dict] | str | None = None) -> BenchResult:
    """Measure a request's kernel against PyTorch on the local GPU, or model it for its target: one
    shape, or a sweep of one dimension (`N=1024..65536`) over the request's shape. With `configs`, each
    of those configs at each shape: a list, or ALL for the kernel's whole space at that shape, pruned as
    its autotuner prunes (`bench --config all`: what an autotuner would time)."""
    spec, tgt = request.spec, request.target
    dim, values = parse_sweep(sweep, spec) if sweep else (None, [None])
    reason = measurable(tgt)
    if num_sms is not None and not reason:
        reason = "--num-sms describes another GPU"
    if reason and cuda_graph:
        reason += " (--cuda-graph applies to measurements only)"
    device = devices.with_num_sms(devices.get(tgt), num_sms) if reason else None
    shapes = [request.changed(shape={dim: value}) if dim else request for value in values]
    if configs:
        return _run_configs(shapes, configs, dim, reason, device, cuda_graph, progress)
    points = []
    with _progress(len(values), progress and len(values) > 1, f"{spec.name} {dim or ''}") as advance:
        for point in shapes:
            points.append(_modelled(point.compile(), device) if reason else measure(point, cuda_graph=cuda_graph))
            advance()
    kind = "modelled" if reason else "measured"
    name = device.name if device else points[0].device
    return BenchResult(kind=kind, kernel=spec.name, target=tgt.label, device=name, points=points,
                       sweep_dim=dim, reason=reason)


ALL = "all"        # configs=ALL: the kernel's whole autotune space, at each shape


def _modelled(compiled, device):
    modelled = roofline.model(compiled, device)
    with contextlib.suppress(UserError):     # a kernel the model cannot place keeps its roofline
        modelled.explained = explain.explain(compiled, device)
    return modelled


def _run_configs(shapes: list, configs, over: str | None, reason: str, device, cuda_graph: bool,
                 progress: bool) -> BenchResult:
    """Each config at each shape, in the space's order. A config that cannot launch on the GPU (too much shared
    memory, too many registers) is skipped, as is one that fails to compile or to match the reference: the others
    are still timed, and the result says why for each (a failure makes the command exit 1). On a GPU the PyTorch
    baseline and the empty launch are timed once a shape, with its first config, and shared."""
    from ..core.spec import split_config
    from ..sweep import space
    spec, tgt = shapes[0].spec, shapes[0].target
    per_shape = [(request, space.space(spec, None, request.config.shape, request.config.dtype, tgt)
                  if configs == ALL else configs) for request in shapes]
    points, kept, skipped = [], [], []
    total = sum(len(c) for _, c in per_shape)
    with _progress(total, progress, f"{spec.name} configs") as advance:
        for request, space_here in per_shape:
            shared = None
            at = f" (at {over}={request.config.shape[over]})" if over else ""
            for config in space_here:
                meta, warps, stages = split_config(config)
                try:
                    point = request.changed(meta=meta or None, num_warps=warps, num_stages=stages)
                    compiled = point.compile()
                    blocks, why = roofline.active_blocks(compiled)
                    if blocks == 0:
                        skipped.append((config, why + at))
                    elif reason:
                        points.append(_modelled(compiled, device))
                        kept.append(config)
                    else:
                        m = measure(point, cuda_graph=cuda_graph, shared=shared)
                        shared = shared or m
                        points.append(m)
                        kept.append(config)
                except UserError as e:
                    skipped.append((config, str(e) + at))
                except Exception as e:      # a kernel that fails (KernelFailure), or a launch the driver refuses
                    what = str(e) if isinstance(e, KernelFailure) else f"{type(e).__name__}: {e}"
                    skipped.append((config, f"failed: {what}{at}"))
                advance()
    if not points:
        reasons = list(dict.fromkeys(w for _, w in skipped))
        why = (reasons[0].removeprefix(f"{spec.name}: ") if len(reasons) == 1 else    # the kernel's: said once
               "; ".join(f"{config_words(c)}: {w}" for c, w in skipped) or "no configs")
        raise (KernelFailure if failed(skipped) else UserError)(f"{spec.name}: no config could be timed: {why}")
    kind = "modelled" if reason else "measured"
    return BenchResult(kind=kind, kernel=spec.name, target=tgt.label, device=device.name if device else points[0].device,
                       points=points, sweep_dim=CONFIG, reason=reason, configs=kept, skipped=skipped, over=over)


def failed(skipped: list) -> list:
    """The configs of `skipped` that failed (did not compile, run or match), not merely unlaunchable."""
    return [(c, why) for c, why in skipped if why.startswith("failed")]




@contextlib.contextmanager
def _progress(total: int, enabled: bool, label: str):
    """A rich progress bar on stderr for sweeps, drawn only on a terminal."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(label.strip(), total=total)
        yield lambda: bar.advance(task)
