"""Run a kernel for real: natively on a CUDA (or ROCm) GPU, otherwise through Triton's interpreter.

Why the interpreter runs in a worker process: Triton decides "interpret or compile" when
`@triton.jit` decorates a function, and that holds for triton.language's own helpers too
(`tl.cdiv`, `tl.sum`, `tl.max` are `@jit` functions decorated when triton is first imported).
A process that has imported triton normally, as pytest has after the compile tests or the CLI
after loading a spec, can never switch those over: reloading just the kernel's module is not
enough. So interpreted runs go to one long-lived child started with TRITON_INTERPRET=1 in its
environment, where everything is interpreted from the first import. It is started once and
reused (a whole pytest session pays for one torch import), and a kernel that writes wild memory
kills the child, not the caller. A process that was itself started with TRITON_INTERPRET=1 runs
kernels in place.

Every tensor lives inside a larger buffer of sentinels, compared bit for bit after the launch:
writes past either end or into row padding are found that way. Inputs are surrounded by plain
NaN, so reading past them poisons the result. Outputs start filled with a NaN carrying a payload
that arithmetic never produces (a computed NaN has the canonical bits), so the report can tell
"never written" from "computed NaN", and a stray write of a computed value into an output's
guard is seen. Torch is imported only inside the functions that run kernels.
"""
from __future__ import annotations

import atexit
import importlib
import importlib.util
import inspect
import math
import os
import pickle
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from ..core import dtypes
from ..errors import KernelFailure, UserError
from ..core.spec import KernelSpec

INTERPRETER = "interpreter"
CUDA = "cuda"
LAYOUT_KEYS = ("transpose", "pad", "meta")   # case keys that are not problem sizes
GUARD = 4096                                  # sentinel elements before and after every tensor
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


# --- where kernels run ------------------------------------------------------------------------

def mode(force_interpreter: bool = False) -> str:
    """CUDA when a GPU is usable (torch sees one), the interpreter otherwise."""
    if force_interpreter or interpreting_here():
        return INTERPRETER
    from ..core.targets import has_gpu
    if not has_gpu():            # no device node: decide without importing torch
        return INTERPRETER
    import torch
    return CUDA if torch.cuda.is_available() else INTERPRETER


def describe(run_mode: str) -> str:
    """What the report says about where the kernel ran."""
    if run_mode == INTERPRETER:
        return "interpreter (CPU)"
    import torch
    api = "ROCm" if getattr(torch.version, "hip", None) else "CUDA"
    return f"{api} {torch.cuda.get_device_name()}"


def interpreting_here() -> bool:
    """True when this process's triton was imported in interpret mode (its helpers are interpreted)."""
    if "triton" not in sys.modules:
        return _env_true(os.environ.get("TRITON_INTERPRET"))
    import triton.language as tl
    return type(tl.cdiv).__name__ == "InterpretedFunction"


def _env_true(value) -> bool:
    return str(value).lower() in ("1", "true", "yes", "on")


def call(function, where: str, *, time_limit: float | None = None, **kwargs):
    """Call `function(**kwargs)` where kernels can run in mode `where`: here, or in the worker.

    The function travels to the worker by reference (pickle names its module and name), so it must
    be a module-level function.

    `time_limit` (seconds) holds for the worker: past it the worker is killed and TimedOutInWorker
    raised. A kernel running here, on a GPU, cannot be stopped mid-launch, so there it does not apply.
    """
    if where == CUDA or interpreting_here():
        return function(**kwargs)
    return _worker().call(function, kwargs, time_limit)


# --- the interpreter worker -------------------------------------------------------------------

class WorkerDied(KernelFailure):
    pass


class TimedOutInWorker(WorkerDied):
    pass


class _RemoteTraceback(Exception):
    def __str__(self):
        return "\n" + self.args[0]


