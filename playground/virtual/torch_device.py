"""torch's side of the virtual GPU: a script's "cuda" tensors live on the CPU; torch.cuda answers for the target.

- Every device a script names ("cuda", "cuda:0", torch.device("cuda", 0), 0) becomes the CPU, through a
  TorchFunctionMode: factory functions' `device=`, `.to(...)`, `.cuda()`, `.pin_memory()`.
- A tensor the script put on the GPU answers as a GPU tensor would, wherever its data really lives:
  `x.device` is cuda:0, `x.is_cuda` is True, `x.get_device()` is 0, and so is every tensor computed from
  it; `.cpu()` and `.to("cpu")` give a CPU tensor (a view of the same data: nothing is copied). The
  active torch device Triton's driver reports is cuda:0 too, so `DEVICE.type == "cuda"`,
  `getattr(torch, DEVICE.type)` (the virtual torch.cuda) and `assert x.device == DEVICE` hold as on a GPU.
- torch.cuda's queries answer with the target's properties (gpu.py); streams and events are the virtual
  GPU's (each stream its own queue, gpu.py's rules), and an event's elapsed_time is modelled time. A stream's
  raw handle (`.cuda_stream`, `torch._C._cuda_getCurrentRawStream(device)`, which libraries such as
  bitsandbytes take to launch on) is its number, and `torch.cuda.ExternalStream(handle)` is that stream again. Its memory
  figures (memory_allocated, memory_reserved, memory_stats, empty_cache, ...) are PyTorch's caching allocator
  modelled on the GPU tensors' storages (allocator.py): modelled too.
- Any other public torch.cuda function fails with one line naming it (VirtualDeviceError).
- Autograd answers as it would on the GPU: a custom autograd.Function whose forward took GPU tensors gets its
  gradients and its saved tensors back as GPU tensors in backward (torch's engine makes the gradients, and
  unpacks saved outputs, in C++, where no mode sees them), so a library that asks `dy.device.type == "cuda"`
  there (Liger-Kernel's RMSNorm, to launch one program per SM) takes its GPU path.
- A library that gives torch's ops CUDA kernels of its own through torch.library (FlagGems' `enable()`:
  `Library("aten", "IMPL").impl("add.Tensor", fn, "CUDA")`) has them run for the script's GPU tensors, as
  on a CUDA machine: the CPU build takes the registration but never dispatches to it (the tensors are CPU
  tensors), so a TorchDispatchMode, pushed at the first such registration, sends each of those ops on a GPU
  tensor to the kernel registered for CUDA (CudaKernels).
- Inside a timing loop (capture.timing), the most expensive of torch's own ops (matmul and friends)
  return uninitialised tensors of the right shape: their results are discarded, and on the CPU they would
  cost minutes at the sizes a GPU benchmark sweeps. They are not modelled (capture.py says so).
"""
from __future__ import annotations

import contextlib
import inspect
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode

from .. import compat
from .gpu import VirtualGPU
from .streams import Event, ExternalStream, Stream, _state, current_raw_stream  # noqa: F401 (torch.cuda's)

TorchDispatchMode, OpOverload = compat.reach("TorchDispatchMode"), compat.reach("OpOverload")

CPU = torch.device("cpu")
GPU = torch.device("cuda", 0)          # what a tensor the script put on the GPU says it is on
_ON_GPU = "_playground_on_gpu"         # the mark such a tensor carries (torch tensors take attributes)
# torch hands a property's read to the mode as the descriptor's __get__ (a new method-wrapper each time)
_DEVICE, _IS_CUDA = torch.Tensor.device, torch.Tensor.is_cuda
# ... and a write as its __set__: `param.data = moved` (how nn.Module.to moves parameters) keeps the Parameter object,
# so the mark must follow the data; `.grad` is made by autograd's C++ engine, where no mode sees it
_DATA, _GRAD = torch.Tensor.data, torch.Tensor.grad

# torch ops skipped (shape only) inside a timing loop: the ones whose CPU cost explodes at GPU sizes.
# torch's allocating factories: what they return is fresh memory (check's poison fills it: check/code/draws.py)
FRESH_MEMORY = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}

SKIPPED_WHEN_TIMING = {"matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "einsum", "linear", "__matmul__",
                       "scaled_dot_product_attention", "conv1d", "conv2d", "conv3d", "tensordot"}


class VirtualDeviceError(RuntimeError):
    """The script asked for something the virtual GPU does not provide."""


def _is_gpu_device(value) -> bool:
    if isinstance(value, torch.device):
        return value.type in ("cuda", "hip")
    if isinstance(value, str):
        return value.split(":")[0] in ("cuda", "hip")
    return False


