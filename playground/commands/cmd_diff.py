"""playground diff: two variants of a kernel, figures side by side, then a diff of one stage."""
from __future__ import annotations

import click

from ..core import stages
from . import options, other_triton
from .common import blocking, kernel_args, request_of


@click.command("diff", cls=other_triton.Command)
@click.argument("kernel")
@click.option("--a", "a", multiple=True, metavar="K=V,...",
              help="Variant a: target=, num_warps=, num_stages=, dtype=, kernel=path.py:name, "
                   "a meta-parameter (BLOCK_SIZE_M=64) or a dimension (M=1000).")
@click.option("--b", "b", multiple=True, metavar="K=V,...", help="Variant b, as --a.")
@options.kernel
@other_triton.option(versions=2)
@click.option("--show", default=None, metavar="STAGE",
              help=f"The stage to diff: {stages.listing(binaries=False)}. Default: "
                   "the targets' assembly (ptx, amdgcn); ttgir when one side is NVIDIA and the other AMD.")
@click.option("--raw", is_flag=True, help="Diff the exact text; by default addresses and register, value "
                                          "and label numbers are replaced by # first.")
@click.option("--context", "-U", default=3, show_default=True, help="Lines of context around each change.")
@options.as_json
@options.no_color
@click.option("--exit-code", is_flag=True,
              help="Exit 1 when the two variants compile to different binaries (as git diff --exit-code), or "
                   "one does not compile.")
def command(kernel, a, b, target, meta, num_warps, num_stages, shape, dtype, timeout, triton, show, raw, context,
            as_json, no_color, exit_code):
    """Compare two variants of KERNEL: figures side by side, then a diff of one stage.

    Both variants start from the other options (--target, --meta, ...); --a and --b say what
    each changes.

    \b
    playground diff gemm --a target=sm_80 --b target=sm_90 --show sass
    playground diff gemm --target sm_90 --a num_warps=4 --b num_warps=8 --show ttgir
    playground diff gemm --a BLOCK_SIZE_K=32 --b BLOCK_SIZE_K=64,num_stages=4
    playground diff ./examples/block_pointers.py --target sm_90 --triton 3.8,3.9   # what an upgrade changes
    """
    from .. import report, triton_envs
    from ..compare import diff
    from ..compare import text as compare_text
    from ..errors import UserError
    from ..report import render
    versions = triton_envs.parse(triton, most=2) if triton else []
    if len(versions) == 1:
        other_triton.run_elsewhere(versions[0])     # unless it is the installed Triton: its output is this command's
    if len(versions) == 2:
        if a or b:
            raise UserError("--triton A,B compares two Tritons, --a and --b two variants: give one or the other")
        from ..compare import tritons
        for version in versions:            # made before the spinner starts: pip shows its own progress
            if not triton_envs.is_installed(version):
                triton_envs.ensure(version, other_triton.say)
        options_ = dict(kernel=kernel, target=target, meta=meta, num_warps=num_warps, num_stages=num_stages,
                        shape=shape, dtype=dtype, args=kernel_args())
        cmp = blocking(f"compiling with Triton {' and '.join(versions)}", timeout,
                       lambda: tritons.compare(options_, versions, show, raw, context))
    else:
        base = request_of(kernel, target, meta, num_warps, num_stages, shape, dtype)
        cmp = blocking("compiling both variants", timeout, lambda: diff.compare(base, a, b, show, raw, context))
    if as_json:
        click.echo(report.to_json(cmp))
    else:
        click.echo("\n".join(compare_text.lines(cmp, render.use_color(no_color))))
    if exit_code and (cmp.a.error or cmp.b.error):
        from ..errors import KernelFailure
        raise KernelFailure(f"{(cmp.a if cmp.a.error else cmp.b).label} does not compile")
    if exit_code and cmp.a.hash != cmp.b.hash:
        from ..errors import KernelFailure
        raise KernelFailure(f"the variants compile to different binaries ({cmp.a.label}: "
                            f"{cmp.a.hash[:12]}, {cmp.b.label}: {cmp.b.hash[:12]})")
