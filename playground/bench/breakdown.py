"""Where one call's time goes, on a GPU: host-to-device copies, launch, kernel, copies back, sync."""
from __future__ import annotations

from dataclasses import dataclass

from .. import compat
from ..core import devices
from ..errors import UserError
from . import measured, throughput
from .timing import Timing


@dataclass
class Breakdown:
    kernel: str
    device: str
    shape: dict
    dtype: str
    rows: list[tuple[str, Timing, str]]   # (component, timing, how it was measured)
    total: Timing                          # one whole call, end to end, measured on its own
    kind: str = "measured"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "kernel": self.kernel, "device": self.device, "shape": self.shape,
                "dtype": self.dtype, "total": self.total.as_dict(),
                "rows": [{"component": c, "how": how, **t.as_dict()} for c, t, how in self.rows]}


def breakdown(request, reps: int = 20) -> Breakdown:
    """One call from host data to host result, in parts: copy in, launch, kernel, copy out, sync."""
    why = throughput.measurable(request.target)
    if why:
        raise UserError(f"breakdown measures on the GPU and needs a CUDA device: {why}", param="breakdown")
    return _breakdown(request.spec, request.config, reps, devices.get(request.target))


def _breakdown(spec, config, reps: int, row=None) -> Breakdown:
    import time

    import torch

    launch, inputs, out_gpu, check = measured._prepare(spec, config, row=row)
    device = next(iter(inputs.values())).device
    host = {k: v.cpu() for k, v in inputs.items()}
    launch()                       # compile and warm up outside the timings
    torch.cuda.synchronize()
    check("before timing")
    samples = {k: [] for k in ("h2d", "launch", "kernel", "d2h", "sync", "total")}
    for _ in range(reps):
        # host -> device: pageable host memory, as a user's tensors usually are
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        copies = {k: v.to(device) for k, v in host.items()}
        end.record()
        torch.cuda.synchronize()
        samples["h2d"].append(start.elapsed_time(end))
        del copies
        # launch: host time until the launch call returns (argument binding, cache lookup, driver call)
        t0 = time.perf_counter()
        launch()
        samples["launch"].append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        # kernel: GPU time alone; a sleep keeps the GPU busy while the host enqueues, so the
        # start event fires right before the kernel, not when the host began launching
        compat.reach("cuda_sleep")(1_000_000)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        samples["kernel"].append(start.elapsed_time(end))
        # device -> host
        start.record()
        for v in out_gpu.values():
            v.to("cpu")
        end.record()
        torch.cuda.synchronize()
        samples["d2h"].append(start.elapsed_time(end))
        # sync: what torch.cuda.synchronize() costs when nothing is left to wait for
        t0 = time.perf_counter()
        torch.cuda.synchronize()
        samples["sync"].append((time.perf_counter() - t0) * 1e3)
        # the whole call, end to end, on its own
        t0 = time.perf_counter()
        for k, v in host.items():
            inputs[k].copy_(v)
        launch()
        torch.cuda.synchronize()
        for v in out_gpu.values():
            v.to("cpu")
        samples["total"].append((time.perf_counter() - t0) * 1e3)
    check("after timing")
    labels = [("host-to-device copy", "h2d", "CUDA events around the input copies (pageable memory)"),
              ("launch overhead", "launch", "host wall time of the launch call"),
              ("kernel", "kernel", "CUDA events, GPU kept busy while the host enqueues"),
              ("device-to-host copy", "d2h", "CUDA events around the output copies"),
              ("synchronisation", "sync", "host wall time of torch.cuda.synchronize() on an idle GPU")]
    return Breakdown(kernel=spec.name, device=torch.cuda.get_device_name(), shape=dict(config.shape),
                     dtype=config.dtype, rows=[(label, Timing(samples[k]), how) for label, k, how in labels],
                     total=Timing(samples["total"]))

