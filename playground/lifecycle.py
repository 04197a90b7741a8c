"""Long operations that can be stopped: signals, child processes, time limits and signs of life.

The rules every command keeps:
- SIGINT (Ctrl-C) or SIGTERM to the main process ends the command within a moment, with every
  process it started (sweep's compile workers, check's interpreter worker, ptxas). A second
  one kills at once.
- A process of ours that outlives its parent is a bug: workers ask the kernel to kill them when
  the parent dies (Linux's PR_SET_PDEATHSIG), so even a SIGKILL leaves nothing behind.
- A blocking step (a compile can sit minutes in LLVM or ptxas) runs in a thread while the main
  thread stays free to answer signals, stop at a time limit and show a spinner on a terminal.
  Triton releases the GIL while it compiles, so the main thread keeps running; but a thread
  inside C++ cannot be cancelled, so a command that gives up on it leaves through `exit_now`.

Exit codes: 130 after SIGINT and 143 after SIGTERM (128 + the signal), as shells report them.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

from .errors import KernelFailure, UserError

SPINNER_AFTER_S = 2.0     # a step that takes longer than this shows a spinner on a terminal


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; `signum` says which."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class TimedOut(KernelFailure):
    """A step ran past its --timeout."""


def install_handlers():
    """The first SIGINT or SIGTERM raises Interrupted in the main thread; a second ends at once.

    Returns the handlers it replaced, for restore_handlers (a CLI called in-process, as the tests
    do, leaves its host's handlers as it found them).
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))

    def second(signum, _frame):
        kill_children()
        os._exit(128 + signum)

    def first(signum, _frame):
        signal.signal(signal.SIGINT, second)
        signal.signal(signal.SIGTERM, second)
        raise Interrupted(signum)

    signal.signal(signal.SIGINT, first)
    signal.signal(signal.SIGTERM, first)
    return previous


def restore_handlers(previous) -> None:
    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])


STEP_THREAD_PREFIX = "playground: "


def step_running() -> bool:
    """Whether a run_blocking step's thread is still at work (and so cannot be waited for)."""
    return any(t.name.startswith(STEP_THREAD_PREFIX) and t.is_alive() for t in threading.enumerate())


def kill_children() -> None:
    """Kill every process this one started, and theirs, leaves first."""
    import psutil
    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    for child in reversed(children):
        try:
            child.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(children, timeout=1)


def exit_now(code: int) -> None:
    """Leave without waiting for threads or pools that cannot be stopped: flush, kill children, go."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    kill_children()
    os._exit(code)


def die_with_parent() -> None:
    """In a worker: have the kernel SIGKILL this process when its parent dies (Linux only)."""
    if not sys.platform.startswith("linux"):
        return
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        return
    if os.getppid() == 1:     # the parent died before the call took effect
        os._exit(1)


def run_blocking(step, *, timeout: float | None = None, label: str = "working", what: str = "--timeout",
                 spinner: bool = True):
    """`step()` in a thread, the main thread waiting: signals are answered, `timeout` enforced, and a
    spinner shown on a terminal once the step has taken SPINNER_AFTER_S.

    On time out raises TimedOut; the step's thread keeps running (C++ cannot be cancelled), so the
    caller should leave through exit_now. The step's own exception is re-raised here.
    """
    if timeout is not None and timeout <= 0:
        raise UserError(f"timeout {timeout:g}: must be a positive number of seconds", param="timeout")
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = step()
        except BaseException as e:      # handed to the main thread, which raises it
            outcome["error"] = e

    thread = threading.Thread(target=target, name=STEP_THREAD_PREFIX + label, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(SPINNER_AFTER_S if timeout is None else min(SPINNER_AFTER_S, timeout))
    if thread.is_alive():
        with _spinner(label, start) if spinner else contextlib.nullcontext():
            while thread.is_alive():
                if timeout is not None and time.monotonic() - start >= timeout:
                    raise TimedOut(f"{label}: still running after {timeout:g} s; stopped ({what})")
                thread.join(0.1)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _spinner(label: str, start: float):
    if not sys.stderr.isatty():
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def shown():
        from rich.console import Console
        console = Console(stderr=True)
        with console.status(f"{label}…") as status:
            stop = threading.Event()

            def tick():
                while not stop.wait(0.5):
                    status.update(f"{label}… {time.monotonic() - start:.0f} s (Ctrl-C stops it)")
            ticker = threading.Thread(target=tick, daemon=True)
            ticker.start()
            try:
                yield
            finally:
                stop.set()
    return shown()


PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_env(**changes) -> dict:
    """This process's environment for a child of ours: the project importable, `changes` applied
    (a value of None removes the variable)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PROJECT_ROOT, env.get("PYTHONPATH")]))
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run_child(module: str, settings: dict, args=(), env: dict | None = None, **popen) -> tuple[int, dict | None, str]:
    """`python -m module SETTINGS.json *args`, whose answer is the JSON file SETTINGS' "out" names:
    (exit code, the answer or None when it wrote none, its stderr when popen captures it). The child
    is stopped if this process is interrupted while it runs."""
    import json
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="playground-child-") as tmp:
        out = os.path.join(tmp, "answer.json")
        settings_file = os.path.join(tmp, "settings.json")
        with open(settings_file, "w") as f:
            json.dump({**settings, "out": out, "scratch": tmp}, f)
        child = subprocess.Popen([sys.executable, "-m", module, settings_file, *args], env=env or child_env(),
                                 **popen)
        try:
            _, err = child.communicate()
        except BaseException:
            child.terminate()
            try:
                child.wait(timeout=5)
            except Exception:
                child.kill()
            raise
        answer = None
        if os.path.isfile(out):
            with open(out) as f:
                answer = json.load(f)
        return child.returncode, answer, err or ""
