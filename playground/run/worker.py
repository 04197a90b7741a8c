"""Where kernels run: on the local GPU in this process, or in Triton's interpreter in one long-lived
worker process.

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

`check` may keep several workers busy at once, one per core (`slot` names which one a call goes to; each is
started on first use and kept): the interpreter is one Python thread, so a second worker is the only way a
second core helps.
"""
from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import traceback
from pathlib import Path

from ..core.targets import has_gpu
from ..errors import KernelFailure, UserError
from ..lifecycle import die_with_parent

INTERPRETER = "interpreter"
CUDA = "cuda"
_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def mode(force_interpreter: bool = False) -> str:
    """CUDA when a GPU is usable (torch sees one), the interpreter otherwise."""
    if force_interpreter or interpreting_here():
        return INTERPRETER
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


def call(function, where: str, *, time_limit: float | None = None, slot: int = 0, **kwargs):
    """Call `function(**kwargs)` where kernels can run in mode `where`: here, or in the worker.

    The function travels to the worker by reference (pickle names its module and name), so it must
    be a module-level function.

    `time_limit` (seconds) holds for the worker: past it the worker is killed and TimedOutInWorker
    raised. A kernel running here, on a GPU, cannot be stopped mid-launch, so there it does not apply.
    `slot`: which of the interpreter workers answers (one caller at a time per slot).
    """
    if where == CUDA or interpreting_here():
        return function(**kwargs)
    return _worker(slot).call(function, kwargs, time_limit)


def parallel_slots(where: str, runs: int, elements: int | None = None) -> int:
    """How many interpreter workers `runs` calls in mode `where` may keep busy at once: one per core this
    process may use, at most MAX_SLOTS, and one for fewer than MIN_RUNS_PER_SLOT runs each or, where `elements`
    (the runs' tensors together) is given, fewer than ELEMENTS_PER_SLOT each: a worker's start, torch and the
    interpreter's first launch, is about 2-3 s of CPU, more than a quick check's small runs take together (on 2
    cores a second worker made `check softmax --quick` 4.9 -> 7.7 s). PLAYGROUND_CHECK_JOBS sets the number."""
    if where == CUDA or interpreting_here():
        return 1             # one GPU, or this very process: one at a time
    asked = os.environ.get("PLAYGROUND_CHECK_JOBS")
    if asked:
        try:
            return max(1, int(asked))
        except ValueError:
            raise UserError(f"PLAYGROUND_CHECK_JOBS={asked}: a whole number of workers") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    by_work = runs // MIN_RUNS_PER_SLOT if elements is None else min(runs // MIN_RUNS_PER_SLOT,
                                                                      elements // ELEMENTS_PER_SLOT)
    return max(1, min(cores, MAX_SLOTS, by_work))


MAX_SLOTS = 4
MIN_RUNS_PER_SLOT = 12
# Measured on the shipped kernels (2 cores): a --quick plan holds 0.1M to 1.6M elements and runs faster on one
# worker; a full plan holds 7M to 37M, and a second worker halves it (a Welford layer norm, 116 -> 55 s)
ELEMENTS_PER_SLOT = 2 * 1024 * 1024


def start(where: str, slots: int, warm) -> float:
    """Start the interpreter workers `slots` calls will use, side by side, each calling `warm()` (a module-level
    function that imports what a run needs: torch above all, about 2 s); the seconds it took, 0 for workers
    already running (or none needed)."""
    if where == CUDA or interpreting_here():
        return 0.0
    import time
    began = time.perf_counter()
    fresh = [slot for slot in range(slots) if _WORKERS.get(slot) is None or not _WORKERS[slot].alive()]
    for slot in fresh:
        _worker(slot).send(warm, {})
    for slot in fresh:
        _WORKERS[slot].receive()
    return time.perf_counter() - began if fresh else 0.0


def stop_all() -> None:
    """Kill every worker now (an interrupted check): a call waiting on one returns with WorkerDied."""
    for w in list(_WORKERS.values()):
        if w.alive():
            w.proc.kill()


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
        self.proc = subprocess.Popen([sys.executable, "-c", "from playground.run.worker import serve; serve()"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, function, kwargs: dict, time_limit: float | None = None):
        self.send(function, kwargs)
        return self.receive(time_limit)

    def send(self, function, kwargs: dict) -> None:
        try:
            pickle.dump((function, kwargs), self.proc.stdin)
            self.proc.stdin.flush()
        except BrokenPipeError:
            code = self.proc.wait()
            raise WorkerDied(_death_message(code)) from None

    def receive(self, time_limit: float | None = None):
        import select
        try:
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


_WORKERS: dict[int, _Worker] = {}


def _worker(slot: int = 0) -> _Worker:
    w = _WORKERS.get(slot)
    if w is None or not w.alive():
        w = _WORKERS[slot] = _Worker()
    return w


@atexit.register
def _stop_worker():
    for w in list(_WORKERS.values()):
        w.close()


def serve():
    """The worker's loop: answer (function, kwargs) pickles until stdin closes."""
    die_with_parent()
    import warnings
    # numpy's overflow warnings from the interpreter's casts: an overflow that matters shows in the comparison
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="triton.runtime.interpreter")
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
