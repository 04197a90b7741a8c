"""Copies between the host and the virtual GPU: which calls copy, which of them block the host, and when each
runs on a copy engine (modelled, never measured).

Which block the host. PyTorch copies between host and GPU with cudaMemcpyAsync on the current stream; with
non_blocking=False it then calls cudaStreamSynchronize (aten/src/ATen/native/cuda/Copy.cu, copy_kernel_cuda:
`at::cuda::memcpy_and_sync`), so the host waits until the copy, and all queued before it on the stream, has ended.
With non_blocking=True it is cudaMemcpyAsync alone, which the CUDA Runtime API's "API synchronization behavior"
(docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html, "Asynchronous") describes so:
- "For transfers between device memory and pageable host memory, the function might be synchronous with respect
  to host", and "if pageable memory must first be staged to pinned memory, the driver may synchronize with the
  stream and stage the copy into pinned memory": taken here as synchronous, the host waiting until the copy has
  ended (its staging is not modelled apart from the transfer);
- "For all other transfers, the function should be fully asynchronous": from or into page-locked (pinned) memory the
  host goes on at once, and the copy can overlap kernels of other streams (CUDA C++ Programming Guide, "Overlap of
  Data Transfer and Kernel Execution": host memory in such a copy must be page-locked).
`x.to("cpu", non_blocking=True)` is asynchronous: PyTorch allocates its result pinned (TensorConversions.cpp,
_to_copy's `pin_out`); `.cpu()`, `.tolist()` and a `copy_` into pageable memory are not.

When (modelled). A copy starts once the host has issued it, the work queued before it on its stream has ended, and
its direction's copy engine is free (one engine per direction, an assumption: the GPUs here have more, which serve
copies of different streams), and it lasts its bytes over the host link's line rate per direction (core/devices.py:
PCIe 4.0 or 5.0 x16). A line rate is an upper bound on the rate, so the time is a lower bound; a copy from pageable
memory is slower still on a real machine (staged through a pinned buffer), which is not modelled: a pinned and a
pageable copy differ here in who waits, not in how long the transfer takes. `.pin_memory()` itself (a copy into
page-locked memory on the host) costs what the CPU spends here, not what a real pinning costs.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .. import compat
from ..core import devices
from .torch_device import on_gpu

_PINNED = "_playground_pinned"     # the mark a tensor the script pinned carries (its data is the CPU's as before)
H2D, D2H = "H2D", "D2H"


def is_pinned(tensor) -> bool:
    return bool(getattr(tensor, _PINNED, False))


def mark_pinned(tensor):
    """`tensor` marked as page-locked (what `.to("cpu", non_blocking=True)` returns: PyTorch pins it)."""
    setattr(tensor, _PINNED, True)
    return tensor


def pinned(tensor):
    """What `.pin_memory()` gives: a tensor in page-locked memory. Here a view of the same data, marked so (the
    original stays pageable, as on a GPU machine, where pin_memory() returns a copy)."""
    with compat.disable_torch_function():
        view = tensor.view_as(tensor)
    return mark_pinned(view)


@dataclass
class Request:
    """A copy a call asks for, read from the call before it runs."""
    direction: str          # H2D or D2H
    call: str               # the script's call, in words: "Tensor.to(non_blocking=True)"
    pinned: bool            # its host side is page-locked
    non_blocking: bool
    nbytes: int | None      # None: the result's size, once it is made (torch.tensor's data is a Python object)

    @property
    def blocks_host(self) -> bool:
        return not (self.non_blocking and self.pinned)


def names_gpu(value) -> bool | None:
    """True for a GPU device (a name, a torch.device, an index), False for the CPU, None for anything else."""
    if isinstance(value, torch.device):
        return value.type in ("cuda", "hip")
    if isinstance(value, str):
        kind = value.split(":")[0]
        return True if kind in ("cuda", "hip") else False if kind == "cpu" else None
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    return None


def _bytes(tensor) -> int:
    return tensor.numel() * tensor.element_size()


def requested(name: str, args: tuple, kwargs: dict) -> Request | None:
    """The copy between host and GPU this call makes (`to`, `cuda`, `cpu`, `copy_`, `tolist`, `torch.tensor` and
    `torch.as_tensor` with a GPU device), or None: no copy, or one within a device."""
    tensor = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if name in ("tensor", "as_tensor", "asarray"):
        if not names_gpu(kwargs.get("device")) or (tensor is not None and on_gpu(tensor)):
            return None
        return Request(H2D, f"torch.{name}(device=...)", tensor is not None and is_pinned(tensor), False, None)
    if tensor is None:
        return None
    here = on_gpu(tensor)
    if name == "cuda" and not here:
        non_blocking = bool(kwargs.get("non_blocking", args[2] if len(args) > 2 else False))
        return Request(H2D, _call("Tensor.cuda", non_blocking), is_pinned(tensor), non_blocking, _bytes(tensor))
    if name == "cpu" and here:
        return Request(D2H, "Tensor.cpu()", False, False, _bytes(tensor))
    if name == "tolist" and here:
        return Request(D2H, "Tensor.tolist()", False, False, _bytes(tensor))
    if name == "to":
        wanted = None
        for value in (*args[1:], kwargs.get("device")):
            wanted = on_gpu(value) if isinstance(value, torch.Tensor) else names_gpu(value)
            if wanted is not None:
                break
        if wanted is None or wanted == here:
            return None
        non_blocking = bool(kwargs.get("non_blocking", next((a for a in args[1:] if isinstance(a, bool)), False)))
        call = _call("Tensor.to", non_blocking)
        if wanted:
            return Request(H2D, call, is_pinned(tensor), non_blocking, _bytes(tensor))
        return Request(D2H, call, non_blocking, non_blocking, _bytes(tensor))     # non_blocking: a pinned result
    if name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor):
        source = args[1]
        if on_gpu(source) == here:
            return None
        non_blocking = bool(kwargs.get("non_blocking", args[2] if len(args) > 2 else False))
        host = source if here else tensor
        return Request(H2D if here else D2H, _call("Tensor.copy_", non_blocking), is_pinned(host), non_blocking,
                       _bytes(source))
    return None


def _call(name: str, non_blocking: bool) -> str:
    return f"{name}(non_blocking=True)" if non_blocking else f"{name}()"


class CopyEngines:
    """When each copy runs: one engine per direction, each copy after its stream's earlier work (rules above)."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.link = gpu.device.host_link
        self.gbs = devices.host_link_gbs(gpu.device)
        self.free = {H2D: 0.0, D2H: 0.0}       # when each engine's last copy ends

    def seconds(self, nbytes: int) -> float | None:
        """Its modelled duration: bytes over the line rate (None where the device table has no host link)."""
        return None if self.gbs is None else nbytes / (self.gbs * 1e9)

    def place(self, direction: str, stream: int, ready: float, nbytes: int) -> tuple[float, float, float | None]:
        """(start, end, modelled seconds) of a copy issued at host time `ready` on `stream`; the stream's next
        work waits for it. An untimed copy takes no time but still waits its turn."""
        seconds = self.seconds(nbytes)
        start = max(ready, self.gpu.end_of(stream), self.free[direction])
        end = start + (seconds or 0.0)
        self.free[direction] = end
        self.gpu.wait(stream, end)
        return start, end, seconds

    def basis(self) -> str:
        """The words every copy time carries."""
        if self.gbs is None:
            return (f"copies not timed: the device table has no host link for the {self.gpu.device.name} "
                    f"(core/devices.py)")
        return (f"copy times modelled at the {self.link} line rate, {self.gbs:.1f} GB/s per direction (PCI-SIG; an "
                f"upper bound, so each time is a lower bound; one copy engine per direction), never measured")

    def as_dict(self) -> dict:
        return {"name": self.link or None, "gbs": self.gbs, "basis": self.basis()}
