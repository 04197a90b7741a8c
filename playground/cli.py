"""playground: see a Triton kernel from Python to SASS, and check it against PyTorch.

The command line's contract, which every command keeps: an error is one line on stderr, exit 2 for bad input
and 1 for a kernel or check that fails; --debug, before or after the command's name, adds the traceback and
changes nothing else; SIGINT or SIGTERM stops the command and every process it started. The commands
themselves live in playground/commands/, one module each, loaded when run (or listed by --help).
"""
from __future__ import annotations

import sys

import click

from playground import commands
from playground.commands import common, options


class Group(click.Group):
    """The commands of playground/commands/, loaded by name, each keeping the contract above."""

    def list_commands(self, ctx):
        return commands.names()

    def get_command(self, ctx, name):
        command = commands.load(name)
        if command is not None and not any(p.name == "debug" for p in command.params):
            command.params.append(options.debug)
        return command

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        import warnings

        from playground import lifecycle
        previous = lifecycle.install_handlers()
        previous_show, warnings.showwarning = warnings.showwarning, common.warning_line
        try:
            try:
                value = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
                code = value if isinstance(value, int) else 0
            except click.UsageError as e:     # click's three-line usage message, as one line
                where = f" (see `{e.ctx.command_path} --help`)" if e.ctx else ""
                click.echo(f"error: {e.format_message()}{where}", err=True)
                code = value = 2
            except click.ClickException as e:
                click.echo(f"error: {e.format_message()}", err=True)
                code = value = e.exit_code
            except click.Abort:
                click.echo("error: aborted", err=True)
                code = value = 1
            except BrokenPipeError:            # the reader went away (`| head`): stop quietly, as SIGPIPE would
                code = value = _stdout_closed()
            if standalone_mode:
                sys.exit(code)
            return value
        finally:
            lifecycle.restore_handlers(previous)
            warnings.showwarning = previous_show

    def invoke(self, ctx):
        from playground import lifecycle
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, BrokenPipeError):
            raise
        except KeyboardInterrupt as e:
            _show_traceback(ctx)
            code = e.exit_code if isinstance(e, lifecycle.Interrupted) else 130
            click.echo(f"error: interrupted ({e}); stopped with every process it started", err=True)
            lifecycle.exit_now(code)
        except Exception as e:
            from playground.errors import KernelFailure, UserError
            _show_traceback(ctx)
            if isinstance(e, UserError):
                click.echo(f"error: {e.naming(_flag_namer(ctx))}", err=True)
                code = e.exit_code
            elif isinstance(e, KernelFailure):
                click.echo(f"error: {e}", err=True)
                code = e.exit_code
            else:
                hint = "" if common.debug(ctx) else " (run with --debug for the traceback)"
                click.echo(f"error: {type(e).__name__}: {e}{hint}", err=True)
                code = 1
            if isinstance(e, lifecycle.TimedOut) and lifecycle.step_running():
                lifecycle.exit_now(code)      # the step's thread is still inside the compiler: leave without it
            sys.exit(code)


def _flag_namer(ctx):
    """The library's parameter names (num_sms) as the running command's flags (--num-sms); None for a name
    the command has no option for."""
    command = ctx.command.get_command(ctx, ctx.invoked_subcommand) if ctx.invoked_subcommand else None
    flags = {}
    for option in (p for p in (command.params if command else []) if isinstance(p, click.Option)):
        flag = max(option.opts, key=len)
        flags.update({option.name: flag, flag.lstrip("-").replace("-", "_"): flag})     # --args keeps kernel_args
    return flags.get


def _stdout_closed() -> int:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again; 128 + SIGPIPE."""
    import os
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):     # no real file descriptor (an in-process test runner)
        pass
    return 141


def _show_traceback(ctx) -> None:
    if common.debug(ctx):
        import traceback
        traceback.print_exc()


def _version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    from playground.versions import report
    click.echo(report())
    ctx.exit()


@click.group(cls=Group)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the playground, Triton, torch and CUDA/ROCm versions in use.")
@click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=common.set_debug,
              help="Show the Python traceback of an error; changes nothing else.")
def main():
    """See a Triton kernel's every compilation stage, and check it against PyTorch.

    Exit status: 0 ok; 1 a kernel that fails to compile or a check that fails; 2 bad input;
    130 or 143 when stopped by SIGINT or SIGTERM.
    """


if __name__ == "__main__":
    main()
