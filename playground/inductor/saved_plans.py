"""A kernel of a saved plan (`playground fuse ... --save PLAN.json`), reopened as `PLAN.json#N` in any command.

Step N's generated `@triton.jit` function is read out of its module (the module's own imports need
Inductor's runtime and a GPU driver; the function needs only Triton and Inductor's helpers). It becomes
a KernelSpec: its pointers are aligned stand-ins of their declared element types, its integers the
loop sizes the wrapper passed, its constexprs one of the configs Inductor's heuristics built for the
target (the first by default; all of them are the spec's configs, for `--config` and `sweep`), and its
grid Inductor's (Grid1D: one program per XBLOCK elements; Grid2D: XBLOCK by YBLOCK tiles).
"""
from __future__ import annotations

import re
from pathlib import Path

from .. import compat
from ..core.spec import AbstractTensor, KernelSpec, Tensor, cdiv, split_config
from ..errors import UserError
from ..files import read_json

FORMAT = "playground-fuse/1"
LAST = "fuse"          # `fuse#N`: step N of the last plan `playground fuse` made (kept in Triton's cache dir)


def last_plan_path() -> Path:
    """Where `playground fuse` keeps its last plan; inside Triton's cache directory, with every other cache."""
    from triton import knobs
    return Path(knobs.cache.dir) / "playground-fuse" / "last.json"


def save(plan, checked=None, path: str | None = None) -> dict:
    """The plan as `--json` prints it (each step with its source, and --run's check); kept as the last plan
    (fuse#N) and, when `path` is given, saved there too (PATH#N)."""
    from ..files import write_json
    data = plan.as_dict()
    for step, full in zip(data["steps"], plan.steps):
        step["source"] = full.source
    if checked:
        data["run"] = checked.as_dict()
    saved = {"format": FORMAT, **data}
    last_plan_path().parent.mkdir(parents=True, exist_ok=True)
    write_json(last_plan_path(), saved)
    if path:
        write_json(path, saved)
    return data


def resolve(ref: str) -> str:
    """`fuse#N` as the last plan's file; any other reference as it is."""
    name, hash_, number = ref.partition("#")
    if name != LAST:
        return ref
    path = last_plan_path()
    if not path.is_file():
        raise UserError(f"{ref}: no plan yet; run playground fuse EXPR first (or open a saved plan as FILE#N)")
    return f"{path}{hash_}{number}"


def is_plan(ref: str) -> bool:
    if ref.partition("#")[0] == LAST:
        return True
    path = ref.partition("#")[0]
    if not path.endswith(".json") or not Path(path).is_file():
        return False
    try:
        return read_json(path).get("format") == FORMAT
    except (OSError, ValueError):
        return False


def _step(ref: str) -> tuple[dict, dict]:
    path, _, number = resolve(ref).partition("#")
    plan = read_json(path)
    kernels = {s["index"]: s for s in plan["steps"] if s["kind"] != "library"}
    try:
        step = kernels[int(number)] if number else next(iter(kernels.values()))
    except (ValueError, KeyError, StopIteration):
        steps = f"step{'s' if len(kernels) > 1 else ''} {', '.join(map(str, kernels)) or 'none'}"
        raise UserError(f"{ref}: the plan's generated kernels are {steps}") from None
    return plan, step


def plan_target(ref: str) -> str:
    return _step(ref)[0]["target"]


def spec_from_plan(ref: str) -> KernelSpec:
    plan, step = _step(ref)
    path = Path(resolve(ref).partition("#")[0]).resolve()
    module_file = _source_file(path, step)
    jit = _jit_function(step["name"], step["source"], module_file)
    configs = plan.get("kernels", {}).get(step["name"], {}).get("configs") or []
    if not configs:
        raise UserError(f"{ref}: Inductor's configs for {step['name']} were not read when the plan was made")
    signature = step["signature"]
    integers = iter(step["numels"])
    values, tensors = {}, {}
    for name, kind in signature.items():
        if kind.startswith("*"):
            numel = max(step["numels"] or [1])
            tensors[name] = Tensor((numel,), kind[1:])
        elif kind != "constexpr":
            values[name] = next(integers, 1)
    meta, num_warps, num_stages = split_config(configs[0])
    names = [p.name for p in jit.params]
    runtime = [n for n in names if signature.get(n) != "constexpr"]

    def runtime_args(**_):
        return tuple(AbstractTensor(tensors[n].shape, tensors[n].dtype) if n in tensors else values[n]
                     for n in runtime)

    grid_type = plan.get("kernels", {}).get(step["name"], {}).get("grid_type")
    x, y = (step["numels"] + [1, 1])[:2]

    def grid(shape, m):
        if grid_type == "Grid2D":
            return (cdiv(x, m.get("XBLOCK", 1)), cdiv(y, m.get("YBLOCK", 1)))
        return (cdiv(x, m.get("XBLOCK", 1)),)

    spec = KernelSpec(name=step["name"], kernel=jit, description=f"step {step['index']} of {plan['expr']}",
                      tensors=tensors, args=runtime_args, grid=grid, meta=meta, default_shape={},
                      num_warps=num_warps or 4, num_stages=num_stages or 3,
                      configs=[dict(c) for c in configs], dtypes=(plan.get("dtype", "fp16"),),
                      compile_options=plan.get("kernels", {}).get(step["name"], {}).get("options", {}),
                      source_path=str(module_file))
    spec.loaded_from = f"{path}#{step['index']}"
    return spec


def _source_file(plan_path: Path, step: dict) -> Path:
    """The generated module, kept beside the plan so that `--show source` and line maps have a file."""
    folder = plan_path.with_suffix(".kernels")
    folder.mkdir(exist_ok=True)
    file = folder / f"{step['name']}.py"
    if not file.exists() or file.read_text() != step["source"]:
        file.write_text(step["source"])
    return file


def _jit_function(name: str, source: str, module_file: Path):
    """The @triton.jit function of a generated module, defined without running the module's set-up."""
    import triton
    import triton.language as tl
    triton_helpers = compat.reach("triton_helpers")
    libdevice, tl_math = triton_helpers.libdevice, triton_helpers.math
    start = source.find("@triton.jit")
    if start < 0:
        raise UserError(f"{name}: no @triton.jit function in its generated source")
    body = source[start:]
    namespace = {"triton": triton, "tl": tl, "triton_helpers": triton_helpers, "libdevice": libdevice,
                 "tl_math": tl_math, "__name__": f"playground_fuse_{name}"}
    # the function keeps its line numbers in the module, for the map back to the generated source
    lines_before = source[:start].count("\n")
    code = compile("\n" * lines_before + body, str(module_file), "exec")   # inspect reads the file back
    exec(code, namespace)
    fn = namespace.get(name)
    if fn is None:
        found = re.findall(r"def (\w+)\(", body)
        raise UserError(f"{name}: its source defines {', '.join(found)}")
    return fn

