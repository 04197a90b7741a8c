"""Run a kernel for real on one case: seeded inputs in guarded buffers, one launch, the fp64 reference.

Every tensor lives inside a larger buffer of sentinels, compared bit for bit after the launch:
writes past either end or into row padding are found that way. Inputs are surrounded by plain
NaN, so reading past them poisons the result. Outputs start filled with a NaN carrying a payload
that arithmetic never produces (a computed NaN has the canonical bits), so the report can tell
"never written" from "computed NaN", and a stray write of a computed value into an output's
guard is seen. Torch is imported only inside the functions that run kernels.
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import time
import traceback
from dataclasses import dataclass, field

from ..core import dtypes
from ..core.spec import KernelSpec
from ..errors import UserError
from ..text import short_path
from ..units import size
from .cases import tensor_names
from .user_code import is_user_file

GUARD = 4096                                  # sentinel elements before and after every tensor


@dataclass
class Buffer:
    """One tensor argument in its guarded allocation."""
    name: str
    view: object        # the tensor the kernel gets (maybe transposed or a slice of wider rows)
    storage: object     # 1-D: GUARD sentinels, the allocation, GUARD sentinels
    covered: object     # bool per allocation element: part of the view (False = row padding)
    before: object      # a bitwise copy of `storage` right before the launch
    start: int = GUARD  # where the allocation begins in `storage` (past the guard and any offset)


def require_torch(command: str) -> None:
    """Running a kernel needs torch's tensors; compiling never does, so it is an extra, not a dependency."""
    if importlib.util.find_spec("torch") is None:
        raise UserError(f"{command} runs kernels on PyTorch tensors, and torch is not installed: "
                        f"pip install -e '.[torch]' (or keep the torch your project pins)")
    from .. import compat
    compat.check_torch()


def case_bytes(spec: KernelSpec, shape: dict, layout: dict, dtype: str) -> int:
    """The memory one case needs, at least: each tensor's guarded allocation, the inputs' seeded
    values (made on the CPU, then copied), and the fp64 copies the reference computes on."""
    total = 0
    for name, t in spec.tensors.items():
        dims = t.dims(shape)
        pad = _pad_for(layout.get("pad", 0), name) if len(dims) == 2 else 0
        rows = math.prod(dims[:-1]) if dims else 1
        elements = math.prod(dims) + rows * pad if dims else 1
        size = dtypes.size(spec.tensor_dtype(name, dtype))
        total += (elements + 2 * GUARD + int(layout.get("offset", 0))) * size
        total += math.prod(dims) * (8 + (0 if t.output else size))
    return total


def available_memory(device: str) -> int:
    """Bytes free for tensors: the GPU's free memory, or the machine's available RAM for the CPU."""
    if device == "cuda":
        import torch
        return torch.cuda.mem_get_info()[0]
    import psutil
    return psutil.virtual_memory().available


def require_memory(spec: KernelSpec, shape: dict, layout: dict, dtype: str, device: str) -> None:
    """Refuse, in one line, a case that cannot fit, before allocating anything."""
    needed, free = case_bytes(spec, shape, layout, dtype), available_memory(device)
    if needed > free:
        where = "free on the GPU" if device == "cuda" else "available on this machine"
        dims = ", ".join(f"{k}={v}" for k, v in shape.items())
        raise UserError(f"{spec.name} at {dims}: the case needs {size(needed)} (tensors, guards and the fp64 "
                        f"reference), and {size(free)} is {where}")


def allocate(spec: KernelSpec, shape: dict, layout: dict, dtype: str, seed: int, device: str,
             generator: str = "randn") -> dict:
    """Every tensor of the spec at `shape`: inputs seeded and filled (by `generator`, see inputs.py),
    outputs full of sentinels. layout["offset"] starts every tensor that many elements past an
    aligned address (1 breaks 16-byte alignment, which changes what the JIT specialises)."""
    require_memory(spec, shape, layout, dtype, device)
    transposed = set(tensor_names(layout.get("transpose", [])))
    for name in transposed:
        if name not in spec.tensors or len(spec.tensors[name].shape) != 2:
            raise UserError(f"{spec.name}: case says transpose={name}, but that is not a 2-D tensor of the kernel")
    values = _input_values(spec, shape, dtype, seed, generator)
    offset = int(layout.get("offset", 0))
    buffers = {}
    for name, t in spec.tensors.items():
        dims = t.dims(shape)
        pad = _pad_for(layout.get("pad", 0), name) if len(dims) == 2 else 0
        buffers[name] = _guarded(name, dims, spec.tensor_dtype(name, dtype), name in transposed, pad, device,
                                 sentinel=t.output, offset=offset)
        if not t.output:
            buffers[name].view.copy_(values[name].to(device))
        buffers[name].before = buffers[name].storage.clone()
    return buffers


