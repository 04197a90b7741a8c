"""playground check: a kernel against its PyTorch reference, on every case, input kind, layout and config."""
from __future__ import annotations

import click

from . import options
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
              help="Only the cases as written: N(0, 1) inputs, contiguous tensors, the launch's config.")
@click.option("--no-sanitize", is_flag=True, help="Do not watch the interpreter for races, bad reads and writes.")
@click.option("--ref", default=None, metavar="EXPR | FILE.py:NAME | PROBLEM.py",
              help="Check real code: the PyTorch reference, an expression over the input names (torch, F and "
                   "`model` in scope), a function, module or autograd.Function, or a KernelBench problem file.")
@click.option("--inputs", "inputs", multiple=True, metavar='"x=fp16[M,781], eps=1e-6"',
              help="With --ref: the call's arguments in order, tensors as DTYPE[DIMS]; repeat for more sets.")
@click.option("--init", default=None, metavar='"hidden_size=781, eps=1e-6"',
              help="With --ref: the keywords an nn.Module class is built with.")
@click.option("--set", "sets", multiple=True, metavar="NAME=N,...",
              help="With a KernelBench --ref: override the problem's module-level sizes (batch_size=4,dim=4093).")
@click.option("--target", "-t", default=None, metavar="T",
              help="With --ref: the virtual GPU to run on (sm_90, sm_80, gfx942, ...); default: this machine's "
                   "GPU, else a virtual sm_90.")
@click.option("--seeds", type=click.IntRange(1, 20), default=None,
              help="With --ref: how many seeds each input set runs under (default 3, 2 with --quick).")
@click.option("--backward", is_flag=True, help="With --ref: compare the gradients too (fp64 autograd reference).")
@click.option("--allow-inplace", is_flag=True, help="With --ref: the call may change its inputs.")
@click.option("--require-triton", is_flag=True,
              help="With --ref: fail unless a Triton launch completed (not PyTorch alone, nor a fallback).")
@click.option("--atol", type=float, default=None, help="With --ref: the absolute tolerance for every output.")
@click.option("--rtol", type=float, default=None, help="With --ref: the relative tolerance for every output.")
@click.option("--memory", type=float, default=None, metavar="GB",
              help="With --ref: the subject's address-space limit (default 16).")
@click.option("--no-sandbox", is_flag=True, help="With --ref: run the subject without the sandbox's limits.")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
              help="With several solutions: how many run at once (default: the CPU count).")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="With several solutions: check them on Ray (local, auto or a cluster's address).")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False), default=None,
              help="With --ref: write the launches as a trace; `playground compile TRACE#N` opens each variant.")
@options.as_json
@click.pass_context
def command(ctx, kernels, all_kernels, quick, shape, dtype, meta, num_warps, num_stages, seed, interpreter,
            timeout, plain, no_sanitize, ref, inputs, init, sets, target, seeds, backward, allow_inplace,
            require_triton, atol, rtol, memory, no_sandbox, jobs, ray_address, trace_path, as_json):
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

    \b
    Real code, against PyTorch (on a virtual GPU, in the interpreter, sandboxed):
    playground check rms.py:rms_norm --ref "F.rms_norm(x, (781,), w, 1e-6)" --inputs "x=fp16[1823,781], w=fp16[781]"
    playground check liger_kernel.transformers.rms_norm:LigerRMSNorm --init "hidden_size=781" \\
        --ref "F.rms_norm(x, (781,), model.weight, model.variance_epsilon)" --inputs "x=fp32[64,781]"
    playground check solution.py --ref problem.py --set batch_size=4,dim=4093     (KernelBench's format)
    playground check solutions/*.py --ref problem.py --json
    """
    from .. import report
    from ..core import params, registry
    from ..errors import UserError
    from ..run import check as correctness
    from ..run import text as check_text
    from ..run import variants
    if ref is not None:
        return _check_code(ctx, kernels, ref, inputs, shape, init, sets, target, seed, seeds, quick, backward,
                           allow_inplace, require_triton, atol, rtol, timeout, memory, no_sandbox, jobs,
                           ray_address, trace_path, as_json)
    for flag, given in (("--inputs", inputs), ("--init", init), ("--set", sets), ("--backward", backward),
                        ("--require-triton", require_triton), ("--atol", atol), ("--rtol", rtol)):
        if given:
            raise UserError(f"{flag} belongs to a check of real code: give the reference with --ref")
    if len(kernels) > 1:
        raise UserError("name one kernel (see `playground list`); several files are solutions, checked with --ref")
    kernel = kernels[0] if kernels else None
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


def _check_code(ctx, subjects, ref, inputs, shape, init, sets, target, seed, seeds, quick, backward, allow_inplace,
                require_triton, atol, rtol, timeout, memory, no_sandbox, jobs, ray_address, trace_path, as_json):
    """`check ... --ref`: real code against PyTorch (virtual/judge)."""
    import os

    from .. import report
    from ..core import params, targets
    from ..errors import UserError
    from ..virtual.judge import judge, text
    from .common import refuse_overwrite
    if not subjects:
        raise UserError("name what to check: FILE.py:NAME, package.module:NAME or a KernelBench SOLUTION.py")
    if trace_path:
        refuse_overwrite(trace_path, False)
    label = targets.resolve(target).label if target else (None if targets.native() else "sm_90")
    request = judge.Request(
        subject=subjects[0], ref=ref, inputs=list(inputs), shapes=[params.parse_assignments(s, "shape") for s in shape],
        init=init, sets=params.parse_assignments(sets, "set"), target=label, seed=seed,
        seeds=seeds or (2 if quick else 3), quick=quick, backward=backward, allow_inplace=allow_inplace,
        require_triton=require_triton, atol=atol, rtol=rtol, timeout=timeout,
        memory_gb=memory or judge.DEFAULT_MEMORY_GB, contain=not no_sandbox)
    with progress(not as_json, "checking") as tick:
        if len(subjects) > 1 or ray_address:
            outcome = judge.check_many(request, list(subjects), jobs or os.cpu_count() or 1, ray_address,
                                       progress=tick)
        else:
            outcome = judge.check_one(request, progress=tick)
    if trace_path and getattr(outcome, "trace", None):
        from ..files import write_json
        write_json(trace_path, {"format": "playground-trace", **outcome.trace})
    if as_json:
        click.echo(report.to_json(outcome))
    else:
        click.echo("\n".join(text.lines(outcome, debug=debug(ctx))), color=True)
    ctx.exit(outcome.exit_code)