class _Worker:
    """One child process in interpret mode; requests and answers are pickles over its stdin/stdout."""

    def __init__(self):
        env = dict(os.environ, TRITON_INTERPRET="1")
        env["PYTHONPATH"] = os.pathsep.join([str(_PROJECT_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
        self.proc = subprocess.Popen([sys.executable, "-c", "from playground.run.runner import serve; serve()"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, function, kwargs: dict, time_limit: float | None = None):
        import select
        try:
            pickle.dump((function, kwargs), self.proc.stdin)
            self.proc.stdin.flush()
            if time_limit is not None and not select.select([self.proc.stdout], [], [], time_limit)[0]:
                self.proc.kill()
                self.proc.wait()
                raise TimedOutInWorker(f"still running after {time_limit:g} s: stopped (--timeout)")
            status, payload, remote_tb = pickle.load(self.proc.stdout)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            code = self.proc.wait()
            raise WorkerDied(_death_message(code)) from None
        if status == "ok":
            return payload
        if isinstance(payload, (UserError, KernelFailure)):
            raise payload
        # As concurrent.futures does: the worker's traceback, as text, is the cause --debug shows.
        raise KernelFailure(payload) from _RemoteTraceback(remote_tb)

    def close(self):
        if self.alive():
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()


def _death_message(code: int) -> str:
    import signal
    how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    hint = (": the kernel likely read or wrote memory far outside its tensors"
            if code < 0 and -code in (signal.SIGSEGV, signal.SIGBUS) else "")
    return f"the interpreter process died ({how}){hint}"


_WORKER: _Worker | None = None


def _worker() -> _Worker:
    global _WORKER
    if _WORKER is None or not _WORKER.alive():
        _WORKER = _Worker()
    return _WORKER


@atexit.register
def _stop_worker():
    if _WORKER is not None:
        _WORKER.close()


def serve():
    """The worker's loop: answer (function, kwargs) pickles until stdin closes."""
    from ..lifecycle import die_with_parent
    die_with_parent()
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)          # anything the kernel prints goes to stderr, not into the pickles
    requests = sys.stdin.buffer
    while True:
        try:
            function, kwargs = pickle.load(requests)
        except EOFError:
            return
        try:
            answer = ("ok", function(**kwargs), None)
        except (UserError, KernelFailure) as e:
            answer = ("raise", e, traceback.format_exc())
        except Exception as e:
            answer = ("raise", f"{type(e).__name__}: {e}", traceback.format_exc())
        pickle.dump(answer, replies)
        replies.flush()


# --- cases and tensors ------------------------------------------------------------------------

def split_case(case: dict) -> tuple[dict, dict]:
    """A case dict -> (sizes, layout): layout holds "transpose", "pad" and "meta"."""
    sizes = {k: v for k, v in case.items() if k not in LAYOUT_KEYS}
    layout = {k: v for k, v in case.items() if k in LAYOUT_KEYS}
    return sizes, layout


def describe_case(case: dict) -> str:
    """'M=273, N=145, K=81, transpose=a' for reports and test ids."""
    sizes, layout = split_case(case)
    parts = [f"{k}={v}" for k, v in sizes.items()]
    if "transpose" in layout:
        parts.append(f"transpose={','.join(_names(layout['transpose']))}")
    if "pad" in layout:
        parts.append(f"pad={layout['pad']}")
    parts += [f"{k}={v}" for k, v in layout.get("meta", {}).items()]
    return ", ".join(parts)


def _names(value) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def torch_dtype(name: str):
    import torch
    return getattr(torch, dtypes.get(name).torch)


@dataclass
class Buffer:
    """One tensor argument in its guarded allocation."""
    name: str
    view: object        # the tensor the kernel gets (maybe transposed or a slice of wider rows)
    storage: object     # 1-D: GUARD sentinels, the allocation, GUARD sentinels
    covered: object     # bool per allocation element: part of the view (False = row padding)
    before: object      # a bitwise copy of `storage` right before the launch


def require_torch(command: str) -> None:
    """Running a kernel needs torch's tensors; compiling never does, so it is an extra, not a dependency."""
    if importlib.util.find_spec("torch") is None:
        raise UserError(f"{command} runs kernels on PyTorch tensors, and torch is not installed: "
                        f"pip install -e '.[torch]' (or keep the torch your project pins)")


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
        total += (elements + 2 * GUARD) * size
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
    from ..units import size
    needed, free = case_bytes(spec, shape, layout, dtype), available_memory(device)
    if needed > free:
        where = "free on the GPU" if device == "cuda" else "available on this machine"
        dims = ", ".join(f"{k}={v}" for k, v in shape.items())
        raise UserError(f"{spec.name} at {dims}: the case needs {size(needed)} (tensors, guards and the fp64 "
                        f"reference), and {size(free)} is {where}")


def allocate(spec: KernelSpec, shape: dict, layout: dict, dtype: str, seed: int, device: str) -> dict:
    """Every tensor of the spec at `shape`: inputs seeded and filled, outputs full of sentinels."""
    require_memory(spec, shape, layout, dtype, device)
    transposed = set(_names(layout.get("transpose", [])))
    for name in transposed:
        if name not in spec.tensors or len(spec.tensors[name].shape) != 2:
            raise UserError(f"{spec.name}: case says transpose={name}, but that is not a 2-D tensor of the kernel")
    values = _input_values(spec, shape, dtype, seed)
    buffers = {}
    for name, t in spec.tensors.items():
        dims = t.dims(shape)
        pad = _pad_for(layout.get("pad", 0), name) if len(dims) == 2 else 0
        buffers[name] = _guarded(name, dims, spec.tensor_dtype(name, dtype), name in transposed, pad, device,
                                 sentinel=t.output)
        if not t.output:
            buffers[name].view.copy_(values[name].to(device))
        buffers[name].before = buffers[name].storage.clone()
    return buffers


def _pad_for(pad, name) -> int:
    return int(pad.get(name, 0)) if isinstance(pad, dict) else int(pad)


def _input_values(spec: KernelSpec, shape: dict, dtype: str, seed: int) -> dict:
    """Seeded input values, generated on the CPU so that every device sees the same numbers."""
    import torch
    if spec.make_inputs is not None:
        made = spec.make_inputs(shape, dtype, seed)
        missing = [n for n in spec.inputs if n not in made]
        if missing:
            raise UserError(f"{spec.name}: make_inputs returned no {', '.join(missing)}")
        return made
    gen = torch.Generator().manual_seed(seed)
    values = {}
    for name in spec.inputs:
        dims, tdtype = spec.tensors[name].dims(shape), torch_dtype(spec.tensor_dtype(name, dtype))
        if tdtype.is_floating_point:
            values[name] = torch.randn(dims, generator=gen).to(tdtype)
        else:
            values[name] = torch.randint(-100, 100, dims, generator=gen).to(tdtype)
    return values


def _guarded(name, dims, dtype: str, transposed: bool, pad: int, device: str, sentinel: bool) -> Buffer:
    import torch
    tdtype = torch_dtype(dtype)
    rows_first = tuple(reversed(dims)) if transposed else tuple(dims)   # the allocation's logical shape
    alloc = rows_first[:-1] + (rows_first[-1] + pad,) if rows_first else rows_first
    n = math.prod(alloc)
    storage = torch.empty(GUARD + n + GUARD, dtype=tdtype, device=device)
    if sentinel or not tdtype.is_floating_point:
        _bits(storage).fill_(dtypes.get(dtype).sentinel_bits)
    else:
        storage.fill_(float("nan"))
    index = torch.arange(n, device=device).view(alloc)
    body = storage[GUARD:GUARD + n].view(alloc)
    if pad:
        body, index = body[..., :rows_first[-1]], index[..., :rows_first[-1]]
    if transposed:
        body, index = body.t(), index.t()
    covered = torch.zeros(n, dtype=torch.bool, device=device)
    covered[index.reshape(-1)] = True
    return Buffer(name, body, storage, covered, None)


# --- one run ----------------------------------------------------------------------------------

@dataclass
class Run:
    """What one launch produced: the outputs, the fp64 reference, and any writes out of bounds."""
    got: dict            # output name -> tensor, as the kernel wrote it
    expected: dict       # output name -> fp64 tensor from the reference
    problems: list[str] = field(default_factory=list)   # writes outside the outputs, changed inputs
    seconds: float = 0.0


def run(spec: KernelSpec, kernel, shape: dict, layout: dict, dtype: str, config, seed: int, device: str) -> Run:
    """Allocate, launch once, compute the reference, and look for stray writes."""
    import torch
    buffers = allocate(spec, shape, layout, dtype, seed, device)
    views = {n: b.view for n, b in buffers.items()}
    args = spec.args(**views, **shape)
    grid = spec.grid(shape, config.meta)
    start = time.perf_counter()
    kernel[grid](*args, **config.meta, num_warps=config.num_warps, num_stages=config.num_stages)
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    problems = [p for b in buffers.values() for p in _stray_writes(b, spec.tensors[b.name].output)]
    expected = reference_outputs(spec, {n: views[n] for n in spec.inputs}, shape, config.meta)
    got = {n: views[n] for n in spec.outputs}
    return Run(got=got, expected=expected, problems=problems, seconds=seconds)


def reference_outputs(spec: KernelSpec, inputs: dict, shape: dict, meta: dict) -> dict:
    """The spec's reference on fp64 copies of the inputs; sizes and meta it names are passed too."""
    if spec.reference is None:
        raise UserError(f"{spec.name} has no reference to check against; add `reference=` to its KernelSpec")
    wide = {n: (t.double() if t.is_floating_point() else t) for n, t in inputs.items()}
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
    return {n: result[n].double() if result[n].is_floating_point() else result[n] for n in spec.outputs}


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
    head, body, tail = changed[:GUARD], changed[GUARD:GUARD + n], changed[GUARD + n:]
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


# --- crashes ----------------------------------------------------------------------------------

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
    for e in (inner, error):   # the innermost error's frames first, the outer ones as a fallback
        for frame in reversed(traceback.extract_tb(e.__traceback__)):
            if _is_user_file(frame.filename):
                return f"{_short(frame.filename)}:{frame.lineno}: {type(inner).__name__}: {inner}"
    return f"{type(inner).__name__}: {inner}"


def _is_user_file(path: str) -> bool:
    """Not this package, not the standard library, not an installed package (triton, torch)."""
    import sysconfig
    if path.startswith("<"):
        return False
    p = str(Path(path).resolve())
    paths = sysconfig.get_paths()
    library = [str(Path(__file__).resolve().parents[1])] + [str(Path(paths[k]).resolve())
                                                         for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    return not any(p.startswith(d + os.sep) for d in library)


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path