def _pad_for(pad, name) -> int:
    return int(pad.get(name, 0)) if isinstance(pad, dict) else int(pad)


def _input_values(spec: KernelSpec, shape: dict, dtype: str, seed: int, generator: str = "randn") -> dict:
    """Seeded input values, generated on the CPU so that every device sees the same numbers."""
    if spec.make_inputs is not None:
        made = spec.make_inputs(shape, dtype, seed)
        missing = [n for n in spec.inputs if n not in made]
        if missing:
            raise UserError(f"{spec.name}: make_inputs returned no {', '.join(missing)}")
        return made
    from .inputs import values
    return values(spec, shape, dtype, seed, generator)


def _guarded(name, dims, dtype: str, transposed: bool, pad: int, device: str, sentinel: bool,
             offset: int = 0) -> Buffer:
    import torch
    tdtype = dtypes.torch_dtype(dtype)
    rows_first = tuple(reversed(dims)) if transposed else tuple(dims)   # the allocation's logical shape
    alloc = rows_first[:-1] + (rows_first[-1] + pad,) if rows_first else rows_first
    n = math.prod(alloc)
    start = GUARD + offset
    storage = torch.empty(start + n + GUARD, dtype=tdtype, device=device)
    if sentinel or not tdtype.is_floating_point:
        _bits(storage).fill_(dtypes.get(dtype).sentinel_bits)
    else:
        storage.fill_(float("nan"))
    index = torch.arange(n, device=device).view(alloc)
    body = storage[start:start + n].view(alloc)
    if pad:
        body, index = body[..., :rows_first[-1]], index[..., :rows_first[-1]]
    if transposed:
        body, index = body.t(), index.t()
    covered = torch.zeros(n, dtype=torch.bool, device=device)
    covered[index.reshape(-1)] = True
    return Buffer(name, body, storage, covered, None, start)


@dataclass
class Run:
    """What one launch produced: the outputs, the fp64 reference, and any writes out of bounds."""
    got: dict            # output name -> tensor, as the kernel wrote it
    expected: dict       # output name -> fp64 tensor from the reference
    problems: list[str] = field(default_factory=list)   # writes outside the outputs, changed inputs
    seconds: float = 0.0
    sanitizer: object = None   # the sanitize.Sanitizer that watched the launch, if one did
    native: dict = field(default_factory=dict)   # with `yardstick`: the reference in the kernel's own dtypes, as
    #                                              eager PyTorch computes it ({} where it cannot run so)


def run(spec: KernelSpec, kernel, shape: dict, layout: dict, dtype: str, config, seed: int, device: str,
        generator: str = "randn", sanitize: dict | None = None, yardstick: bool = False) -> Run:
    """Allocate, launch once, compute the reference, and look for stray writes.

    `sanitize` (interpreter only): the options of a sanitize.Sanitizer that watches the launch. `yardstick`: also
    the reference in the kernel's own dtypes, on copies of the same inputs (check/margin.py measures by it).
    """
    import torch
    buffers = allocate(spec, shape, layout, dtype, seed, device, generator)
    sanitizer = None
    if sanitize is not None:
        from .sanitize import Sanitizer
        sanitizer = Sanitizer.for_buffers(buffers, set(spec.outputs), **sanitize)
    views = {n: b.view for n, b in buffers.items()}
    args = spec.args_for(views, shape)
    grid = spec.grid_for(shape, config.meta)
    tuner = getattr(spec, "autotuner", None)
    for name, value in zip(spec.kernel.arg_names, args):   # @triton.autotune(reset_to_zero=...): as its
        if tuner is not None and name in (tuner.reset_to_zero or ()) and hasattr(value, "zero_"):   # hook does
            value.zero_()
    from ..core.spec import config_hook
    hook = config_hook(spec, config)
    if hook is not None:        # the config's pre_hook, as Triton's Autotuner calls it before the launch
        hook({**dict(zip(spec.kernel.arg_names, args)), **config.meta})
    start = time.perf_counter()
    launch = {**config.meta, "num_warps": config.num_warps, "num_stages": config.num_stages}
    if sanitizer is not None:
        with sanitizer.active():
            kernel[grid](*args, **launch)
    else:
        kernel[grid](*args, **launch)
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    problems = [p for b in buffers.values() for p in _stray_writes(b, spec.tensors[b.name].output)]
    expected = reference_outputs(spec, {n: views[n] for n in spec.inputs}, shape, config.meta)
    native = {}
    if yardstick:
        try:
            native = reference_outputs(spec, {n: views[n].clone() for n in spec.inputs}, shape, config.meta,
                                       widen=False)
        except Exception:      # noqa: BLE001 -- no kernel for the op in this dtype on this device: no yardstick
            native = {}
    got = {n: views[n] for n in spec.outputs}
    return Run(got=got, expected=expected, problems=problems, seconds=seconds, sanitizer=sanitizer, native=native)


