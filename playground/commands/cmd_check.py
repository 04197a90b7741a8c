"""playground check: a kernel against its PyTorch reference, on every case, input kind, layout and config; or real
code against PyTorch (--ref). One Request, one call (check/request.py)."""
from __future__ import annotations

import os

import click

from . import check_code, options
from .common import debug, progress


@click.command("check")
@click.argument("kernels", nargs=-1, metavar="[KERNEL | FILE.py:NAME | SOLUTION.py ...]")
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
              help="Only the cases as written: N(0, 1) inputs, contiguous tensors, the launch's config (with --ref: "
                   "the baseline case alone, no sandbox and no poison).")
@click.option("--no-sanitize", is_flag=True, help="Do not watch the interpreter for races, bad reads and writes.")
@check_code.options
@options.as_json
@click.pass_context
def command(ctx, kernels, all_kernels, quick, shape, dtype, meta, num_warps, num_stages, seed, interpreter,
            timeout, plain, no_sanitize, ref, inputs, init, sets, target, seeds, backward, allow_inplace,
            require_triton, atol, rtol, memory, no_sandbox, jobs, ray_address, trace_path, as_json):
    """Run KERNEL on its test cases and compare every output with its PyTorch reference (fp64).

    Runs on the local CUDA GPU, or through Triton's interpreter on the CPU when there is none.
    An output fails when its error is more than 10 times PyTorch's own in the same dtype (each
    run shows the multiple). --quick runs the kernel's quick cases. Each case (with --quick, just
    one small case of them) also runs with adversarial inputs (x100, all-negative, all-positive
    and equal rows, ...), with transposed,
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

    \b
    Real code, against PyTorch (on a virtual GPU, in the interpreter, sandboxed):
    playground check rms.py:rms_norm --ref "F.rms_norm(x, (781,), w, 1e-6)" --inputs "x=fp16[1823,781], w=fp16[781]"
    playground check liger_kernel.transformers.rms_norm:LigerRMSNorm --init "hidden_size=781" \\
        --ref "F.rms_norm(x, (781,), model.weight, model.variance_epsilon)" --inputs "x=fp32[64,781]"
    playground check solution.py --ref problem.py --set batch_size=4,dim=4093     (KernelBench's format)
    playground check solutions/*.py --ref problem.py --json
    """
    from .. import report
    from .. import check as checking
    from ..core import params, targets
    if ref is not None:
        from .. import compat
        compat.check_torch()
    if trace_path:
        from .common import refuse_overwrite
        refuse_overwrite(trace_path, False)
    label = targets.resolve(target).label if target else (None if targets.native() else "sm_90")
    request = checking.Request(
        subjects=list(kernels), ref=ref, all_kernels=all_kernels, quick=quick, seed=seed, timeout=timeout,
        plain=plain, shape=params.parse_assignments(shape, "shape") if ref is None else {}, dtype=dtype,
        meta=params.parse_assignments(meta, "meta", strings=True), num_warps=num_warps, num_stages=num_stages,
        interpreter=interpreter, sanitize=not no_sanitize, inputs=list(inputs),
        shapes=[params.parse_assignments(s, "shape") for s in shape] if ref is not None else [], init=init,
        sets=params.parse_assignments(sets, "set"), target=label, seeds=seeds, backward=backward,
        allow_inplace=allow_inplace, require_triton=require_triton, atol=atol, rtol=rtol,
        memory_gb=memory or checking.DEFAULT_MEMORY_GB, contain=not no_sandbox, jobs=jobs or os.cpu_count() or 1,
        ray=ray_address)
    with progress(not as_json, "checking") as tick:
        outcome = checking.run(request, progress=tick)
    if trace_path and getattr(outcome, "trace", None):
        from ..files import write_json
        from ..virtual.launches import TRACE_FORMAT
        write_json(trace_path, {"format": TRACE_FORMAT, **outcome.trace})
    if as_json:
        click.echo(report.to_json(outcome))
    else:
        from ..check import kernel_text
        from ..check.code import text as code_text
        lines = (code_text if ref is not None else kernel_text).lines(outcome, debug=debug(ctx))
        click.echo("\n".join(lines), color=True)   # rich chose the colours
    ctx.exit(outcome.exit_code)
