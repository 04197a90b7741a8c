"""The process that asks Inductor for its plan (started by plan.py; the fakes stay in here).

    python -m playground.inductor.planner_child SETTINGS.json

SETTINGS: {"expr", "shapes": {name: [dims]}, "torch_dtype", "target", "out", "max_autotune"}, and for `fuse --run`
{"run": true, "dtype", "seed"}. Writes {"wrapper": the code Inductor generated, "kernels": their configs}
(with "run": {"check": execute.check's answer} instead of the configs) or {"error": one line,
"bad_input": bool} to `out`.
"""
from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

from .. import compat


def main(argv: list[str]) -> int:
    settings = json.loads(Path(argv[0]).read_text())
    out = Path(settings["out"])
    from ..lifecycle import die_with_parent
    die_with_parent()
    warnings.filterwarnings("ignore")
    real_device = settings.get("real_device", False)     # a CUDA GPU here: Inductor plans for it, no fakes
    if not real_device:
        from . import fakes
        fakes.install(settings["target"])
    import torch
    get_code, FakeTensorMode = compat.reach("get_code"), compat.reach("FakeTensorMode")
    names = list(settings["shapes"])
    dtype = getattr(torch, settings["torch_dtype"])
    candidates = None
    if settings.get("max_autotune") and real_device:
        compat.reach("inductor_config").max_autotune = True     # Inductor times its candidates on the GPU itself
    elif settings.get("max_autotune"):
        from . import autotune
        element = torch.empty((), dtype=dtype).element_size()
        matrix = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype)
        candidates = autotune.install(settings["target"], element, matrix)
    running = settings.get("run", False)
    real_fn = real_tensors = None
    if running:                   # the real function and inputs, on the CPU, made before any fake
        torch.manual_seed(settings.get("seed", 0))
        try:
            real_fn = user_function(settings["expr"], names, torch, fake_cuda=False)
        except _BadInput as e:
            out.write_text(json.dumps({"error": str(e), "bad_input": True}))
            return 2
        real_tensors = [_random(torch, settings["shapes"][n], dtype) for n in names]
    graphs = []

    def inductor(gm, example_inputs):   # torch.compile's own backend, the graph kept to match its inputs
        graphs.append(gm)
        return compat.reach("compile_fx")(gm, example_inputs)

    with FakeTensorMode(allow_non_fake_inputs=True):
        try:
            fn = user_function(settings["expr"], names, torch)
        except _BadInput as e:
            out.write_text(json.dumps({"error": str(e), "bad_input": True}))
            return 2
        tensors = [torch.empty(*settings["shapes"][n], device="cuda", dtype=dtype) for n in names]
        try:
            fn(*tensors)           # eager first, on fake tensors: a wrong name or shape is the user's error
        except Exception as e:
            out.write_text(json.dumps({"error": f"{type(e).__name__}: {str(e).splitlines()[0]}", "bad_input": True}))
            return 2
        try:
            codes = get_code(torch.compile(fn, backend=inductor if running else "inductor"), *tensors)
        except Exception as e:
            out.write_text(json.dumps({"error": f"Inductor failed: {type(e).__name__}: {str(e).splitlines()[0]}",
                                       "bad_input": False}))
            return 1
        try:
            eager_peak = None if running else eager_peak_bytes(fn, tensors)
        except Exception:         # a graph make_fx cannot trace: the plan still stands
            eager_peak = None
    wrapper = max(codes, key=len) if codes else ""          # the wrapper with its kernels; the rest are empty
    answer = {"wrapper": wrapper, "torch": torch.__version__, "eager_peak_bytes": eager_peak}
    if candidates is not None:
        answer["autotune"] = candidates
    if running:
        from . import execute
        try:
            answer["check"] = (execute.check_on_device(real_fn, real_tensors, settings.get("dtype", "fp32"))
                               if real_device else
                               execute.check(wrapper, execute.placeholder_sources(graphs), real_fn, real_tensors,
                                             settings.get("dtype", "fp32")))
        except Exception as e:
            out.write_text(json.dumps({"error": f"running the plan failed: {type(e).__name__}: "
                                                f"{(str(e).strip().splitlines() or [''])[0]}", "bad_input": False}))
            return 1
    else:
        answer["kernels"] = kernel_configs(wrapper, out.parent)
    out.write_text(json.dumps(answer, default=str))
    return 0


