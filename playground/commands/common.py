"""What running a command needs besides its options: the library's long steps under a spinner that Ctrl-C and
--timeout stop, a progress bar, warnings as one line each, the files a command must not overwrite."""
from __future__ import annotations

import contextlib
import sys

import click


def warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def warning_line(message, category, filename, lineno, file=None, line=None):
    """Python warnings from the library (sweep rows, diff variants) as one line, like the others."""
    warn(str(message))


def debug(ctx) -> bool:
    """Whether --debug was given, before or after the command's name."""
    return bool(ctx.find_root().meta.get("playground.debug"))


def set_debug(ctx, _param, value):
    if value:
        ctx.find_root().meta["playground.debug"] = True


def blocking(label: str, timeout, step, spinner: bool = True):
    """Run a library step so that Ctrl-C, --timeout and a spinner all work while it sits in C++."""
    from .. import lifecycle
    return lifecycle.run_blocking(step, timeout=timeout, label=label, spinner=spinner)


def compiled(request, timeout=None):
    """Compile a request with a spinner, Ctrl-C and --timeout working; warnings as one line each."""
    for message in request.shape_warnings():
        warn(message)
    return blocking("compiling " + request.spec.name, timeout, lambda: request.compile(warn=warn))


def request_of(kernel, target, meta, num_warps, num_stages, shape, dtype):
    """The command line's kernel options (options.kernel) as a Request."""
    from ..artefact.request import Request
    return Request.from_options(kernel, target, meta, num_warps, num_stages, shape, dtype, kernel_args())


def load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout=None):
    """The command line's kernel options as a Request (artefact/request.py), compiled."""
    return compiled(request_of(kernel, target, meta, num_warps, num_stages, shape, dtype), timeout)


def stash_kernel_args(ctx, _param, value):
    if value is not None:
        ctx.meta["playground.kernel_args"] = value


def kernel_args() -> str | None:
    """`--args` of the running command (options.kernel keeps it out of every signature)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get("playground.kernel_args") if ctx else None


def progress(wanted: bool, what: str):
    """A rich progress bar on stderr, when it is a terminal; yields the callback (done, total, row)."""
    if not wanted or not sys.stderr.isatty():
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def bar():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        with Progress(TextColumn(f"{what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task(what, total=None)
            yield lambda done, total, _row: progress.update(task, completed=done, total=total)
    return bar()


def refuse_overwrite(path, force: bool) -> None:
    from pathlib import Path

    from ..errors import UserError
    if path and Path(path).exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")


def one_format(as_json: bool, as_csv: bool) -> None:
    """--json and --csv are two ways to print one result."""
    if as_json and as_csv:
        from ..errors import UserError
        raise UserError("--json and --csv: pick one")


def show(result, text, as_json: bool = False, as_csv: bool = False) -> None:
    """A result as the user asked for it: one JSON object, CSV (its package's text.csv), or its text.lines."""
    from .. import report
    if as_json:
        click.echo(report.to_json(result))
    elif as_csv:
        click.echo(text.csv(result), nl=False)
    else:
        click.echo("\n".join(text.lines(result)))
