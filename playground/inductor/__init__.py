"""torch.compile's side of the route: what Inductor plans for a line of PyTorch on a target GPU.

  fakes.py    a CUDA device that Inductor plans for on a CPU-only torch: fake tensors, torch.cuda and
              Inductor's device interface answering with the target's properties (core/devices.py)
  child.py    the process that runs Inductor (the fakes never leak into the caller)
  plan.py     the wrapper Inductor wrote, read into steps in launch order; `fuse` in the CLI
  text.py     the plan as a table, with a legend
"""
