"""Synchronisation points: the calls that make the host wait for the virtual GPU, and until when (modelled).

A kernel launch returns once the kernel is queued, and so does an ATen op on a GPU machine: the host runs ahead of
the GPU, queuing work, until it needs something only the GPU has. These calls wait for it:
- torch.cuda.synchronize(): everything queued on every stream (cudaDeviceSynchronize);
- Stream.synchronize(), Event.synchronize(): that stream's queued work, that event (cudaStreamSynchronize,
  cudaEventSynchronize);
- reading a GPU tensor's value on the host: Tensor.item(), bool(t) (an `if`, an `assert`), int(t), float(t),
  printing or formatting it, torch.equal and torch.allclose (their answer is a Python bool). PyTorch copies the
  value on the current stream and then calls cudaStreamSynchronize (aten/src/ATen/native/cuda/CUDAScalar.cpp,
  _local_scalar_dense_cuda: `at::cuda::memcpy_and_sync`), so the host waits for the current stream's queued work;
  printing reads values the same way;
- ops whose output's size depends on the data (nonzero, argwhere, masked_select, unique, indexing with a boolean
  mask): the size is read back the same way before the output can be allocated;
- a blocking copy between host and GPU (copies.py).
The wait is modelled: the host's clock moves on to when gpu.py's model says that queue drains (as far as copies and
Triton kernels fill it: ATen ops' own kernels are not modelled, dispatch.py). PyTorch's streams are non-blocking
(torch_device.Stream), so waiting for the current stream does not wait for the others'.
"""
from __future__ import annotations

import torch

from .torch_device import on_gpu

# Tensor methods (and their torch.* forms) that read a value of a GPU tensor on the host: what the trace calls them
READS = {"item": "Tensor.item()", "__bool__": "bool(tensor)", "__int__": "int(tensor)", "__float__": "float(tensor)",
         "__index__": "a tensor as an index", "__complex__": "complex(tensor)"}
PRINTS = {"__repr__": "printing a tensor", "__str__": "printing a tensor", "__format__": "formatting a tensor"}
ANSWERS = {"equal": "torch.equal (its answer is a Python bool)",
           "allclose": "torch.allclose (its answer is a Python bool)"}
SIZED_BY_DATA = {"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive"}
WATCHED = set(READS) | set(PRINTS) | set(ANSWERS) | SIZED_BY_DATA | {"__getitem__"}


def what(name: str, args: tuple, kwargs: dict) -> str | None:
    """What makes this call a sync point, in words, or None: not one (or not on a GPU tensor)."""
    tensor = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if tensor is None or not on_gpu(tensor):
        return None
    if name in READS:
        return READS[name]
    if name in PRINTS:
        return f"{PRINTS[name]} (the values it reads, one sync point here)"
    if name in ANSWERS:
        return ANSWERS[name]
    if name in SIZED_BY_DATA:
        return f"torch.{name} (its output's size depends on the data)"
    if name == "__getitem__" and len(args) > 1 and _boolean_mask(args[1]):
        return "indexing with a boolean mask (its output's size depends on the data)"
    return None


def _boolean_mask(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in items)


def install(host) -> None:
    """torch.cuda.synchronize, Stream.synchronize and Event.synchronize wait through `host.wait`, each named (the
    virtual GPU's own streams and events, torch_device.py, call `_state["host_waits"]`)."""
    from . import torch_device
    torch.cuda.synchronize = lambda device=None: host.wait("torch.cuda.synchronize()", None, None)
    torch_device._state["host_waits"] = lambda until: host.wait(*(host.reason or ("a wait for the GPU", None)), until)
    for cls, words in ((torch_device.Stream, "Stream.synchronize()"), (torch_device.Event, "Event.synchronize()")):
        original = cls.synchronize
        if getattr(original, "named", False):
            continue

        def synchronize(self, _original=original, _words=words):
            before, host.reason = host.reason, (_words, getattr(self, "cuda_stream", None))
            try:
                return _original(self)
            finally:
                host.reason = before

        synchronize.named = True
        cls.synchronize = synchronize
