"""`--triton VERSION` for the commands that compile (compile, inspect, diff): the option, declared once, and the
command run again, whole, in a child whose Triton is that version's (playground/triton_envs.py). The child's output
and exit status are the command's, so every option, --json and --out included, works as it does here."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import debug


def option(versions: int = 1):
    many = versions > 1
    return click.option(
        "--triton", "triton", default=None, metavar="VERSION" + (",VERSION" if many else ""),
        help=("Compile with another Triton: 3.6 to 3.9, as 3.8 or 3.8.0" + ("; two, 3.8,3.9, compare them (what "
              "an upgrade changes: stages, registers, spills, shared memory, occupancy, the model's time)"
              if many else "") + ". Made once per version with pip (the Triton wheel alone, about 250 MB) under "
              "~/.cache/playground/triton and reused; the installed Triton needs none."))


class Command(click.Command):
    """A command that takes --triton: it keeps the arguments it was given, to run them again elsewhere."""

    def parse_args(self, ctx, args):
        ctx.meta["playground.args"] = list(args)
        return super().parse_args(ctx, args)


def say(line: str) -> None:
    click.echo(line, err=True)


def run_elsewhere(version: str) -> bool:
    """Run the running command again under Triton `version` and leave with its exit status, unless `version` is
    the installed Triton (False: go on here). A version outside the supported ones is a one-line error."""
    from .. import triton_envs
    (version,) = triton_envs.parse(version)
    if triton_envs.is_installed(version):
        return False
    ctx = click.get_current_context()
    args = without_triton(ctx.meta["playground.args"])
    if debug(ctx) and "--debug" not in args:
        args.append("--debug")
    group = ctx.find_root().command
    module, attribute = group.callback.__module__, group.callback.__name__
    if module == "__main__":       # `python -m playground.cli`, or the file run as a script: its importable name
        main = sys.modules["__main__"]
        module = main.__spec__.name if getattr(main, "__spec__", None) else Path(main.__file__).stem
    ctx.exit(triton_envs.rerun(version, module, attribute, [ctx.info_name, *args], say))


def without_triton(args: list[str]) -> list[str]:
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--triton":
            skip = True
        elif not arg.startswith("--triton="):
            out.append(arg)
    return out