def _to_cpu_device(value):
    if _is_gpu_device(value) or (isinstance(value, int) and not isinstance(value, bool)):
        return CPU
    return value


class DeviceMode(TorchFunctionMode):
    """Maps every GPU device to the CPU; with `skip_expensive()` true, matmul-like ops return shapes only."""

    def __init__(self, skip_expensive=lambda: False):
        super().__init__()
        self.skip_expensive = skip_expensive

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        read = getattr(func, "__self__", None)
        if read is _DEVICE:
            return GPU if on_gpu(args[0]) else func(*args)
        if read is _IS_CUDA:
            return on_gpu(args[0]) or func(*args)
        if read is _DATA and getattr(func, "__name__", "") == "__set__":
            func(*args)
            if on_gpu(args[1]) != on_gpu(args[0]):
                setattr(args[0], _ON_GPU, on_gpu(args[1]))
            return None
        if read is _GRAD and getattr(func, "__name__", "") == "__get__":
            grad = func(*args)
            if grad is not None and on_gpu(args[0]) and not on_gpu(grad):
                setattr(grad, _ON_GPU, True)
            return grad
        name = getattr(func, "__name__", "")
        tensor = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if tensor is not None and name == "get_device":
            return 0 if on_gpu(tensor) else func(*args, **kwargs)
        if tensor is not None and name in ("cuda", "pin_memory", "record_stream"):
            return {"cuda": lambda: _placed(tensor, True), "pin_memory": lambda: tensor,
                    "record_stream": lambda: None}[name]()
        if tensor is not None and name == "cpu":
            return _placed(tensor, False)
        wanted = None                      # the device the call asks for: True for a GPU, False for the CPU
        named = [a for a in args[1:] if isinstance(a, (str, torch.device))] if name == "to" else []
        if "device" in kwargs and kwargs["device"] is not None:
            named.append(kwargs["device"])
        if named:
            wanted = _is_gpu_device(named[0]) or (isinstance(named[0], int) and not isinstance(named[0], bool))
        if "device" in kwargs:
            kwargs["device"] = _to_cpu_device(kwargs["device"])
        if name == "to" and args:
            args = (args[0],) + tuple(CPU if _is_gpu_device(a) else a for a in args[1:])
        if name in SKIPPED_WHEN_TIMING and self.skip_expensive():
            result = _shape_only(func, args, kwargs)
        else:
            result = func(*args, **kwargs)
        if name == "to" and tensor is not None and result is tensor and wanted is not None:
            return _placed(tensor, wanted)      # moved without a copy (both sides are the CPU): a view that says so
        if wanted or (wanted is None and _any_on_gpu(args, kwargs)):
            _mark(result)
            if name in FRESH_MEMORY and _state["fresh_memory"] is not None and isinstance(result, torch.Tensor):
                _state["fresh_memory"](result)
        # the caching allocator's model counts GPU storages (allocator.py); not while Dynamo traces this mode
        # (its tensors are fake, and the model's lock is nothing Dynamo can trace)
        if _state["allocator"] is not None and not torch.compiler.is_compiling():
            _state["allocator"].seen(result, args, kwargs)
        return result


def on_gpu(tensor) -> bool:
    """Whether the script put this tensor on the GPU (or computed it from one that is)."""
    return bool(getattr(tensor, _ON_GPU, False))


def _placed(tensor, gpu: bool):
    """The tensor as it would be after a move to the GPU (gpu=True) or the CPU: itself when already there, else a
    view of the same data (nothing to copy: it is all on the CPU) marked accordingly."""
    if on_gpu(tensor) == gpu:
        return tensor
    with compat.disable_torch_function():
        moved = tensor.view_as(tensor)
    if gpu:
        setattr(moved, _ON_GPU, True)
    if _state["allocator"] is not None:
        _state["allocator"].placed(moved, gpu)
    return moved


def _any_on_gpu(args, kwargs) -> bool:
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor) and on_gpu(value):
            return True
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) and on_gpu(v) for v in value):
            return True
    return False


def _mark(result) -> None:
    if isinstance(result, torch.Tensor):
        setattr(result, _ON_GPU, True)
    elif isinstance(result, (list, tuple)):
        for value in result:
            if isinstance(value, torch.Tensor):
                setattr(value, _ON_GPU, True)


