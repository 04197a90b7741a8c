"""`playground run`: start the child that runs the script, relay signals, read what it captured.

The script runs in its own process (script_child.py) so that the patches to torch and Triton never leak into
the caller; its stdout and stderr are the terminal's. Ctrl-C reaches the child (same process group)
and the parent waits for it, then kills anything left (lifecycle.kill_children).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from .. import compat
from ..core import targets
from ..errors import UserError
from .launches import TRACE_FORMAT


@dataclass
class Run:
    """What one `playground run` captured: the trace (launches, variants, autotune picks) and the script's exit code."""
    trace: dict
    exit_code: int

    def as_dict(self) -> dict:
        return self.trace

    @property
    def launches(self) -> list[dict]:
        return self.trace.get("launches", [])

    @property
    def variants(self) -> list[dict]:
        return self.trace.get("variants", [])


def run_script(script: str, args: list[str], target: str | None, execute: bool = True,
               quiet_stdout: bool = False, module: bool = False, ops: bool = False) -> Run:
    """Run `script` with `args` on a virtual GPU of `target`, or, with no target, on this machine's GPU
    (native.py: measured); returns once the script has ended. With `module`, `script` is a module's name, run
    as `python -m` runs it (`pytest`: a project's own tests, each launch attributed to the test it ran in). With
    `ops`, the trace lists every ATen op the script ran on GPU tensors (dispatch.py)."""
    compat.check_torch()
    path = Path(script)
    if module:
        if not _importable(script):
            from ..core.imports import install_hint
            raise UserError(f"no module named '{script}'{install_hint(script)}", param="module")
    elif not path.is_file():
        raise UserError(f"no such script: {script}")
    target_name = targets.resolve(target).label if target else None
    if target_name is None and not execute:
        raise UserError("no_exec runs no kernel on a virtual GPU; without `target` the script runs on this GPU: "
                        "name a target (`target` sm_90) to capture without running", param="no_exec")
    if target_name is None and ops:
        raise UserError("ops lists the ATen ops of a run on a virtual GPU; without `target` the script runs on this "
                        "GPU: name a target (`target` sm_90)", param="ops")
    from ..lifecycle import child_env, run_child
    # the JIT must compile for the target (the capture interprets): no TRITON_INTERPRET in the child
    settings = {"target": target_name, "execute": execute, "script_stdout_to_stderr": quiet_stdout, "ops": ops,
                **({"module": script} if module else {})}
    code, trace, _ = run_child("playground.virtual.script_child", settings,
                               [script if module else str(path), *args], env=child_env(TRITON_INTERPRET=None))
    if trace is None:
        raise UserError(f"{script}: the script's process ended (exit {code}) before it could report")
    trace = {"format": TRACE_FORMAT, **trace}
    return Run(trace=trace, exit_code=code)


def _importable(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


# --- installing the virtual GPU in this process (the child, or a command reading a trace) ---------
_INSTALLED: dict = {}


def install_for_running(target: str, execute: bool = True, host_side: bool = False, ops: bool = False):
    """The whole virtual GPU, for script_child.py: torch's side, Triton's driver, the capture; with `host_side`,
    the script's copies and sync points too (host_side.py), and with `ops` its ATen ops."""
    from . import capture, smi, torch_device
    from .driver import VirtualDriver
    from .gpu import VirtualGPU
    gpu = VirtualGPU(target)
    smi.install(gpu)                # a library that asks nvidia-smi which GPU it is on (FlagGems) gets an answer
    recorder = capture.Recorder(gpu, execute=execute)
    torch_device.install(gpu, skip_expensive=lambda: recorder.timing_depth > 0)
    import torch
    torch.cuda.synchronize = lambda device=None: recorder.synchronize()
    from ..run import interpreter
    interpreter.install()           # bf16 math and grid dependency control as a GPU does them (run/interpreter.py)
    torch_device._state.update(host_now=recorder.host_now, host_waits=recorder.synchronize)
    compat.reach("driver").set_active(VirtualDriver(gpu, recorder))
    capture.install(recorder)
    if host_side:
        from . import host_side as watch_host
        watch_host.install(recorder, gpu, trace_ops=ops)
    recorder.say(f"a virtual {gpu.device.name} ({gpu.target.name}): tensors on the CPU, kernels in Triton's "
                 f"interpreter{'' if execute else ' (not executed: --no-exec)'}; every time reported on it is "
                 f"modelled, not measured")
    _INSTALLED["target"] = target
    return recorder


def install_native():
    """This machine's GPU, watched (native.py): the script's kernels run there and are timed."""
    import torch

    from . import native
    from .gpu import VirtualGPU
    label = targets.native().label          # the part the driver names (an H200), for its figures and model
    recorder = native.NativeRecorder(VirtualGPU(label))
    native.install(recorder)
    recorder.say(f"this machine's {torch.cuda.get_device_name(torch.cuda.current_device())} ({label}): the script "
                 f"runs on it; each launch is timed with CUDA events from Triton's launch hooks (measured), the "
                 f"model's time beside it (modelled)")
    _INSTALLED["target"] = label
    return recorder


def install_for_reading(target: str) -> None:
    """Enough of the virtual GPU to read kernels out of a script (trace_kernels.load_kernel): device queries
    answer for `target` (installed once per process)."""
    if _INSTALLED.get("target") == target:
        return
    if _INSTALLED:
        raise UserError(f"kernels for {_INSTALLED['target']} are loaded already; open one target per command")
    from . import capture, smi, torch_device
    from .driver import VirtualDriver
    from .gpu import VirtualGPU
    gpu = VirtualGPU(target)
    smi.install(gpu)                # a library that asks nvidia-smi which GPU it is on (FlagGems) gets an answer
    torch_device.install(gpu)
    compat.reach("driver").set_active(VirtualDriver(gpu, capture.Recorder(gpu, execute=False)))
    _INSTALLED.update(target=target)


@contextlib.contextmanager
def reading(target: str):
    """While a script is read, a launch in it does nothing (_NotWhileReading skips the statement); after,
    the JIT is as it was, for Request.compile's binder."""
    JITFunction = compat.reach("JITFunction")
    install_for_reading(target)
    original = JITFunction.run

    def no_launch(self, *args, grid, warmup, **kwargs):
        raise _NotWhileReading()

    JITFunction.run = no_launch
    try:
        yield
    finally:
        JITFunction.run = original


class _NotWhileReading(RuntimeError):
    """A launch while reading a script's kernels: the statement is skipped."""
