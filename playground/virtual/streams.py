"""The virtual GPU's streams and events, as torch.cuda hands them to a script (torch_device.install puts them there).

Each stream is its own queue on the virtual GPU (gpu.py's rules); an event stamps when the work queued before it
ends, on the modelled clock; the host waits through `_state["host_waits"]`, which the capture connects to its
clock (session.py). Nothing here is measured.
"""
from __future__ import annotations

import torch


# what install() set up: the VirtualGPU, the current stream, and the host's modelled clock (session.py
# connects it to the capture's; a process that only reads kernels has none, and waits for nothing)
_state: dict = {"gpu": None, "stream": None, "host_now": lambda: 0.0, "host_waits": lambda until: None,
                "fresh_memory": None,     # called on each GPU tensor torch allocates uninitialised (FRESH_MEMORY)
                "allocator": None}        # allocator.Tracker: the caching allocator's model, fed the GPU storages


def _stream_id(stream) -> int:
    return (stream or _state["stream"]).cuda_stream


class Event:
    """A CUDA event on a virtual stream. Recording it stamps when the work queued before it on that stream
    ends, or the host's time if the stream is idle then (modelled, never measured)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, **_):
        self.enable_timing, self.stamp = enable_timing, None

    def record(self, stream=None):
        self.stamp = max(_state["gpu"].end_of(_stream_id(stream)), _state["host_now"]())

    def synchronize(self):
        """The host waits until the event has happened (at once, for an event never recorded)."""
        if self.stamp is not None:
            _state["host_waits"](self.stamp)

    def query(self) -> bool:
        return self.stamp is None or self.stamp <= _state["host_now"]()

    def wait(self, stream=None):
        """Work queued later on `stream` (the current one by default) starts after this event."""
        _state["gpu"].wait(_stream_id(stream), self.stamp)

    def elapsed_time(self, end) -> float:
        """Milliseconds between two recorded events, on the modelled clock (never measured)."""
        if self.stamp is None or end.stamp is None:
            raise RuntimeError("elapsed_time: both events must be recorded first")
        return (end.stamp - self.stamp) * 1e3


class Stream:
    """A stream of the virtual GPU: its own queue, placed beside the others by VirtualGPU.schedule (gpu.py).
    PyTorch creates its streams non-blocking (c10/cuda/CUDAStream.cpp, cudaStreamNonBlocking), so they do
    not wait for the default stream, nor it for them, unless an event or wait_stream says so."""

    _next = 1

    def __init__(self, device=None, priority=0, **_):
        self.device = torch.device("cuda", 0)
        self.priority = priority
        self.cuda_stream = Stream._next
        Stream._next += 1

    @classmethod
    def default(cls) -> "Stream":
        """The default stream: 0, as torch.cuda.default_stream().cuda_stream is on a GPU."""
        stream = cls.__new__(cls)
        stream.device, stream.priority, stream.cuda_stream = torch.device("cuda", 0), 0, 0
        return stream

    def synchronize(self):
        """The host waits for the work queued on this stream."""
        _state["host_waits"](_state["gpu"].end_of(self.cuda_stream))

    def query(self) -> bool:
        return _state["gpu"].end_of(self.cuda_stream) <= _state["host_now"]()

    def wait_stream(self, other):
        """Work queued later on this stream starts after the work queued so far on `other`."""
        self.wait_event(other.record_event())

    def wait_event(self, event):
        event.wait(self)

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __enter__(self):
        self._before, _state["stream"] = _state["stream"], self
        return self

    def __exit__(self, *exc):
        _state["stream"] = self._before
        return False

    def __eq__(self, other): return isinstance(other, Stream) and other.cuda_stream == self.cuda_stream
    def __hash__(self): return hash(self.cuda_stream)


class ExternalStream(Stream):
    """torch.cuda.ExternalStream(ptr): a stream made elsewhere, named by its raw handle. The handle is one this
    virtual GPU gave out (`torch._C._cuda_getCurrentRawStream`, `.cuda_stream`), so it is that stream's queue."""

    def __init__(self, stream_ptr, device=None, **_):
        self.device, self.priority, self.cuda_stream = torch.device("cuda", 0), 0, int(stream_ptr)


def current_raw_stream(device=None) -> int:
    """torch._C._cuda_getCurrentRawStream(device): the current stream's raw handle, as code that launches on it
    takes it (bitsandbytes' wrappers pass it to their C functions; Inductor's wrappers `get_raw_stream(0)`).
    torch's CUDA builds define it in C (torch/csrc/cuda/Module.cpp, torch 2.11 to 2.15), where it asks the CUDA
    runtime; CPU builds have none. Here it is the virtual stream's number: 0 for the default stream."""
    return _state["stream"].cuda_stream