def _shape_only(func, args, kwargs):
    """The op's result as uninitialised CPU tensors: its shape, strides and dtype computed on the meta device."""
    def meta(x):
        return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta") \
            if isinstance(x, torch.Tensor) else x
    with compat.disable_torch_function():
        out = func(*[meta(a) for a in args], **{k: meta(v) for k, v in kwargs.items()})
        return compat.reach("tree_map")(
            lambda t: torch.empty_strided(t.shape, t.stride(), dtype=t.dtype) if isinstance(t, torch.Tensor) else t,
            out)


def install(gpu: VirtualGPU, skip_expensive=lambda: False) -> DeviceMode:
    """Patch torch for the virtual GPU (in the child process only: session.py) and enter the device mode."""
    default_stream = Stream.default()

    _state.update(gpu=gpu, stream=default_stream)
    props = gpu.torch_properties()
    from . import allocator
    _state["allocator"] = allocator.install(props.total_memory, f"the virtual {props.name}",
                                            lambda: _state["stream"].cuda_stream, on_gpu)

    @contextlib.contextmanager
    def stream(s=None):
        before, _state["stream"] = _state["stream"], s or _state["stream"]
        try:
            yield s
        finally:
            _state["stream"] = before

    provided = {
        "is_available": lambda: True, "is_initialized": lambda: True, "init": lambda: None,
        "device_count": lambda: 1, "current_device": lambda: 0, "set_device": lambda device: None,
        "get_device_name": lambda device=None: props.name,
        "get_device_capability": lambda device=None: gpu.capability,
        "get_device_properties": lambda device=None: props,
        "get_arch_list": lambda: [f"sm_{gpu.target.arch}" if gpu.target.is_nvidia else gpu.target.name],
        "is_bf16_supported": lambda including_emulation=True: True,
        "synchronize": lambda device=None: None,
        "current_stream": lambda device=None: _state["stream"], "default_stream": lambda device=None: default_stream,
        "stream": stream, "set_stream": lambda s: _state.update(stream=s),
        "Stream": Stream, "ExternalStream": ExternalStream, "Event": Event,
        "ipc_collect": lambda: None,
        **allocator.functions(_state["allocator"]),   # memory_allocated, memory_stats, empty_cache, ...: modelled
        # torch.manual_seed seeds the CPU generator the tensors use, then calls these: nothing more to seed
        "manual_seed": lambda seed: None, "manual_seed_all": lambda seed: None, "seed": lambda: None,
        "seed_all": lambda: None, "get_rng_state": lambda device=None: torch.get_rng_state(),
        "set_rng_state": lambda state, device=None: torch.set_rng_state(state),
        "device": _DeviceContext, "is_current_stream_capturing": lambda: False,
    }
    for name, value in vars(torch.cuda).items():
        if name.startswith("_") or name in provided or not inspect.isfunction(value):
            continue
        setattr(torch.cuda, name, _not_provided(f"torch.cuda.{name}", gpu, value))
    for name, value in provided.items():
        setattr(torch.cuda, name, value)
    compat.set_current_raw_stream(current_raw_stream)     # private, but what real packages call: see there
    # torch.accelerator answers as torch's CPU build does, where it finds no accelerator: on a CUDA build it would
    # pass torch.cuda's answers on to the CUDA runtime (torch 2.14's optimizers ask it for the current stream at every
    # step), and the CPU build, which the tests hold to, never offers it
    if hasattr(torch, "accelerator"):
        torch.accelerator.current_accelerator = lambda check_available=False: None
        torch.accelerator.is_available = lambda: False
    mode = DeviceMode(skip_expensive)
    mode.__enter__()
    _route_registered_cuda_kernels(mode)
    _autograd_on_gpu(mode)
    return mode


_GPU_FORWARD = "_playground_gpu_forward"     # set on a backward node whose forward took GPU tensors
_SAVED_ON_GPU = "_playground_saved_on_gpu"   # which of the tensors its forward saved were on the GPU
_ANSWERS = "_playground_backward"             # a Function's backward, wrapped to answer as on the GPU


