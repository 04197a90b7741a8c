"""playground occupancy: blocks per SM, occupancy and its limiter, for a compiled kernel or a block described."""
from __future__ import annotations

import click

from . import options
from .common import load_and_compile


@click.command("occupancy")
@click.argument("kernel", required=False)
@options.kernel
@click.option("--arch", default=None, help="Without KERNEL: the target to ask about (sm_86, gfx942, ...), or a GPU by name (l40s, ...).")
@click.option("--threads", default=None, metavar="T", help="Without KERNEL: threads per block.")
@click.option("--regs", default=None, metavar="R", help="Without KERNEL: registers per thread (AMD: VGPRs).")
@click.option("--smem", default=None, metavar="BYTES",
              help="Without KERNEL: the block's shared memory (AMD: LDS), static plus dynamic.")
@click.option("--sgprs", default=None, metavar="S", help="Without KERNEL, AMD: SGPRs per wave.")
@click.option("--grid", "grid_ctas", default=None, metavar="CTAS", help="Without KERNEL: CTAs in the launch.")
@options.num_sms
@options.as_json
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, arch, threads, regs, smem, sgprs,
            grid_ctas, num_sms, as_json):
    """Blocks per SM, occupancy and its limiter for KERNEL on a target, from the compiled binary's
    resources; or, with --arch and no KERNEL, for any block you describe.

    \b
    playground occupancy gemm --target sm_90 --num-warps 8
    playground occupancy softmax --target gfx942
    playground occupancy --arch sm_86 --threads 256 --regs 96 --smem 65536 --json
    playground occupancy --arch sm_90 --threads 256 --regs 122 --smem 98304 --grid 1024 --num-sms 114
    """
    from .. import report
    from ..errors import UserError
    from ..figures import occupancy
    from ..figures import text as figures_text
    calculator = {"--arch": arch, "--threads": threads, "--regs": regs, "--smem": smem, "--sgprs": sgprs,
                  "--grid": grid_ctas}
    c = None
    if kernel is None:
        missing = [k for k in ("--arch", "--threads", "--regs", "--smem") if calculator[k] is None]
        if missing:
            raise UserError(f"give a KERNEL, or --arch, --threads, --regs and --smem (missing {', '.join(missing)})")
        occ = occupancy.question(arch, *(occupancy.parse_count(k.lstrip("-"), calculator[k]) for k in
                                         ("--threads", "--regs", "--smem", "--grid")), num_sms,
                                 occupancy.parse_count("sgprs", sgprs))
    else:
        given = [k for k, v in calculator.items() if v is not None]
        if given:
            raise UserError(f"{', '.join(given)}: these describe a block without a kernel; with KERNEL, the "
                            f"compiled binary says them (use --target, --num-warps, --meta)")
        c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout)
        from ..figures import whatif
        occ = whatif.report(c, num_sms)
    click.echo(report.to_json(occ) if as_json else "\n".join(figures_text.lines(occ, c)))
