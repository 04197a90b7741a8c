"""playground inspect: a static read of a kernel's generated code."""
from __future__ import annotations

import click

from . import options
from .common import load_and_compile


@click.command("inspect")
@click.argument("kernel")
@options.kernel
@options.as_json
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, as_json):
    """A static read of KERNEL's generated code: instruction mix, vector widths, spills, pipelining.

    \b
    playground inspect gemm --target sm_90
    playground inspect softmax --target gfx942 --shape N=781
    playground inspect gemm --target sm_90 --num-stages 1     # the K loop is no longer pipelined
    """
    from .. import report
    from ..artefact import codeinspect
    from ..artefact import text as artefact_text
    reading = codeinspect.read(load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout))
    click.echo(report.to_json(reading) if as_json else "\n".join(artefact_text.lines(reading)))
