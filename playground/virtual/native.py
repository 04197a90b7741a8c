"""`playground run` without --target on a machine with a GPU: the script runs on that GPU as it is, and every
launch is captured as on the virtual GPU, with its time measured.

What is captured is the JIT's own, as in capture.py: JITFunction.run is watched, not replaced; each new binary
is a variant, rebuilt through the project's pipeline and its hash compared with the JIT's, and its figures
(registers, spills, shared memory, occupancy) come from that Compiled. What differs is the time: Triton's launch
hooks (knobs.runtime.launch_enter_hook and launch_exit_hook, which its launcher calls just before and just after
it enqueues the kernel) record a CUDA event on the current stream on each side, and once the script has ended
the time between them is read: the kernel's time on the GPU, as CUDA events give it (the stream's own clock,
not the host's), for every launch outside a timing loop. The performance model's time stays beside it,
labelled modelled.

Launches inside triton.testing.do_bench (hundreds a call) are timed the same way but kept per variant, as a
count and the median, rather than listed one by one. A launch while a CUDA graph is being captured records no
event (it is not run then). torch is imported here: this module runs only in `run`'s child, on a GPU.
"""
from __future__ import annotations

import statistics

from . import capture, launches
from .capture import _bound


class NativeRecorder(capture.Recorder):
    """The capture of capture.Recorder on a real GPU: kernels run there, their times read from CUDA events."""

    def __init__(self, gpu):
        super().__init__(gpu, execute=True)
        import torch
        self._torch = torch
        self.base = torch.cuda.Event(enable_timing=True)     # the GPU clock's zero, for the timeline
        self.base.record()
        self.timed: dict[str, list] = {}        # variant hash -> [(start, end) events] of launches in timing loops
        self.unwatched = 0                      # launches the hooks saw with no JIT launch around them

    # --- the JIT's run, watched, and the launch timed -----------------------------------------------
    def run(self, original, jit, args, kwargs, grid, warmup):
        if self.current is not None:                # a launch from inside a hook: not the script's
            return original(jit, *args, grid=grid, warmup=warmup, **kwargs)
        kernel, record = self._watched(original, jit, args, kwargs, grid, warmup, self._torch.cuda.current_device())
        if kernel is not None:
            values = _bound(jit, args, kwargs)
            record["args"] = launches.describe_args(jit, values)
            if not warmup:
                shape = grid(dict(zip(jit.arg_names, values))) if callable(grid) else grid
                record["grid"] = [*shape, 1, 1][:3] if len(shape) < 3 else list(shape[:3])
                record["_values"] = values
                record["executed"] = True
            if not warmup and self.timing_depth > 0:
                self._timed(jit, kernel, record)
            else:
                self._finish(jit, kernel, record)
        record.pop("own_seconds", None)
        self.host_clock += record["host_dispatch_seconds"]
        self._mark()
        return kernel

    def _timed(self, jit, kernel, record):
        """A launch inside a timing loop: its events kept for its variant, not a row of its own."""
        variant = self.variants.get(kernel.hash) or self._new_variant(jit, kernel, record)
        record.pop("_values", None)
        self._figures(jit, variant, record)
        variant["timed_launches"] = variant.get("timed_launches", 0) + 1
        if record.get("_events"):
            self.timed.setdefault(kernel.hash, []).append(record["_events"])

    def _model(self, jit, kernel, record, variant, values):
        super()._model(jit, kernel, record, variant, values)
        record.pop("gpu_start", None)           # the virtual schedule's placement: the events give the real one
        record.pop("gpu_end", None)

    def enter(self, metadata):
        """Triton's launch_enter_hook: an event on the stream just before the kernel is enqueued."""
        self._event("start", metadata)

    def exit(self, metadata):
        self._event("end", metadata)

    def _event(self, side: str, metadata):
        if self.current is None:
            self.unwatched += side == "start"
            return
        if self._torch.cuda.is_current_stream_capturing():      # a graph being captured: nothing runs now
            return
        event = self._torch.cuda.Event(enable_timing=True)
        event.record()
        events = self.current.setdefault("_events", {})
        events[side] = event
        if side == "start" and metadata is not None:
            self.current["stream"] = int(metadata.get().get("stream") or 0)

    def autotuned(self, fn, key, best_config, configs_timings, duration, cache_hit, **_):
        self.autotune.append({"kernel": fn.__name__, "key": [str(k) for k in key], "best": str(best_config),
                              "measured_ms": {str(c): (t[0] if isinstance(t, list) else t)
                                              for c, t in configs_timings.items()}})
        self.say(f"autotune {fn.__name__}: picked {best_config}, timed on this GPU by Triton's autotuner")

    # --- the times, read once the script has ended ---------------------------------------------------
    def as_dict(self) -> dict:
        torch = self._torch
        torch.cuda.synchronize()
        busy = 0.0
        for record in self.launches:
            events = record.pop("_events", None)
            if events and "start" in events and "end" in events:
                record["measured_seconds"] = events["start"].elapsed_time(events["end"]) * 1e-3
                record["gpu_start"] = self.base.elapsed_time(events["start"]) * 1e-3
                record["gpu_end"] = record["gpu_start"] + record["measured_seconds"]
                busy += record["measured_seconds"]
        for variant in self.variants.values():
            pairs = [e for e in self.timed.get(variant["hash"], []) if "start" in e and "end" in e]
            if pairs:
                times = [e["start"].elapsed_time(e["end"]) * 1e-3 for e in pairs]
                variant["timed"] = {"launches": len(times), "median_seconds": statistics.median(times),
                                    "min_seconds": min(times)}
        out = super().as_dict()
        out.update(native=True, gpu_seconds=busy, unwatched_launches=self.unwatched,
                   device=torch.cuda.get_device_name(torch.cuda.current_device()))
        return out


def install(recorder: NativeRecorder):
    """Watch every JIT launch, time it through the launch hooks, count timing loops, hear autotune's picks."""
    import triton.testing
    from triton import knobs
    from triton.runtime.jit import JITFunction
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        return recorder.run(original, self, args, kwargs, grid, warmup)

    JITFunction.run = run
    knobs.runtime.launch_enter_hook.add(recorder.enter)
    knobs.runtime.launch_exit_hook.add(recorder.exit)
    for name in ("do_bench", "do_bench_cudagraph"):
        timed = getattr(triton.testing, name)

        def counted(*args, _timed=timed, **kwargs):
            recorder.timing_depth += 1
            try:
                return _timed(*args, **kwargs)
            finally:
                recorder.timing_depth -= 1
        setattr(triton.testing, name, counted)
    knobs.autotuning.listener = recorder.autotuned


def native_label() -> str:
    """The GPU here as a target label: its architecture, or the named part of devices.VARIANTS the driver's name
    is (an H100 PCIe, an H200), so that its figures are that part's."""
    import torch

    from ..core import devices, targets
    target = targets.native()
    name = torch.cuda.get_device_name(torch.cuda.current_device())
    row = devices.for_driver_name(target, name)
    named = [label for label, device in devices.VARIANTS.items() if device is row]
    return named[0] if named else target.label
