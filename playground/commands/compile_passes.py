"""`compile --passes`: the pass list, one pass's diff, or the pass that introduced a pattern."""
from __future__ import annotations

import click


def show_passes(c, show_pass, find_pattern, as_json, timeout, expect_pass=None, by_time=False):
    from .. import lifecycle, report
    from ..artefact import passes
    from ..artefact import text as artefact_text
    from ..errors import KernelFailure
    from ..report import render
    log = lifecycle.run_blocking(lambda: passes.log(c), timeout=timeout, label="compiling with IR printing on")
    shown = log.pick(show_pass) if show_pass else None
    found = log.find(find_pattern) if find_pattern else None
    if as_json:
        data = {**log.as_dict(), **({"shown": {"number": shown.number, "diff": shown.diff()}} if shown else {}),
                **({"found": found} if find_pattern else {})}
        click.echo(report.to_json({**render.summary(c), "passes": data}))
    elif shown:
        click.echo(f"// pass {shown.number} of {len(log.passes)}: {shown.argument} ({shown.name}, in {shown.pipeline})"
                   + (f" {{{shown.options}}}" if shown.options else "") + f"; +{shown.added} -{shown.removed} lines")
        click.echo(shown.diff() if shown.changed else "(no change)\n", nl=False)
    elif found is None:
        click.echo("\n".join(artefact_text.slowest_lines(log) if by_time else artefact_text.lines(log)))
    if found is not None and not found["lines"]:
        raise KernelFailure(artefact_text.found_line(log, found))
    if found is not None and not as_json:
        click.echo(artefact_text.found_line(log, found))
        for line in found["lines"]:
            click.echo(f"    {line}")
    if expect_pass:
        verdict = passes.expected_pass(log, found, expect_pass)
        if verdict:
            raise KernelFailure(verdict)
        click.echo(f"expect-pass {expect_pass}: holds")
