"""A virtual GPU: run a script written for a CUDA machine on the CPU, as a GPU of any target.

The script's tensors live on the CPU and its kernels execute in Triton's interpreter, so its
results are real; every launch goes through Triton's own launch path (binder, options, cache)
with a stand-in driver that reports the target, so what is captured is what the JIT builds.
Times on the virtual GPU are the performance model's (model/explain.py), and always say so.

  gpu.py            the device a script sees: properties from core/devices.py, the modelled clock
  torch_device.py   torch's side: "cuda" tensors on the CPU, torch.cuda answering for the target
  driver.py         Triton's side: the stand-in DriverBase, its launcher (capture, then interpret)
  capture.py        the launch records, variants, autotune picks and do_bench on the model
  launches.py       a captured launch as data and as a KernelSpec; trace files
  trace_kernels.py  a trace's variant reopened (trace.json#N), its kernel read out of the script
  script_child.py   the child process that runs the script (patches never leak into the caller)
  session.py        the parent: start the child, relay Ctrl-C, read what it captured
  text.py, timeline.py   the launch table; the Chrome trace-event timeline
"""
from ..core import registry


def _trace_kernels():
    from . import trace_kernels    # on first use: naming a kernel should not cost this package's imports
    return trace_kernels


def _launches():
    from . import launches
    return launches


# A trace is any other saved reference (T.json#N): tried after the plans.
registry.register_opener(lambda ref: True, lambda ref: _trace_kernels().spec_from_trace(ref),
                         lambda ref: _launches().variant_source(ref)["target"], fallback=True)
registry.register_gpu_reader(lambda file, target, module: _trace_kernels().read_script(file, target, module))
