"""The process that runs a script on the virtual GPU (started by session.py; never imported by the CLI).

    python -m playground.virtual.script_child SETTINGS.json SCRIPT [ARGS...]
    (with "module" in SETTINGS: SCRIPT is that module's name, run as `python -m MODULE ARGS...` runs it)

It installs the virtual device (torch_device.py), the stand-in driver (driver.py) and the capture
(capture.py), or, with no target, only the capture on this machine's GPU (native.py); runs the script as
`__main__` with its own argv, and writes what it captured to the file SETTINGS names. The script's exceptions print a traceback trimmed to the script's own frames
and exit 1; its SystemExit is kept.
"""
from __future__ import annotations

import json
import os
import runpy
import sys
import traceback
from pathlib import Path


def main(argv: list[str]) -> int:
    settings = json.loads(Path(argv[0]).read_text())
    script, script_args = argv[1], argv[2:]
    from ..lifecycle import die_with_parent
    die_with_parent()
    if settings.get("script_stdout_to_stderr"):     # --json: stdout is the report's alone
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    import warnings
    # Triton 3.9 warns on every process that its FP-fusion default will change; `compile` hides it too
    warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
    from . import session
    recorder = (session.install_for_running(settings["target"], execute=settings["execute"], host_side=True,
                                            ops=settings.get("ops", False)) if settings["target"]
                else session.install_native())
    module = settings.get("module")
    if module:                 # as `python -m MODULE` runs it: the working directory first on the path
        sys.argv = [module, *script_args]
        sys.path.insert(0, os.getcwd())
    else:
        sys.argv = [script, *script_args]
        sys.path.insert(0, str(Path(script).resolve().parent))
    code = 0
    recorder.start()
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(str(Path(script).resolve()), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = 130
    except BaseException as e:  # the script's own failure: its traceback, trimmed to its frames
        print_user_traceback(e, script)
        code = 1
    finally:
        sys.stdout.flush()
        ran = {"module": module} if module else {"script": str(Path(script).resolve())}
        from .allocator import figures     # the caching allocator's model: allocated, reserved, peaks (modelled)
        trace = recorder.as_dict() | ran | {"argv": script_args, "exit_code": code} | figures()
        Path(settings["out"]).write_text(json.dumps(trace, default=str))
    return code


def print_user_traceback(e: BaseException, script: str) -> None:
    """The traceback from the script's first frame on, without runpy's, Triton's or playground's frames."""
    frames = traceback.extract_tb(e.__traceback__)
    library = (str(Path(__file__).resolve().parents[1]), "/triton/", "/torch/", "<frozen ", "runpy.py")
    user = [f for f in frames if not any(part in f.filename for part in library)]
    print("Traceback (most recent call last, the script's frames):", file=sys.stderr)
    print("".join(traceback.format_list(user or frames[-1:])), end="", file=sys.stderr)
    print("".join(traceback.format_exception_only(type(e), e)), end="", file=sys.stderr)
    removed = removed_feature(e)
    if removed:
        print(f"playground: {removed}", file=sys.stderr)


def removed_feature(e: BaseException) -> str | None:
    """A kernel that failed on a feature this Triton removed (removed_features.py): which Triton last had it, and
    the command that compiles the kernel there; the kernel is the one Triton's launch frame (its `self`) held."""
    from .. import removed_features
    from ..text import short_path
    chain, inner = [], e
    while inner is not None and len(chain) < 8:
        chain.append(str(inner))
        inner = inner.__cause__ or inner.__context__
    message = "\n".join(chain)
    if removed_features.find(message) is None:
        return None
    where, tb = None, e.__traceback__
    while tb is not None:
        kernel = tb.tb_frame.f_locals.get("self")
        fn = getattr(kernel, "fn", None)
        if hasattr(fn, "__code__"):
            # the KernelSpec its file gives it, if any; a bare kernel is compiled with the arguments a launch passes
            specs = [v.name for v in vars(sys.modules.get(fn.__module__, sys)).values()
                     if getattr(v, "kernel", None) is kernel and isinstance(getattr(v, "name", None), str)]
            where = (f"{short_path(fn.__code__.co_filename)}:{specs[0]}" if specs
                     else f"{short_path(fn.__code__.co_filename)}:{fn.__name__} --args '...'")
        tb = tb.tb_next
    return removed_features.explain(message, where)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
