"""playground sweep: compile a kernel's autotune space for each target and rank it, before any GPU time."""
from __future__ import annotations

import sys

import click

from . import options
from .common import kernel_args, one_format, progress, show, warn


@click.command("sweep")
@click.argument("kernel")
@options.targets
@options.kernel_args
@click.option("--meta", "-m", multiple=True, metavar="NAME=V1,V2,...",
              help="Sweep the product of these ranges instead of the kernel's own configs. Repeat per name; "
                   "num_warps and num_stages too; A..B doubles from A up to B.")
@click.option("--shape", "-s", multiple=True, metavar="D=N,...",
              help="Problem size for the compile and the model; repeat or comma-separate.")
@options.dtype
@click.option("--jobs", "-j", type=int, default=None,
              help="Worker processes, or Ray tasks at once [default: the CPU count; a Ray cluster's CPUs].")
@options.num_sms
@options.as_json
@options.as_csv("config and target")
@options.no_progress
@click.option("--timeout", type=float, default=600, show_default=True, metavar="SECONDS",
              help="Stop a config still compiling after this long and report it as failed.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Compile on Ray (pip install 'triton-playground[ray]'): local starts a Ray instance here "
                   "with --jobs CPUs and stops it afterwards; auto connects to the running cluster "
                   "`ray start` made; or a cluster's address (ray://HOST:10001, HOST:6379).")
def command(kernel, target, meta, shape, dtype, jobs, num_sms, as_json, as_csv, no_progress, timeout, ray_address):
    """Compile KERNEL's autotune space for each target and rank it, before any GPU time.

    \b
    playground sweep gemm --target sm_90 --jobs 2
    playground sweep gemm --target sm_90,sm_89,gfx942 --json > sweep.json
    playground sweep gemm -t sm_80 -m BLOCK_SIZE_M=64,128 -m BLOCK_SIZE_K=32..128 -m num_stages=2,3
    playground sweep gemm -t sm_90,sm_80 --ray auto
    """
    from ..core import params, registry, targets
    from ..sweep import space, triage
    from ..sweep import text as sweep_text
    one_format(as_json, as_csv)
    if target in (None, "native"):
        target = registry.trace_target(kernel) or "native"     # a captured launch: its own target
    tgts = targets.resolve_all(target)
    spec = registry.load(kernel, tgts[0].label, kernel_args())
    with progress(not no_progress, "compiling") as on_row:
        result = triage.run(spec, tgts, space.parse_ranges(meta), params.parse_assignments(shape, "shape"),
                            dtype, jobs, num_sms, on_row=on_row, timeout=timeout, ray=ray_address)
    for message in result.warnings:
        warn(message)
    show(result, sweep_text, as_json, as_csv)
    if result.exit_code:
        why = "every config is invalid" if result.exit_code == 2 else "no config compiled"
        click.echo(f"error: {why}; the table says why for each", err=True)
        sys.exit(result.exit_code)
