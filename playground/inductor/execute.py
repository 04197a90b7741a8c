"""Run Inductor's plan for real, on the CPU: its generated kernels in Triton's interpreter, its library
calls through PyTorch, and check what it returns against eager PyTorch (child side of `fuse --run`).

The plan is the one Inductor writes for the CUDA target at the given (small) shapes. Its wrapper is
executed as Inductor would run it, with three things stood in: buffers are CPU tensors, streams are 0,
and TRITON_INTERPRET=1, under which Inductor's own CachingAutotuner launches each kernel through
Triton's interpreter (its grid from Inductor's GridExpr, its first config). To cover every config a
GPU's autotuner might pick, the wrapper runs once per config index (a kernel with fewer configs keeps
its last). The wrapper's inputs are matched to the user's tensors through the sources Dynamo recorded
for its graph's placeholders (L['a'], L['self']._modules['fc']._parameters['weight']).

On a machine with a CUDA GPU (check_on_device) nothing is stood in: torch.compile runs the function
on the device. The reference is eager PyTorch in fp64 on the same (rounded) inputs; the tolerance is the project's
(core/tolerances.py), its atol scaled by the longest input dimension: the longest reduction a GEMM or
a row or column reduction makes. A sum over a whole tensor reduces more; its relative error stays
within rtol. PLAYGROUND_FUSE_MUTATE="OLD=>NEW" edits every generated kernel's source before it runs,
so that a test can show a wrong kernel is caught.
"""
from __future__ import annotations

import copy
import inspect
import os

from .. import compat


def placeholder_sources(graphs) -> list[str]:
    """The Dynamo sources of the compiled graph's inputs, in the order its `call` takes them."""
    found = []
    for gm in graphs:
        for node in gm.graph.nodes:
            if node.op == "placeholder":
                source = getattr(node, "_dynamo_source", None) or getattr(node.meta.get("grapharg"), "source", None)
                if source is None:
                    raise RuntimeError(f"the compiled graph's input {node.name} has no Dynamo source")
                found.append(source.name() if callable(source.name) else source.name)
    return found


def bind_locals(fn, tensors) -> dict:
    """Dynamo's L: the function's (or forward's) parameters bound to the user's tensors, and self. torch 2.11's
    Dynamo names a plain function's inputs through the frame it traces, `L['args'][0]`; 2.13 and 2.14 by parameter."""
    import torch
    if isinstance(fn, torch.nn.Module):
        bound = inspect.signature(fn.forward).bind(*tensors)
        return {**bound.arguments, "self": fn}
    return {"args": tuple(tensors), "kwargs": {}, **inspect.signature(fn).bind(*tensors).arguments}


class LoadedWrapper:
    """Inductor's wrapper module, loaded once to run on CPU tensors (module docstring); `call` runs it with
    every kernel on its config of one index."""

    def __init__(self, wrapper: str):
        import torch
        os.environ["TRITON_INTERPRET"] = "1"       # Inductor's async_compile and CachingAutotuner read it
        mutation = os.environ.get("PLAYGROUND_FUSE_MUTATE")
        if mutation:
            old, _, new = mutation.partition("=>")
            wrapper = wrapper.replace(old, new)
        compat.set_current_raw_stream(lambda device: 0)        # a CPU build has no CUDA streams
        self.namespace = {"__name__": "playground_fuse_wrapper"}
        exec(compile(wrapper, "inductor_wrapper.py", "exec"), self.namespace)   # noqa: S102 (Inductor's own code)
        self.namespace["empty_strided_cuda"] = lambda size, stride, dtype: torch.empty_strided(size, stride,
                                                                                             dtype=dtype)
        triton_helpers, CachingAutotuner = compat.reach("triton_helpers"), compat.reach("CachingAutotuner")

        from ..run.libdevice_shim import libdevice
        triton_helpers.libdevice = libdevice          # the interpreter cannot call libdevice (libdevice_shim.py)
        from ..run import interpreter
        interpreter.install()           # bf16 math and fp32 -> bf16 rounding as a GPU does them, not on raw bits
        self.kernels = {name: value for name, value in self.namespace.items() if isinstance(value, CachingAutotuner)}
        self.configs = {name: list(kernel.configs) for name, kernel in self.kernels.items()}
        for kernel in self.kernels.values():
            kernel.fn.fn.__globals__["libdevice"] = libdevice

    @property
    def config_indices(self) -> int:
        return max((len(c) for c in self.configs.values()), default=1)

    def call(self, inputs: list, config_index: int) -> list:
        import torch

        from ..virtual.capture import callees_interpreted
        for name, kernel in self.kernels.items():   # Inductor's interpret launch takes configs[0]
            configs = self.configs[name]
            kernel.configs = [configs[min(config_index, len(configs) - 1)]]
        # Inductor's helpers (triton_helpers.maximum, ...) were made @triton.jit before TRITON_INTERPRET was
        # set: they run interpreted too, as `playground run` runs a kernel's callees
        with callees_interpreted({}), torch.no_grad():
            return list(self.namespace["call"](list(inputs)))


