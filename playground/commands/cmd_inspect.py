"""playground inspect: a static read of a kernel's generated code, or (--params) its launch's parameter block."""
from __future__ import annotations

import click

from . import options
from .common import load_and_compile


@click.command("inspect")
@click.argument("kernel")
@options.kernel
@click.option("--params", "show_params", is_flag=True,
              help="The launch's parameter block as the driver receives it: grid, block, shared memory, stream, and "
                   "each parameter's offset and size, read from the binary.")
@options.as_json
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, show_params, as_json):
    """A static read of KERNEL's generated code: instruction mix, vector widths, spills, pipelining.

    \b
    playground inspect gemm --target sm_90
    playground inspect softmax --target gfx942 --shape N=781
    playground inspect gemm --target sm_90 --num-stages 1     # the K loop is no longer pipelined
    playground inspect vector_add --target sm_90 --params     # what cuLaunchKernelEx receives
    """
    from .. import report
    from ..artefact import text as artefact_text
    c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout)
    if show_params:
        from ..artefact import launch_params
        from ..figures import grid
        cfg = c.config
        reading = launch_params.read(c, grid.spec_grid(c.spec, cfg.shape, cfg.meta, grid.device_of(c)))
    else:
        from ..artefact import codeinspect
        reading = codeinspect.read(c)
    click.echo(report.to_json(reading) if as_json else "\n".join(artefact_text.lines(reading)))
