"""The host side of a run: besides its Triton launches (capture.py), what the script's host did with the GPU, in the
order it did it: copies between host and GPU (copies.py), the sync points where it waited (syncs.py), and, with
`run --ops`, every ATen op it issued on GPU tensors (dispatch.py).

A TorchFunctionMode above the device mode (torch_device.DeviceMode) sees each call as the script wrote it, with
its "cuda" devices still named: `x.to("cuda", non_blocking=True)`, `t.item()`, `torch.randn(..., device="cuda")`,
`.pin_memory()` (a view marked page-locked: copies.pinned). Each record carries `seq` (its place among these
records), `after_launch` (how many Triton launches came before it), `site` (the script's file:line) and `host_time`
(the host clock, capture.py: the script's CPU time here plus the modelled waits). The bookkeeping's own time is
taken off the host clock (Recorder.aside).

Limits: the mode is the script's thread's (torch's modes are thread-local), and a custom autograd Function's
backward runs with the device mode alone (torch_device._autograd_on_gpu), so a copy or a sync point inside one is
not seen. The host clock keeps the CPU time torch spends computing its own ops here, which on a GPU machine would
be the GPU's (the host only queues them).
"""
from __future__ import annotations

import contextlib
import functools
import sys
from pathlib import Path

import torch
import triton
from torch.overrides import TorchFunctionMode

from .. import compat
from . import copies, dispatch, syncs, torch_device
from .torch_device import on_gpu

_TORCH = str(Path(torch.__file__).parent)        # as frames name torch's files (imported from there)
_LIBRARY = tuple(str(Path(m.__file__).resolve().parent) for m in (triton, torch)) + \
    (str(Path(__file__).resolve().parents[1]),)


@functools.lru_cache(maxsize=None)
def _script_file(filename: str) -> bool:
    """As capture's launch sites: a frame outside Triton, torch and playground (and not frozen) is the script's."""
    if filename.startswith("<"):
        return not filename.startswith("<frozen")
    return not str(Path(filename).resolve()).startswith(_LIBRARY)


def site() -> str:
    """file:line of the innermost frame that is the script's."""
    frame = sys._getframe(1)
    while frame is not None:
        if _script_file(frame.f_code.co_filename):
            return f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


