"""playground grid: a kernel's launch grid at a shape, and the waves it runs in."""
from __future__ import annotations

import click

from . import options
from .common import load_and_compile


@click.command("grid")
@click.argument("kernel")
@options.kernel
@options.num_sms
@click.option("--map", "show_map", is_flag=True, help="Draw the tile grid with the wave each tile runs in.")
@options.as_json
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, num_sms, show_map, as_json):
    """KERNEL's launch grid at a shape: CTAs, the tile each owns, and the waves they run in on the target.

    \b
    playground grid gemm --shape M=4096,N=4096,K=4096 --target sm_90
    playground grid gemm --shape M=4096,N=4096,K=4096 --target sm_90 --map
    playground grid softmax --shape M=1823,N=781 --target gfx942 --json
    """
    from .. import report
    from ..figures import launch
    from ..figures import text as figures_text
    c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout)
    plan = launch.plan(c, num_sms)
    click.echo(report.to_json(plan) if as_json else "\n".join(figures_text.lines(plan, c, show_map)))
