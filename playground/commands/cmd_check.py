"""playground check: a kernel against its PyTorch reference, on every case, input kind, layout and config."""
from __future__ import annotations

import click

from . import options
from .common import debug, progress


@click.command("check")
@click.argument("kernel", required=False)
@click.option("--all", "all_kernels", is_flag=True, help="Check every kernel in kernels/.")
@click.option("--quick", is_flag=True, help="Only each kernel's quick cases (the ones the tests run).")
@click.option("--shape", "-s", multiple=True, metavar="D=N,...",
              help="Check this one shape instead of the cases; repeat or comma-separate.")
@click.option("--dtype", default=None, help="Only this dtype (default: every dtype the kernel supports).")
@click.option("--meta", "-m", multiple=True, metavar="K=V,...",
              help="Override meta-parameters; repeat or comma-separate.")
@options.num_warps
@options.num_stages
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for the random inputs (and for ties when --quick picks configs).")
@click.option("--interpreter", is_flag=True, help="Run in Triton's CPU interpreter even when a GPU is present.")
@click.option("--timeout", type=float, default=600, show_default=True, metavar="SECONDS",
              help="Stop a case still running in the interpreter after this long; it fails alone.")
@click.option("--plain", is_flag=True,
              help="Only the cases as written: N(0, 1) inputs, contiguous tensors, the launch's config.")
@click.option("--no-sanitize", is_flag=True, help="Do not watch the interpreter for races, bad reads and writes.")
@options.as_json
@click.pass_context
def command(ctx, kernel, all_kernels, quick, shape, dtype, meta, num_warps, num_stages, seed, interpreter,
            timeout, plain, no_sanitize, as_json):
    """Run KERNEL on its test cases and compare every output with its PyTorch reference (fp64).

    Runs on the local CUDA GPU, or through Triton's interpreter on the CPU when there is none.
    --quick runs the kernel's quick cases. Each case (with --quick, just one small case of them)
    also runs with adversarial inputs (x100, all-negative and equal rows, ...), with transposed,
    sliced and misaligned tensors where the
    kernel takes strides, and under each config of its autotune space (a few with --quick). In the
    interpreter, sanitizers report races, out-of-bounds accesses and undefined reads that reach
    an output, with the kernel line. Exit status 1 when any run mismatches, crashes or is
    flagged, 2 for bad input.

    \b
    playground check gemm
    playground check softmax --shape M=1823,N=781 --dtype fp16
    playground check --all --quick
    playground check ./my_kernels.py:my_kernel
    """
    from .. import report
    from ..core import params, registry
    from ..errors import UserError
    from ..run import check as correctness
    from ..run import text as check_text
    from ..run import variants
    if all_kernels == bool(kernel):
        raise UserError("name one kernel (see `playground list`) or pass --all, not both" if kernel
                        else "name one kernel (see `playground list`) or pass --all")
    if kernel and registry.trace_target(kernel):
        raise UserError(f"{kernel}: a captured launch has no PyTorch reference to check against; the script's "
                        f"own asserts are its check, and `playground run` runs them")
    specs = registry.load_all() if all_kernels else [registry.load(kernel)]
    with progress(not as_json, "checking") as tick:
        outcome = correctness.run_check(specs, all_kernels, quick, params.parse_assignments(shape, "shape"),
                                        dtype, params.parse_assignments(meta, "meta", strings=True), num_warps,
                                        num_stages, seed, interpreter, progress=tick, timeout=timeout,
                                        kinds=variants.chosen(plain, no_sanitize))
    if as_json:
        click.echo(report.to_json(outcome))
    else:
        click.echo("\n".join(check_text.lines(outcome, debug=debug(ctx))), color=True)   # rich chose the colours
    ctx.exit(outcome.exit_code)