class HostSide:
    def __init__(self, recorder, gpu, trace_ops: bool = False):
        self.recorder, self.gpu = recorder, gpu
        self.engines = copies.CopyEngines(gpu)
        self.copies: list[dict] = []
        self.syncs: list[dict] = []
        self.ops: list[dict] | None = [] if trace_ops else None
        self.trace: dispatch.OpTrace | None = None
        self.reason: tuple[str, int | None] | None = None      # what is waiting now (syncs.install)
        self.gpu_calls = 0          # > 0 inside a call that names a GPU device: its ops are the GPU's
        self.quiet = 0              # > 0 inside a copy or a print: its ops are not listed one by one
        self._seq = 0

    # --- records ---------------------------------------------------------------------------------------------------
    def _stamp(self) -> dict:
        """The fields every record has; called inside Recorder.aside, where the host clock stands still."""
        self._seq += 1
        return {"seq": self._seq, "after_launch": len(self.recorder.launches), "site": site(),
                "host_time": self.recorder.host_clock}

    def listening(self) -> bool:
        """Whether an ATen op now is the script's (not inside a copy, a print, or the capture's own work)."""
        return self.quiet == 0 and self.recorder.current is None

    def op(self, record: dict) -> None:
        with self.recorder.aside():
            self.ops.append(self._stamp() | {"stream": current_stream()} | record)

    def wait(self, what: str, stream: int | None, until: float | None, **more) -> None:
        """The host waits for the GPU until `until` (None: everything queued, torch.cuda.synchronize); recorded."""
        with self.recorder.aside():
            self._wait(what, stream, until, **more)

    def _wait(self, what, stream, until, **more) -> None:
        record = self._stamp()
        until = self.gpu.stream_end if until is None else until
        self.recorder.synchronize(until)
        record.update(what=what, stream=stream, until=max(record["host_time"], until),
                      wait_seconds=max(0.0, until - record["host_time"]), **more)
        self.syncs.append(record)

    def copied(self, request: copies.Request, result) -> None:
        with self.recorder.aside():
            nbytes = request.nbytes if request.nbytes is not None else result.numel() * result.element_size()
            stream = current_stream()
            record = self._stamp()
            start, end, seconds = self.engines.place(request.direction, stream, record["host_time"], nbytes)
            record.update(call=request.call, direction=request.direction, bytes=nbytes,
                          host_memory="pinned" if request.pinned else "pageable", non_blocking=request.non_blocking,
                          blocks_host=request.blocks_host, stream=stream, gpu_start=start, gpu_end=end,
                          modelled_seconds=seconds)
            self.copies.append(record)
            if request.blocks_host:
                self._wait(f"{request.call}: a blocking copy {request.direction}", stream, end,
                           copy=len(self.copies) - 1)

    def as_dict(self) -> dict:
        out = {"copies": self.copies, "syncs": self.syncs, "host_link": self.engines.as_dict()}
        if self.ops is not None:
            out |= {"ops": self.ops, **(self.trace.as_dict() if self.trace else {})}
        return out

    # --- a call of the script's --------------------------------------------------------------------------------------
    def handle(self, func, name: str, args: tuple, kwargs: dict):
        tensor = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if name == "pin_memory" and tensor is not None and not on_gpu(tensor):
            return copies.pinned(tensor)
        if name == "is_pinned" and tensor is not None:
            return copies.is_pinned(tensor)
        if kwargs.get("pin_memory"):        # torch.empty(..., pin_memory=True): the CPU build has no pinned allocator
            return copies.pinned(func(*args, **{k: v for k, v in kwargs.items() if k != "pin_memory"}))
        request = copies.requested(name, args, kwargs)
        if request is not None:
            with self._quiet():
                result = func(*args, **kwargs)
            self.copied(request, result)
            if name == "to" and request.direction == copies.D2H and request.pinned:
                copies.mark_pinned(result)          # PyTorch pins what a non_blocking copy to the host returns
            return result
        waits_for = syncs.what(name, args, kwargs)
        if waits_for is not None:
            with self._quiet() if name in syncs.PRINTS else contextlib.nullcontext():
                result = func(*args, **kwargs)
            stream = current_stream()
            self.wait(waits_for, stream, self.gpu.end_of(stream))
            return result
        if name == "numpy" and tensor is not None and on_gpu(tensor):
            self.recorder.say(f"Tensor.numpy() of a GPU tensor at {site()}: on a GPU machine this raises TypeError "
                              f"(call .cpu() first); here it reads the CPU's copy, no sync point recorded")
        if not _names_gpu_device(kwargs.get("device")):
            return func(*args, **kwargs)
        self.gpu_calls += 1             # a factory on the GPU (torch.randn(..., device="cuda")): its ops are the GPU's
        try:
            return func(*args, **kwargs)
        finally:
            self.gpu_calls -= 1

    @contextlib.contextmanager
    def _quiet(self):
        self.quiet += 1
        try:
            yield
        finally:
            self.quiet -= 1


def current_stream() -> int:
    return torch_device._state["stream"].cuda_stream


# the calls the mode looks at; any other passes straight through (unless it names a GPU device, or pins memory)
WATCHED = {"to", "cuda", "cpu", "copy_", "tolist", "tensor", "as_tensor", "asarray", "pin_memory", "is_pinned",
           "numpy"} | syncs.WATCHED


class HostSideMode(TorchFunctionMode):
    def __init__(self, host: HostSide):
        super().__init__()
        self.host = host

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name not in WATCHED and not kwargs.get("pin_memory") and not _names_gpu_device(kwargs.get("device")):
            return func(*args, **kwargs)
        if _from_device_mode():
            return func(*args, **kwargs)      # the device mode's own call, its devices mapped already
        return self.host.handle(func, name, args, kwargs)


def _names_gpu_device(value) -> bool:
    return value is not None and bool(copies.names_gpu(value))


def _from_device_mode() -> bool:
    """Whether the call comes from torch_device.DeviceMode: re-entered above this mode while a library's CUDA
    kernel runs (torch_device.CudaKernels), it hands on calls whose devices it has mapped to the CPU already."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_TORCH):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename == torch_device.__file__


def install(recorder, gpu, trace_ops: bool = False) -> HostSide:
    """Watch the script's host side (in the child only, after torch_device.install): the mode above the device
    mode, the named waits, and with `trace_ops` the dispatch trace."""
    host = HostSide(recorder, gpu, trace_ops)
    recorder.host_side = host
    syncs.install(host)
    HostSideMode(host).__enter__()
    if trace_ops:
        compat.reach("dynamo")  # the first op under a dispatch mode imports it: 1-2 s, not the script's
        host.trace = dispatch.OpTrace(host)
        host.trace.__enter__()
    return host
