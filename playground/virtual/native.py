"""`playground run` without --target on a machine with a GPU: the script runs on that GPU as it is, and every
launch is captured as on the virtual GPU, with its time measured.

What is captured is the JIT's own, as in capture.py: JITFunction.run is watched, not replaced (and so is a
compiled kernel launched directly, `kernel[grid](...)` after `warmup()`, as Triton's tutorials do); each new
binary is a variant, rebuilt through the project's pipeline and its hash compared with the JIT's, and its figures
(registers, spills, shared memory, occupancy) come from that Compiled. What differs is the time. Triton's
launcher calls its launch hooks (knobs.runtime.launch_enter_hook and launch_exit_hook) just before and just after
it enqueues the kernel; each records a CUDA event on the current stream, and once the script has ended the time
between the two is read. It is measured on the GPU's clock, not the host's: the kernel's time, and, when the
stream was idle as the launch began, the driver's submission of it too (a few microseconds), which only a
profiler's kernel records (CUPTI) leave out. The performance model's time stays beside it, labelled modelled.

Launches inside triton.testing.do_bench (hundreds a call) are timed the same way but kept per variant, as a
count and the median, and nothing else is done for them: bookkeeping on the host there would slow the loop the
script is timing. A launch while a CUDA graph is being captured records no event (it is not run then). torch is
imported here: this module runs only in `run`'s child, on a GPU.
"""
from __future__ import annotations

import statistics

from .. import compat
from . import capture, launches
from .capture import _bound, host_time


class NativeRecorder(capture.Recorder):
    """The capture of capture.Recorder on a real GPU: kernels run there, their times read from CUDA events."""

    AUTOTUNE_TIMES = "measured_ms"

    def __init__(self, gpu):
        super().__init__(gpu, execute=True)
        import torch
        self._torch = torch
        self.base = torch.cuda.Event(enable_timing=True)     # the GPU clock's zero, for the timeline
        self.base.record()
        self.timed: dict[str, list] = {}        # variant hash -> [{start, end} events] of launches in timing loops
        self.unwatched = 0                      # launches the hooks saw that came neither through the JIT nor direct

    def picked_by(self) -> str:
        return "timed on this GPU by Triton's autotuner"

    # --- launches through the JIT --------------------------------------------------------------------
    def run(self, original, jit, args, kwargs, grid, warmup):
        if self.current is not None:                # a launch from inside a hook: not the script's
            return original(jit, *args, grid=grid, warmup=warmup, **kwargs)
        if self.timing_depth > 0 and not warmup:
            return self._timed(jit, lambda: original(jit, *args, grid=grid, warmup=warmup, **kwargs),
                               lambda: _bound(jit, args, kwargs), grid)
        kernel, record = self._watched(original, jit, args, kwargs, grid, warmup, self._torch.cuda.current_device())
        if kernel is not None:
            self._finish_native(jit, kernel, record, _bound(jit, args, kwargs), None if warmup else grid)
        self._close(record)
        return kernel

    # --- a compiled kernel launched directly: kernel[grid](...) ------------------------------------------
    def direct(self, kernel, grid, args, launch):
        """CompiledKernel's launch, watched: `launch()` enqueues it (its hooks fire inside)."""
        jit = getattr(kernel.src, "fn", None)
        if self.current is not None or jit is None:     # inside a JIT launch, or a kernel from IR: not watched
            return launch()
        values = list(args)
        if self.timing_depth > 0:
            return self._timed(jit, lambda: (launch(), kernel)[1], lambda: values, grid)
        self.host_clock += self._since_mark()
        record = self._record(jit, options={}, new_compile=False, direct=True)
        self.current = record
        start = host_time()
        try:
            launch()
        finally:
            self.current = None
        record["host_dispatch_seconds"] = max(host_time() - start - record["own_seconds"], 0.0)
        self._finish_native(jit, kernel, record, values, grid)
        self._close(record)

    # --- what both do ------------------------------------------------------------------------------------
    def _finish_native(self, jit, kernel, record, values, grid):
        """The record completed as the virtual launcher would: arguments, grid (None for a warmup), the variant."""
        record["args"] = launches.describe_args(jit, values)
        if grid is not None:
            shape = grid(dict(zip(jit.arg_names, values))) if callable(grid) else grid
            record["grid"] = [*shape, 1, 1][:3] if len(shape) < 3 else list(shape[:3])
            record["_values"] = values
            record["executed"] = True
        self._finish(jit, kernel, record)

    def _close(self, record):
        record.pop("own_seconds", None)
        self.host_clock += record["host_dispatch_seconds"]
        self._mark()

    def _timed(self, jit, launch, values, grid):
        """A launch inside a timing loop: its two events, kept for its variant, and nothing else on the host
        (the loop times the GPU; a variant first seen here is recorded once, in full)."""
        record = {"own_seconds": 0.0}
        self.current = record
        try:
            kernel = launch()
        finally:
            self.current = None
        if kernel is None:
            return kernel
        if kernel.hash not in self.variants:
            full = self._record(jit, options={}, new_compile=True)
            full["host_dispatch_seconds"] = 0.0
            self._finish_native(jit, kernel, full, values(), grid)
            self.launches.remove(full)          # it stands for its variant; the loop's launches are counted
            self.variants[kernel.hash]["launches"] -= 1
        variant = self.variants[kernel.hash]
        variant["timed_launches"] = variant.get("timed_launches", 0) + 1
        if "_events" in record:
            self.timed.setdefault(kernel.hash, []).append(record["_events"])
        return kernel

    def _model(self, jit, kernel, record, variant, values):
        super()._model(jit, kernel, record, variant, values)
        record.pop("gpu_start", None)           # the virtual schedule's placement: the events give the real one
        record.pop("gpu_end", None)

    # --- Triton's launch hooks ---------------------------------------------------------------------------
    def enter(self, metadata):
        """launch_enter_hook: the stream noted, then, as the last thing before the launch, an event on it."""
        record = self.current
        if record is None:
            self.unwatched += 1
            return
        if self._torch.cuda.is_current_stream_capturing():      # a graph being captured: nothing runs now
            return
        data = getattr(metadata, "data", None) or {}          # the LazyDict's own fields, its extras not run
        record["stream"] = int(data.get("stream") or 0)
        event = self._torch.cuda.Event(enable_timing=True)
        record["_events"] = {"start": event}
        event.record()

    def exit(self, metadata):
        """launch_exit_hook: an event on the stream, first thing after the launch."""
        record = self.current
        if record is None or "_events" not in record:
            return
        event = self._torch.cuda.Event(enable_timing=True)
        event.record()
        record["_events"]["end"] = event

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
    """Watch every launch (through the JIT, and a compiled kernel's own), time it through the launch hooks, count
    timing loops, keep compiling out of the launch's time, hear autotune's picks where Triton reports them."""
    import triton.testing
    from triton import knobs
    CompiledKernel, JITFunction = compat.reach("CompiledKernel"), compat.reach("JITFunction")
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        return recorder.run(original, self, args, kwargs, grid, warmup)

    JITFunction.run = run
    capture.watch_compiles(recorder)
    compiled_getitem = CompiledKernel.__getitem__

    def getitem(kernel, grid):
        launch = compiled_getitem(kernel, grid)

        def watched(*args, stream=None):
            return recorder.direct(kernel, grid, args, lambda: launch(*args, stream=stream))
        return watched

    CompiledKernel.__getitem__ = getitem
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
