"""The options several commands share, declared once: a kernel and its launch, the target, the output formats,
another GPU by SM count, progress. A command stacks the ones it takes as decorators."""
from __future__ import annotations

import click

from ..core.targets import DEFAULT, TARGETS
from .common import set_debug, stash_kernel_args

TARGET_HELP = f"{', '.join(TARGETS)}, or native (the local GPU; {DEFAULT} when there is none); or a GPU by " \
              "name (l40s, h100-pcie, ...: its architecture's binary, its own SMs, peaks and bandwidth); " \
              "`playground targets` lists them"

debug = click.Option(["--debug"], is_flag=True, expose_value=False, callback=set_debug,
                     help="Show the Python traceback of an error; changes nothing else.")


def stack(*options):
    """Several options as one decorator, applied in the order written."""
    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f
    return apply


target = click.option("--target", "-t", default="native", show_default=True, help=TARGET_HELP)
targets = click.option("--target", "-t", default="native", show_default=True, metavar="T[,T...]",
                       help="One or more targets, comma-separated (sm_90,sm_89,gfx942). " + TARGET_HELP)
meta = click.option("--meta", "-m", multiple=True, metavar="K=V,...",
                    help="Override meta-parameters, or set a backend option as a launch does (maxnreg, "
                         "num_ctas; AMD: waves_per_eu, matrix_instr_nonkdim, kpack); repeat or comma-separate.")
num_warps = click.option("--num-warps", type=int, default=None, help="Warps per program (CTA).")
num_stages = click.option("--num-stages", type=int, default=None, help="Software-pipelining depth.")
shape = click.option("--shape", "-s", multiple=True, metavar="D=N,...",
                     help="Problem size; changes what the JIT specialises (divisibility by 16, == 1). "
                          "Repeat or comma-separate.")
dtype = click.option("--dtype", default=None, help="Element type (fp32, fp16, bf16, ...).")
compile_timeout = click.option("--timeout", type=float, default=None, metavar="SECONDS",
                               help="Stop if compiling takes longer than this (exit 1).")
kernel_args = click.option("--args", "kernel_args", default=None, metavar="'x=fp32[1024], n=1024, ...'",
                           expose_value=False, callback=stash_kernel_args,
                           help="A bare @triton.jit kernel (file.py:kernel, no spec): its arguments, as a launch "
                                "would pass them; tensors as DTYPE[SHAPE] (+K for K elements past alignment), "
                                "grid=N or NxM.")

# Every command that compiles one kernel: KERNEL's launch, as common.request_of reads it.
kernel = stack(target, meta, num_warps, num_stages, shape, dtype, compile_timeout, kernel_args)

as_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
num_sms = click.option("--num-sms", type=int, default=None,
                       help="Another GPU of the same arch, by SM (CU) count.")
no_progress = click.option("--no-progress", is_flag=True, help="No progress bar (there is none off a terminal either).")
no_color = click.option("--no-color", is_flag=True, help="No colours (NO_COLOR does the same).")


def as_csv(rows: str):
    return click.option("--csv", "as_csv", is_flag=True, help=f"Print CSV, one row per {rows}.")
