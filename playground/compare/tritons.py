"""`diff KERNEL --triton 3.8,3.9`: one kernel compiled by two Tritons, compared as two variants are (diff.py):
what an upgrade changed in the stages, registers, spills, shared memory, occupancy and the model's time.

Triton is one per process, so a side whose Triton is not this process's is compiled in a child of this same
Python whose path puts that Triton's side environment first (playground/triton_envs.py); the child reads its side
(`diff.side`) and hands it back as plain data. A side that does not compile is a finding, not a failure: its
one-line reason (for a feature its Triton removed, which Triton last had it: removed_features.py) stands beside
the other side's figures.

usage (the child): python -m playground.compare.tritons SETTINGS.json
"""
from __future__ import annotations

import json
import subprocess
import sys

from .. import lifecycle, triton_envs
from ..errors import KernelFailure, UserError
from .diff import Comparison, Side, check_context, check_stage, comparison, failed_side, side


def compare(options: dict, versions: list[str], stage: str | None = None, raw: bool = False,
            context: int = 3) -> Comparison:
    """The kernel the command's `options` describe (kernel, target, meta, ... as Request.from_options takes them),
    compiled by each Triton of `versions` (two; each made with triton_envs.ensure first) and compared."""
    check_context(context)
    sides = [read_in(version, options, stage, raw) for version in versions]
    failed = [s for s in sides if s.error]
    if len(failed) == len(sides):
        raise KernelFailure("; ".join(f"{s.label}: {s.error}" for s in failed))
    stage = stage or sides[0].launch.get("stage") or sides[1].launch.get("stage")
    for s in sides:
        s.launch.pop("stage", None)
    return comparison(sides[0].launch["kernel"], stage, sides[0], sides[1], raw, context)


def read_in(version: str, options: dict, stage: str | None, raw: bool) -> Side:
    """One side, read by Triton `version`: here when it is the installed one, else in its side environment."""
    if triton_envs.is_installed(version):
        return read(options, stage, raw)
    path = triton_envs.find(version)
    if path is None:          # the command makes it first, with its progress on the terminal
        raise UserError(f"triton {version}: no side environment yet", param="triton")
    code, answer, err = lifecycle.run_child(__name__, {"options": options, "stage": stage, "raw": raw},
                                            env=triton_envs.child_env(path), stderr=subprocess.PIPE, text=True)
    said = [line for line in (err or "").splitlines() if line.strip()]
    if answer is None:
        raise KernelFailure(f"triton {version}: its process ended (exit {code}) without an answer: "
                            f"{said[-1] if said else 'no message'}")
    for line in said:                                  # its warnings, one line each, as ours
        print(line, file=sys.stderr)
    if "user_error" in answer:
        raise UserError(answer["user_error"], param=answer.get("param"))
    return Side.from_dict(answer["side"])


def read(options: dict, stage: str | None, raw: bool) -> Side:
    """One side, in this process's Triton: the request, checked, compiled and read; a compile that fails is the
    side's `error`. The stage diffed rides in its launch until `compare` takes it out."""
    from ..artefact.request import Request
    from ..core import registry
    from ..core.stages import default_for
    request = Request.from_options(**options)
    registry.check_one_gpu(request.spec, [request.target.label])
    stage = stage or default_for(request.target.backend)
    check_stage(stage, request.target)
    version = triton_envs.installed()
    label = f"triton {version}"
    try:
        c = request.compile(warn=lambda message: print(f"warning: {message}", file=sys.stderr))
        out = side(request, c, stage, raw, label, triton=version)
    except (KernelFailure, UserError) as e:
        out = failed_side(request, str(e), label, triton=version)
    out.launch["stage"] = stage
    return out


def _child(settings_file: str) -> int:
    import warnings
    with open(settings_file) as f:
        settings = json.load(f)
    warnings.showwarning = lambda message, *_args, **_kw: print(f"warning: {message}", file=sys.stderr)
    try:
        answer = {"side": read(settings["options"], settings["stage"], settings["raw"]).plain()}
    except UserError as e:
        answer = {"user_error": str(e), "param": e.param}
    with open(settings["out"], "w") as f:
        json.dump(answer, f, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
