"""`check ... --ref`: the options of a check of real code (check/code), kept out of cmd_check so that the command
stays one screen."""
from __future__ import annotations

import click

from .options import stack

options = stack(
    click.option("--ref", default=None, metavar="EXPR | FILE.py:NAME | PROBLEM.py",
                  help="Check real code: the PyTorch reference, an expression over the input names (torch, F and "
                       "`model` in scope), a function, module or autograd.Function, or a KernelBench problem file."),
    click.option("--inputs", "inputs", multiple=True, metavar='"x=fp16[M,781], eps=1e-6"',
                  help="With --ref: the call's arguments in order; repeat for more sets. Tensors as DTYPE[DIMS]: "
                       "floats N(0, 1); integers in [0,100) (never negative) or a range, `ids=int64[2,300] in "
                       "[0,12)` (or closed, `[0,11]`; a bound may be a --shape name); bools True with p=0.5, or "
                       "`mask=bool[64,128] p=0.1`. Values: Python literals (0.5, True, None, (1, 2), 'mean'), "
                       "torch dtypes (dtype=torch.float32), a --shape name."),
    click.option("--init", default=None, metavar='"hidden_size=781, eps=1e-6"',
                  help="With --ref: the keywords an nn.Module class is built with."),
    click.option("--set", "sets", multiple=True, metavar="NAME=N,...",
                  help="With a KernelBench --ref: override the problem's module-level sizes (batch_size=4,dim=4093)."),
    click.option("--target", "-t", default=None, metavar="T",
                  help="With --ref: the virtual GPU to run on (sm_90, sm_80, gfx942, ...); default: this machine's "
                       "GPU, else a virtual sm_90."),
    click.option("--seeds", type=click.IntRange(1, 20), default=None,
                  help="With --ref: how many seeds each input set runs under (default 3, 2 with --quick)."),
    click.option("--backward", is_flag=True, help="With --ref: compare the gradients too (fp64 autograd reference)."),
    click.option("--allow-inplace", is_flag=True, help="With --ref: the call may change its inputs."),
    click.option("--require-triton", is_flag=True,
                  help="With --ref: fail unless a Triton launch completed (not PyTorch alone, nor a fallback)."),
    click.option("--atol", type=float, default=None, help="With --ref: the absolute tolerance for every output."),
    click.option("--rtol", type=float, default=None, help="With --ref: the relative tolerance for every output."),
    click.option("--memory", type=float, default=None, metavar="GB",
                  help="With --ref: the subject's address-space limit (default 16)."),
    click.option("--no-sandbox", is_flag=True, help="With --ref: run the subject without the sandbox's limits."),
    click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
                  help="With several solutions: how many run at once (default: the CPU count)."),
    click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
                  help="With several solutions: check them on Ray (local, auto or a cluster's address)."),
    click.option("--trace", "trace_path", type=click.Path(dir_okay=False), default=None,
                  help="With --ref: write the launches as a trace; `playground compile TRACE#N` opens each variant."),
)

