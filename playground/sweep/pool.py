"""The sweep's workers: a pebble process pool of spawned interpreters.

Spawned workers start clean (no forked Triton state). Triton's on-disk cache is shared between
them; it writes every file to a temporary name and renames it into place, so two processes
compiling the same kernel at once both end with a whole entry. A config whose compile raises,
that kills its worker, or that runs past --timeout is that config's failure alone; pebble
replaces the worker.
"""
from __future__ import annotations

import contextlib
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures import TimeoutError as FutureTimeout

from ..lifecycle import die_with_parent
from . import rows


def _warm_worker() -> None:
    """In each worker, once: die with the parent, and import the compile path and what a row reads before the
    first config. Not the model: the parent models the rows (triage.finish_modelled)."""
    die_with_parent()
    import triton.compiler  # noqa: F401

    from ..artefact import compiler, resources  # noqa: F401
    from ..figures import occupancy  # noqa: F401


def _work(task: dict) -> dict:
    """Runs in a worker: one config, its failure caught and returned as data. A task marked `"model": False`
    stops before the performance model, which the parent adds to several rows at once (rows.modelled)."""
    try:
        from ..artefact.request import Request
        return rows.row(Request.from_ref(task["request"]), task["config"], task["num_sms"],
                        model=task.get("model", True))
    except KeyboardInterrupt:
        raise
    except BaseException as e:   # SystemExit from a user's file counts as that config's failure too
        return rows.failure(rows.one_line(e))


@contextlib.contextmanager
def _main_not_rerun():
    """Start workers without re-running the caller's script in each of them.

    A spawned child normally re-imports the parent's `__main__` file, which, in a script
    without an `if __name__ == "__main__":` guard, would start the sweep again. The workers
    need nothing from that script: while the pool lives (it starts replacement workers at any
    time), they see a `__main__` with no file.
    """
    import sys
    import types
    real = sys.modules["__main__"]
    if getattr(real, "__file__", None) is None:
        yield
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real


def in_workers(tasks: list[dict], workers: int, finish, timeout: float | None = None,
               gather: float = 0.0) -> None:
    """Run tasks in a pebble process pool of `workers` spawned processes; `finish(done)` with the list of
    (task, result) pairs ready, in the tasks' order.

    `gather`: seconds a result may wait for others, so that they are handed over together (at most
    GATHER_MOST at once, and all that are left when no task is still running).

    pebble gives each task its own time limit and reports a worker that died as that task's
    failure (ProcessExpired), replacing the worker; so a crash or a hang fails one config and the
    others go on. If this is interrupted (Ctrl-C, SIGTERM), the pool is stopped, its workers killed.
    """
    import multiprocessing
    import time

    from pebble import ProcessExpired, ProcessPool
    with _main_not_rerun():
        pool = ProcessPool(max_workers=workers, initializer=_warm_worker,
                           context=multiprocessing.get_context("spawn"))
        try:
            futures = {pool.schedule(_work, args=(task,), timeout=timeout): task for task in tasks}
            pending = set(futures)
            ready: list[tuple[dict, dict]] = []
            first_ready = 0.0
            while pending:
                left = None if not ready else max(first_ready + gather - time.monotonic(), 0.0)
                done, pending = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
                if done and not ready:
                    first_ready = time.monotonic()
                for future in sorted(done, key=lambda f: futures[f]["index"]):
                    task = futures[future]
                    try:
                        result = future.result()
                    except FutureTimeout:
                        result = _timed_out(timeout)
                    except ProcessExpired as e:
                        result = rows.failure(f"the compiler process died ({_exit_reason(e.exitcode)}) compiling "
                                          f"this config")
                    except Exception as e:
                        result = rows.failure(rows.one_line(e))
                    ready.append((task, result))
                if ready and (not pending or len(ready) >= GATHER_MOST
                              or time.monotonic() >= first_ready + gather):
                    finish(sorted(ready, key=lambda pair: pair[0]["index"]))
                    ready = []
            pool.close()
        except BaseException:
            pool.stop()        # kills the workers; then join returns at once
            raise
        finally:
            pool.join()


GATHER_MOST = 8


def _timed_out(timeout: float) -> dict:
    return rows.failure(f"still compiling after {timeout:g} s: stopped (--timeout)")


def _exit_reason(code: int | None) -> str:
    import signal
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