def _autograd_on_gpu(device_mode: DeviceMode) -> None:
    """A custom Function's backward runs with the device mode on (torch's engine runs it with no function mode
    active, so `.device` would say cpu), its gradients marked as the forward's tensors were, and each tensor it
    saved marked as it was when saved (torch unpacks saved outputs as new tensors)."""
    from torch.autograd import function
    if getattr(function.Function.apply, "on_gpu", False):
        return
    apply, save = compat.function_apply(function.Function), function.FunctionCtx.save_for_backward
    unpack = compat.saved_tensors_property()

    def forward_apply(cls, *args, **kwargs):
        outputs = apply(cls, *args, **kwargs)
        if _any_on_gpu(args, kwargs):
            _answer_in_backward(cls, device_mode)
            for out in (outputs if isinstance(outputs, (tuple, list)) else (outputs,)):
                node = getattr(out, "grad_fn", None) if isinstance(out, torch.Tensor) else None
                if node is not None:
                    setattr(node, _GPU_FORWARD, True)
        return outputs

    def save_for_backward(self, *tensors):
        setattr(self, _SAVED_ON_GPU, [isinstance(t, torch.Tensor) and on_gpu(t) for t in tensors])
        return save(self, *tensors)

    def saved_tensors(self):
        tensors = unpack.__get__(self)
        for tensor, gpu in zip(tensors, getattr(self, _SAVED_ON_GPU, ())):
            if gpu and tensor is not None:
                setattr(tensor, _ON_GPU, True)
        return tensors

    forward_apply.on_gpu = True
    function.Function.apply = classmethod(forward_apply)
    function.FunctionCtx.save_for_backward = save_for_backward
    function.BackwardCFunction.saved_tensors = property(saved_tensors)


def _answer_in_backward(cls, device_mode: DeviceMode) -> None:
    if _ANSWERS in vars(cls):
        return
    original = cls.backward

    def backward(ctx, *grads):
        if not getattr(ctx, _GPU_FORWARD, False):
            return original(ctx, *grads)
        _mark([g for g in grads if isinstance(g, torch.Tensor)])
        active = device_mode in compat.function_mode_stack()
        with contextlib.nullcontext() if active else device_mode:
            result = original(ctx, *grads)
        _mark(result)
        return result

    cls.backward = staticmethod(backward)
    setattr(cls, _ANSWERS, True)


class CudaKernels(TorchDispatchMode):
    """The ops a library registered CUDA kernels for, on a GPU tensor, run those kernels (redispatched to the CUDA
    key), with the device mode back on inside them, so that the kernel sees its tensors on cuda:0 as on a GPU and
    the ops it calls route the same way."""

    supports_higher_order_operators = True       # wrap_triton's launches pass through as they are

    def __init__(self, device_mode: DeviceMode):
        super().__init__()
        self.device_mode, self.ops = device_mode, set()      # "aten::add.Tensor", ...

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not isinstance(func, OpOverload) or func.name() not in self.ops or not _any_on_gpu(args, kwargs):
            return func(*args, **kwargs)
        with self.device_mode, self:
            result = compat.redispatch_to_cuda(func, *args, **kwargs)
        _mark(result)
        return result


def _route_registered_cuda_kernels(device_mode: DeviceMode) -> None:
    """Watch torch.library for CUDA kernels; at the first, push CudaKernels (it costs every op a Python call, so
    scripts that register none never pay it)."""
    routes = CudaKernels(device_mode)
    register = torch.library.Library.impl

    def impl(self, op_name, fn=None, dispatch_key="", *args, **kwargs):
        done = register(self, op_name, fn, dispatch_key, *args, **kwargs)
        if dispatch_key == "CUDA" and not _registered_by_torch():
            name = op_name if isinstance(op_name, str) else op_name.name()
            qualified = name if "::" in name else f"{self.ns}::{name}"
            routes.ops.add(qualified.removesuffix(".default"))       # as OpOverload.name() spells it
            if len(routes.ops) == 1:
                routes.__enter__()
        return done

    torch.library.Library.impl = impl


_TORCH = str(Path(torch.__file__).parent)


def _registered_by_torch() -> bool:
    """Whether torch itself made the registration (torch.distributed's symmetric memory and Inductor's test ops
    register CUDA kernels as they are imported): those need no route, and a dispatch mode pushed for them would
    keep a script's torch.compile from running (Dynamo refuses to trace under one)."""
    import sys
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith((f"{_TORCH}/library.py", f"{_TORCH}/_library")):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_TORCH + "/")


class _DeviceContext:
    """torch.cuda.device(i): a context manager that changes nothing (there is one virtual device)."""

    def __init__(self, device=None):
        self.idx = 0

    def __enter__(self): return self
    def __exit__(self, *exc): return False


def _not_provided(name: str, gpu: VirtualGPU, original):
    """A stand-in that fails with one line, keeping the original's attributes: torch's own modules read them
    (torch 2.14's Dynamo, imported at a first backward, lists `torch.cuda.use_mem_pool.__wrapped__`)."""
    import functools

    @functools.wraps(original)
    def fail(*args, **kwargs):
        raise VirtualDeviceError(f"{name} is not provided by the virtual {gpu.target.name}")
    return fail