def reference_outputs(spec: KernelSpec, inputs: dict, shape: dict, meta: dict, widen: bool = True) -> dict:
    """The spec's reference on fp64 copies of the inputs; sizes and meta it names are passed too.

    `widen=False` runs it on the inputs as they are and keeps its outputs' dtypes (eager PyTorch
    at the kernel's own precision)."""
    if spec.reference is None:
        raise UserError(f"{spec.name} has no reference to check against; add `reference=` to its KernelSpec")
    wide = {n: (t.double() if t.is_floating_point() and widen else t) for n, t in inputs.items()}
    wanted = inspect.signature(spec.reference).parameters
    extra = {k: v for k, v in {**shape, **meta}.items() if k in wanted and k not in wide}
    out = spec.reference(**wide, **extra)
    if isinstance(out, dict):
        result = out
    elif isinstance(out, (tuple, list)):
        result = dict(zip(spec.outputs, out))
    else:
        result = {spec.outputs[0]: out}
    for name in spec.outputs:
        if name not in result:
            raise UserError(f"{spec.name}: the reference returns no value for output '{name}'")
        want = spec.tensors[name].dims(shape)
        if tuple(result[name].shape) != want:
            raise UserError(f"{spec.name}: the reference returns shape {tuple(result[name].shape)} "
                            f"for '{name}', the spec says {want}")
    return {n: result[n].double() if result[n].is_floating_point() and widen else result[n] for n in spec.outputs}


def unwritten(t, dtype: str):
    """True where an output still holds the sentinel it was filled with: the kernel never wrote there."""
    return _bits(t) == dtypes.get(dtype).sentinel_bits


def _bits(t):
    import torch
    return t.view({1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _stray_writes(b: Buffer, is_output: bool) -> list[str]:
    """Compare the sentinels (and, for inputs, everything) bit for bit with their state before the launch."""
    changed = _bits(b.storage) != _bits(b.before)
    if not bool(changed.any()):
        return []
    n = b.covered.numel()
    head, body, tail = changed[:b.start], changed[b.start:b.start + n], changed[b.start + n:]
    problems = []
    if int(tail.sum()):
        problems.append(f"wrote {int(tail.sum())} element(s) past the end of '{b.name}', "
                        f"the farthest {int(tail.nonzero().max()) + 1} past it")
    if int(head.sum()):
        problems.append(f"wrote {int(head.sum())} element(s) before the start of '{b.name}'")
    padding = int((body & ~b.covered).sum())
    if padding:
        problems.append(f"wrote {padding} element(s) into the row padding of '{b.name}'")
    inside = int((body & b.covered).sum())
    if inside and not is_output:
        problems.append(f"changed {inside} element(s) of its input '{b.name}'")
    return problems


def crash_message(error: BaseException, spec: KernelSpec, config=None) -> str:
    """file:line and message of the innermost error, pointing into the user's code, not Triton's."""
    try:
        from triton.compiler.errors import CompilationError
        if isinstance(error, CompilationError) and config is not None:
            from ..artefact.compiler import compile_failure
            return str(compile_failure(spec, config, error))
    except ImportError:
        pass
    inner = error
    while inner.__cause__ is not None:
        inner = inner.__cause__
    # a feature this Triton removed (the interpreter raises it as it runs the line): which Triton last had it
    from .. import removed_features
    from ..artefact.compiler import kernel_ref
    said = removed_features.explain(str(inner), kernel_ref(spec)) or inner
    for e in (inner, error):   # the innermost error's frames first, the outer ones as a fallback
        for frame in reversed(traceback.extract_tb(e.__traceback__)):
            if is_user_file(frame.filename):
                return f"{short_path(frame.filename)}:{frame.lineno}: {type(inner).__name__}: {said}"
    return f"{type(inner).__name__}: {said}"
