"""torch.compile's side of the route: what Inductor plans for a line of PyTorch on a target GPU.

  fakes.py           a CUDA device that Inductor plans for on a CPU-only torch: fake tensors, torch.cuda
                     and Inductor's device interface answering with the target's properties (core/devices.py)
  planner_child.py   the process that runs Inductor (the fakes never leak into the caller)
  plan.py            the wrapper Inductor wrote, read into steps in launch order; `fuse` in the CLI
  saved_plans.py     a plan's kernel as a KernelSpec (PLAN.json#N, fuse#N), with Inductor's configs and options
  across_targets.py  plans for several targets, side by side
  autotune.py        --max-autotune: Inductor's GEMM candidates, answered by a model (labelled modelled)
  plan_check.py      --run: the plan at small shapes, checked against eager PyTorch
  execute.py         (child side) the wrapper executed on the CPU, kernels in Triton's interpreter
  text.py            plans, comparisons, candidates and checks as text
"""
from ..core import registry


def _saved_plans():
    from . import saved_plans      # on first use: naming a kernel should not cost this package's imports
    return saved_plans


registry.register_opener(lambda ref: _saved_plans().is_plan(ref), lambda ref: _saved_plans().spec_from_plan(ref),
                         lambda ref: _saved_plans().plan_target(ref))