def _random(torch, shape, dtype):
    """Inputs as a check makes them: N(0, 1) for floating types, small integers otherwise."""
    if dtype.is_floating_point:
        return torch.randn(*shape, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    return torch.randint(-8, 8, tuple(shape), dtype=dtype)


class _BadInput(Exception):
    """The user's expression or file is not usable: one line, exit 2."""


FILE_REF = re.compile(r"^(?P<file>[^:\s]+\.py):(?P<name>\w+)$")


def user_function(expr: str, names: list[str], torch, fake_cuda: bool = True):
    """The function to plan: an expression over the named tensors, or `file.py:name` (a function, or an
    nn.Module class, built here under the fake mode so that its parameters are fake CUDA tensors too;
    with fake_cuda=False, built as it is, on the CPU, for running)."""
    ref = FILE_REF.match(expr.strip())
    if not ref:
        try:
            return eval(f"lambda {', '.join(names)}: {expr}",  # noqa: S307 (the user's own expression)
                        {"torch": torch, "F": torch.nn.functional})
        except SyntaxError as e:
            raise _BadInput(f"not a Python expression: {e.msg}") from None
    import importlib.util
    path = Path(ref.group("file")).resolve()
    if not path.is_file():
        raise _BadInput(f"no such file: {ref.group('file')}")
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"playground_fuse_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise _BadInput(f"{ref.group('file')}: cannot import: {type(e).__name__}: {e}") from None
    obj = getattr(module, ref.group("name"), None)
    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        try:
            model = obj().eval()
        except Exception as e:
            raise _BadInput(f"{ref.group('name')}(): cannot build it with no arguments: {e}") from None
        if not fake_cuda:
            return model
        # its parameters and buffers as fake CUDA tensors of the same shapes (nothing is allocated)
        def on_cuda(t):
            return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cuda")
        for sub in model.modules():
            for key, param in list(sub._parameters.items()):
                if param is not None:
                    sub._parameters[key] = torch.nn.Parameter(on_cuda(param), requires_grad=False)
            for key, buffer in list(sub._buffers.items()):
                if buffer is not None:
                    sub._buffers[key] = on_cuda(buffer)
        return model
    if callable(obj) and not isinstance(obj, torch.nn.Module):
        return obj
    raise _BadInput(f"{expr}: expected a function or an nn.Module class (a module instance holds real "
                    f"CPU parameters; name its class)")


def eager_peak_bytes(fn, tensors) -> int:
    """The most bytes of intermediates and outputs eager PyTorch holds at once: each ATen op of the traced
    graph allocates its output, freed after its last use (the inputs not counted, as in the plan's figure)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    graph = make_fx(fn)(*tensors).graph
    nodes = list(graph.nodes)
    last_use = {}
    for position, node in enumerate(nodes):
        for used in node.all_input_nodes:
            last_use[used] = position
    live, current, peak = {}, 0, 0
    for position, node in enumerate(nodes):
        value = node.meta.get("val")
        if node.op == "call_function" and hasattr(value, "untyped_storage"):
            live[node] = value.numel() * value.element_size()
            current += live[node]
            peak = max(peak, current)
        for used in node.all_input_nodes:
            if last_use.get(used) == position and used in live and node.op != "output":
                current -= live.pop(used)
    return peak


def kernel_configs(wrapper: str, folder: Path) -> dict:
    """Each generated kernel's configs, as Inductor's own heuristics build them for this device: its
    module is imported here, under the same fakes, and its CachingAutotuner read."""
    import importlib.util

    from .plan import KERNEL_DEF
    found = {}
    for match in KERNEL_DEF.finditer(wrapper):
        name, source = match.group(1), match.group(3)
        path = folder / f"{name}.py"
        path.write_text(source)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            tuner = getattr(module, name)
            first = tuner.configs[0]
            options = tuner._create_compile_options(first, tuner._create_compile_meta(first))
            found[name] = {"configs": [dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)
                                       for c in tuner.configs],
                           # the options CachingAutotuner compiles with besides num_warps/num_stages
                           "options": {k: v for k, v in options.items() if k not in ("num_warps", "num_stages")},
                           "grid_type": tuner.inductor_meta.get("grid_type"),
                           "constants": {str(k): v for k, v in tuner.triton_meta.get("constants", {}).items()}}
        except Exception as e:   # a kernel whose configs cannot be read here: the plan still shows it
            found[name] = {"configs": [], "error": f"{type(e).__name__}: {e}"}
    return found


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
