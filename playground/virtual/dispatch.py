"""The dispatch trace (`run --ops`): every ATen op the script runs on GPU tensors, in order, as the dispatcher names
it (`aten::mm`, `aten::relu`, `aten::add.Tensor`), with its inputs' shapes and dtypes and the stream it was issued on.

A TorchDispatchMode sees each op after autograd and the composite ops' decomposition, beneath the device mode
(torch_device.py), so `torch.relu(a @ b)` is `aten::mm` then `aten::relu`, as on a CUDA build. Two limits, said
wherever the trace is shown:
- On a CUDA build each op runs a kernel that ATen, cuBLAS or cuDNN picks at run time for the shapes and the GPU;
  here the op runs on the CPU, and that kernel's name cannot be known: `gpu_kernel` says which library would choose,
  or that the op launches none (a view, an allocation, a read back to the host). Nor are their times modelled: the
  GPU tracks hold the Triton kernels and the copies only.
- Where ATen picks a backend's own op (attention, convolution), the CPU build picked the CPU's (`..._for_cpu`,
  `mkldnn_...`): the trace lists what ran here and says that a CUDA build dispatches another.
While the trace is on, each such op's own computation here (its CPU kernel: the GPU's work on a GPU machine) is
left out of the host clock, as compiling and interpreting are; the Python and dispatch above it stay in. Without
--ops it stays in the host clock.
An op counts as the GPU's when it takes a tensor the script put on the GPU (or one made from such ops: `_TRACED`), or
runs inside a call that names a GPU device (a factory: `torch.randn(..., device="cuda")`). The dispatch mode is
pushed only with --ops: Dynamo does not compile under one (a torch.compile'd function runs eagerly then, its ATen ops
listed), and it costs every op a Python call.
"""
from __future__ import annotations

import collections

import torch

from .. import compat
from .torch_device import on_gpu

TorchDispatchMode, OpOverload = compat.reach("TorchDispatchMode"), compat.reach("OpOverload")

MAX_OPS = 20_000        # ops kept one by one in the trace; the rest are counted (op_counts, ops_left_out)
_TRACED = "_playground_traced"      # an op's output made from GPU tensors (the script's device mark is not touched)

CUBLAS = {"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "addr", "_scaled_mm",
          "_addmm_activation", "_int_mm", "_grouped_mm", "_scaled_grouped_mm"}
ALLOCATES = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted", "lift_fresh",
             "resize_"}


def gpu_kernel(op: str, is_view: bool) -> str:
    """What a CUDA build would run for `op` on the GPU, in words: never a kernel's name (it is not known here)."""
    name = op.removeprefix("aten::").split(".")[0]
    if is_view:
        return "none: a view (its shape and strides only)"
    if name in ALLOCATES:
        return "none: an allocation"
    if name == "_local_scalar_dense":
        return "none: a copy of one value to the host"
    if "_for_cpu" in name or "mkldnn" in name or name.endswith("_cpu"):
        return "the CPU build's own op: a CUDA build dispatches another, its kernel not known here"
    if name in CUBLAS:
        return "chosen by cuBLAS on a real GPU, not known here"
    if "convolution" in name or name.startswith("conv"):
        return "chosen by cuDNN on a real GPU, not known here"
    return "chosen by ATen on a real GPU, not known here"


def describe(value) -> dict:
    """An op's argument as the trace keeps it: a tensor's shape and dtype (and `cpu` for a host tensor), a list of
    them, or a short value."""
    if isinstance(value, torch.Tensor):
        entry = {"shape": list(value.shape), "dtype": str(value.dtype).removeprefix("torch.")}
        return entry if _on_gpu(value) else entry | {"on": "cpu"}
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return {"list": [describe(v) for v in value]}
    text = str(value).removeprefix("torch.")
    return {"value": text if len(text) <= 40 else text[:39] + "…"}


def _on_gpu(tensor) -> bool:
    return on_gpu(tensor) or getattr(tensor, _TRACED, False)


def _touches_gpu(args, kwargs) -> bool:
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            if _on_gpu(value):
                return True
        elif isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) and _on_gpu(v) for v in value):
            return True
    return False


class OpTrace(TorchDispatchMode):
    """Records each ATen op on GPU tensors through `host.op(record)` (host_side.HostSide), while `host.listening()`."""

    supports_higher_order_operators = True       # wrap_triton's launches pass through as they are

    def __init__(self, host):
        super().__init__()
        self.host = host
        self.counts: collections.Counter = collections.Counter()
        self.left_out = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not isinstance(func, OpOverload) or not self.host.listening() or not (
                self.host.gpu_calls or _touches_gpu(args, kwargs)):
            return func(*args, **kwargs)
        op = func.name()
        self.counts[op] += 1
        if sum(self.counts.values()) > MAX_OPS:
            self.left_out += 1
        else:
            inputs = [describe(a) for a in args] + [{"name": k, **describe(v)} for k, v in kwargs.items()
                                                    if isinstance(v, (torch.Tensor, torch.dtype))]
            self.host.op({"op": op, "inputs": inputs, "gpu_kernel": gpu_kernel(op, func.is_view)})
        with self.host.recorder.aside():      # the op's own work, the GPU's on a GPU machine: not the host's time
            result = func(*args, **kwargs)
        for out in (result if isinstance(result, (list, tuple)) else (result,)):
            if isinstance(out, torch.Tensor):
                setattr(out, _TRACED, True)
        return result

    def as_dict(self) -> dict:
        return {"op_counts": dict(self.counts), "ops_left_out": self.left_out}
