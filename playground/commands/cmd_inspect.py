"""playground inspect: a static read of a kernel's generated code, or (--params) its launch's parameter block."""
from __future__ import annotations

import click

from . import options, other_triton
from .common import load_and_compile


@click.command("inspect", cls=other_triton.Command)
@click.argument("kernel", required=False)
@options.kernel
@other_triton.option()
@click.option("--params", "show_params", is_flag=True,
              help="The launch's parameter block as the driver receives it: grid, block, shared memory, stream, and "
                   "each parameter's offset and size, read from the binary.")
@click.option("--explain", "explain", default=None, metavar="OPCODE",
              help="What an instruction does, in one line, and where its ISA document describes it: a SASS, PTX or "
                   "amdgcn opcode (HGMMA.64x128x16.F32, cp.async.bulk.tensor, v_mfma_f32_32x32x8_f16). No KERNEL "
                   "needed.")
@options.as_json
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, triton, show_params, explain, as_json):
    """A static read of KERNEL's generated code: instruction mix, vector widths, spills, pipelining.

    \b
    playground inspect gemm --target sm_90
    playground inspect softmax --target gfx942 --shape N=781
    playground inspect gemm --target sm_90 --num-stages 1     # the K loop is no longer pipelined
    playground inspect vector_add --target sm_90 --params     # what cuLaunchKernelEx receives
    playground inspect --explain LDGSTS.E.BYPASS.LTC128B.128
    playground inspect gemm --target sm_90 --triton 3.8       # as Triton 3.8 compiles it
    """
    if triton:
        other_triton.run_elsewhere(triton)      # unless it is the installed Triton: its output is this command's
    from .. import report
    from ..artefact import text as artefact_text
    from ..errors import UserError
    if explain:
        from ..artefact import isa
        entries = [e for e in (isa.describe(language, explain) for language in isa.LANGUAGES) if e]
        if not entries:
            raise UserError(f"explain {explain}: no entry in the SASS, PTX or amdgcn tables", param="explain")
        click.echo(report.to_json({"opcode": explain, "entries": [e.as_dict() for e in entries]}) if as_json
                   else "\n".join(artefact_text.explained_lines(explain, entries)))
        return
    if kernel is None:
        raise UserError("inspect reads a kernel: name one (`playground list`), or ask --explain OPCODE")
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
