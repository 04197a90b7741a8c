"""torch.compile's side of the route: what Inductor plans for a line of PyTorch on a target GPU.

  fakes.py           a CUDA device that Inductor plans for on a CPU-only torch: fake tensors, torch.cuda
                     and Inductor's device interface answering with the target's properties (core/devices.py)
  child.py           the process that runs Inductor (the fakes never leak into the caller)
  plan.py            the wrapper Inductor wrote, read into steps in launch order; `fuse` in the CLI
  reopen.py          a plan's kernel as a KernelSpec (PLAN.json#N, fuse#N), with Inductor's configs and options
  compare.py         plans for several targets, side by side
  autotune.py        --max-autotune: Inductor's GEMM candidates, answered by a model (labelled modelled)
  check.py           --run: the plan at small shapes, checked against eager PyTorch
  execute.py         (child side) the wrapper executed on the CPU, kernels in Triton's interpreter
  libdevice_shim.py  libdevice for the interpreter, which cannot call it
  text.py            plans, comparisons, candidates and checks as text
"""
from ..core import registry


def _reopen():
    from . import reopen      # on first use: naming a kernel should not cost this package's imports
    return reopen


registry.register_opener(lambda ref: _reopen().is_plan(ref), lambda ref: _reopen().spec_from_plan(ref),
                         lambda ref: _reopen().plan_target(ref))
