"""playground diff: two variants of a kernel, figures side by side, then a diff of one stage."""
from __future__ import annotations

import click

from ..core import stages
from . import options
from .common import blocking, request_of


@click.command("diff")
@click.argument("kernel")
@click.option("--a", "a", multiple=True, metavar="K=V,...",
              help="Variant a: target=, num_warps=, num_stages=, dtype=, kernel=path.py:name, "
                   "a meta-parameter (BLOCK_SIZE_M=64) or a dimension (M=1000).")
@click.option("--b", "b", multiple=True, metavar="K=V,...", help="Variant b, as --a.")
@options.kernel
@click.option("--show", default=None, metavar="STAGE",
              help=f"The stage to diff: {stages.listing(binaries=False)}. Default: "
                   "the targets' assembly (ptx, amdgcn); ttgir when one side is NVIDIA and the other AMD.")
@click.option("--raw", is_flag=True, help="Diff the exact text; by default addresses and register, value "
                                          "and label numbers are replaced by # first.")
@click.option("--context", "-U", default=3, show_default=True, help="Lines of context around each change.")
@options.as_json
@options.no_color
@click.option("--exit-code", is_flag=True,
              help="Exit 1 when the two variants compile to different binaries (as git diff --exit-code).")
def command(kernel, a, b, target, meta, num_warps, num_stages, shape, dtype, timeout, show, raw, context,
            as_json, no_color, exit_code):
    """Compare two variants of KERNEL: figures side by side, then a diff of one stage.

    Both variants start from the other options (--target, --meta, ...); --a and --b say what
    each changes.

    \b
    playground diff gemm --a target=sm_80 --b target=sm_90 --show sass
    playground diff gemm --target sm_90 --a num_warps=4 --b num_warps=8 --show ttgir
    playground diff gemm --a BLOCK_SIZE_K=32 --b BLOCK_SIZE_K=64,num_stages=4
    """
    from .. import report
    from ..compare import diff
    from ..compare import text as compare_text
    from ..report import render
    base = request_of(kernel, target, meta, num_warps, num_stages, shape, dtype)
    cmp = blocking("compiling both variants", timeout, lambda: diff.compare(base, a, b, show, raw, context))
    if as_json:
        click.echo(report.to_json(cmp))
    else:
        click.echo("\n".join(compare_text.lines(cmp, render.use_color(no_color))))
    if exit_code and cmp.a.compiled.hash != cmp.b.compiled.hash:
        from ..errors import KernelFailure
        raise KernelFailure(f"the variants compile to different binaries ({cmp.a.label}: "
                            f"{cmp.a.compiled.hash[:12]}, {cmp.b.label}: {cmp.b.compiled.hash[:12]})")