def _expected(fn, tensors: list) -> list:
    """Eager PyTorch in fp64 on the CPU, from the same (rounded) inputs."""
    import torch
    reference_fn = copy.deepcopy(fn).double() if isinstance(fn, torch.nn.Module) else fn
    with torch.no_grad():
        expected = reference_fn(*[t.double() if t.is_floating_point() else t for t in tensors])
    return list(expected) if isinstance(expected, (tuple, list)) else [expected]


def _compare_outputs(got: list, expected: list, dtype_name: str, longest: int) -> list[dict]:
    from ..core import closeness, tolerances
    from .plan import short_dtype
    outputs = []
    for n, (g, e) in enumerate(zip(got, expected)):
        out_dtype = short_dtype(str(g.dtype).removeprefix("torch."))
        tol = tolerances.for_output("fuse", out_dtype if out_dtype in tolerances.TABLE else dtype_name, longest)
        result = closeness.compare(f"output {n}", g.cpu(), e, out_dtype, tol)
        outputs.append({"name": result.name, "shape": list(result.shape), "dtype": out_dtype, "ok": result.ok,
                        "max_abs": result.max_abs, "mismatches": result.mismatches, "total": result.total,
                        "atol": result.atol, "rtol": result.rtol, "problems": result.problems})
    if len(got) != len(expected):
        outputs.append({"name": "outputs", "shape": [], "dtype": "", "ok": False, "max_abs": None,
                        "mismatches": abs(len(got) - len(expected)), "total": len(expected), "atol": 0,
                        "rtol": 0, "problems": [f"the plan returned {len(got)} outputs, eager {len(expected)}"]})
    return outputs


def _longest(tensors: list) -> int:
    return max((max(t.shape, default=1) for t in tensors), default=1)


def check(wrapper: str, sources: list[str], fn, tensors: list, dtype_name: str) -> dict:
    """Run the plan once per config index and compare each run's outputs with eager fp64."""
    import torch
    scope = {"L": bind_locals(fn, tensors)}
    inputs = [eval(s, {}, scope) for s in sources]             # noqa: S307 (Dynamo's own source names)
    inputs = [t.detach() if isinstance(t, torch.Tensor) else t for t in inputs]
    expected = _expected(fn, tensors)
    loaded = LoadedWrapper(wrapper)
    runs = [{"config_index": index, "outputs": _compare_outputs(loaded.call(inputs, index), expected, dtype_name,
                                                                _longest(tensors))}
            for index in range(loaded.config_indices)]
    return {"runs": runs, "configs_per_kernel": {name: len(c) for name, c in loaded.configs.items()},
            "inputs": len(inputs)}


def check_on_device(fn, tensors: list, dtype_name: str) -> dict:
    """On a machine with a CUDA GPU: the function compiled by torch.compile, run once on the device (its
    autotuner picking among the configs, as in use), against eager fp64 on the CPU."""
    import torch
    device_fn = copy.deepcopy(fn).cuda() if isinstance(fn, torch.nn.Module) else fn
    with torch.no_grad():
        got = torch.compile(device_fn)(*[t.cuda() for t in tensors])
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    return {"runs": [{"config_index": 0, "outputs": _compare_outputs(got, _expected(fn, tensors), dtype_name,
                                                                     _longest(tensors))}],
            "configs_per_kernel": {}, "inputs": len(tensors), "device": torch.cuda.get_device_name()}
