"""`playground fuse`: Inductor's plan for a line of PyTorch on a target, step by step in launch order.

Inductor writes a Python wrapper whose `call` allocates buffers and launches, in order, library
routines (`extern_kernels.mm`: cuBLAS on CUDA, hipBLAS on ROCm) and the Triton kernels it generated
(`triton_poi_*` pointwise, `triton_red_*` reduction, `triton_per_*` persistent reduction,
`triton_tem_*` template). Each launch is preceded by a comment naming the ATen operations it covers.
This module reads that wrapper; nothing here is modelled except the traffic fusion saves, which says so.

Traffic saved (modelled): a kernel that fuses k ATen operations keeps k - 1 intermediate tensors on
chip; run one operation per kernel, each of those would be written to DRAM once and read back once,
so the saving is 2 x (k - 1) x the intermediate's bytes, the intermediate taken to be the kernel's
largest loop (its numel arguments' product) in its first pointer's element type; for a template
(whose integer arguments are its grid), the buffer it writes.
"""
from __future__ import annotations

import ast
import math
import os
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field

from ..core import dtypes, targets
from ..core.params import split_top_level
from ..errors import KernelFailure, UserError

KINDS = {"pointwise": "Triton pointwise", "reduction": "Triton reduction",
         "persistent_reduction": "Triton persistent reduction", "template": "Triton template",
         "foreach": "Triton foreach", "cooperative_reduction": "Triton cooperative reduction"}
KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.triton\('(\w+)', '''(.*?)''', device_str='(\w+)'\)",
                         re.MULTILINE | re.DOTALL)
_ATEN = re.compile(r"Original ATen: \[([^\]]*)\]")
_NODES = re.compile(r"Source Nodes: \[([^\]]*)\]")
_ALLOC = re.compile(r"(\w+) = empty_strided_\w+\(\(([^)]*)\), \(([^)]*)\), torch\.(\w+)\)")


@dataclass
class Step:
    index: int
    kind: str                      # "library", a Triton kind (KINDS), or "view"
    name: str                      # extern_kernels.mm, or the generated kernel's name
    aten: list[str]                # the ATen operations it covers
    args: list[str]                # the call's arguments, as the wrapper writes them
    numels: list[int] = field(default_factory=list)     # the integer arguments: the kernel's loop sizes
    size_hints: dict = field(default_factory=dict)
    signature: dict = field(default_factory=dict)       # Triton kernels: each parameter's type
    source: str = ""               # Triton kernels: the generated module
    fused_ops: int = 1
    saved_bytes: int = 0           # modelled (module docstring)


@dataclass
class Plan:
    expr: str
    shapes: dict
    dtype: str
    target: str
    device: str
    torch_version: str
    steps: list[Step]
    buffers: list[dict]            # what `call` allocates: name, shape, dtype, bytes
    reused: int                    # buffers Inductor reuses instead of allocating
    peak_bytes: int = 0            # the most bytes of its own buffers alive at once (the inputs not counted)
    eager_peak_bytes: int | None = None   # the same for eager PyTorch, from the traced ATen graph
    wrapper: str = field(repr=False, default="")
    kernels_read: dict = field(default_factory=dict)   # each generated kernel's configs, as Inductor built them
    autotune: list = field(default_factory=list)       # --max-autotune: each GEMM's candidates, modelled (autotune.py)

    @property
    def kernels(self) -> list[Step]:
        return [s for s in self.steps if s.kind != "library"]

    def as_dict(self) -> dict:
        out = asdict(self)
        out["steps"] = [{k: v for k, v in asdict(s).items() if k != "source"} for s in self.steps]
        out.pop("wrapper")
        out["kernels"] = out.pop("kernels_read")
        out["saved_bytes_modelled"] = sum(s.saved_bytes for s in self.steps)
        return out


def shapes_text(shapes: dict[str, list[int]]) -> str:
    """{"a": [4096, 4096], "b": [64]} -> "a=4096x4096, b=64", as --shape takes them."""
    return ", ".join(f"{name}={'x'.join(map(str, dims))}" for name, dims in shapes.items())


def parse_shapes(items) -> dict[str, list[int]]:
    """`a=4096x4096,b=4096x4096` (or repeated --shape) -> {"a": [4096, 4096], "b": [4096, 4096]}."""
    from ..core.params import split_items
    shapes = {}
    for item in split_items(items):
        name, eq, dims = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier():
            raise UserError(f"shape '{item}': expected NAME=AxB, as in `shape` a=4096x4096", param="shape")
        try:
            shapes[name] = [int(d) for d in dims.lower().split("x")]
        except ValueError:
            raise UserError(f"shape {item}: dimensions are integers joined by x, as in 4096x4096", param="shape") from None
        if any(d < 1 for d in shapes[name]):
            raise UserError(f"shape {item}: dimensions are positive", param="shape")
    if not shapes:
        raise UserError("shape: name the expression's tensors and their shapes, as in `shape` a=4096x4096", param="shape")
    return shapes


def check_torch(version: str | None = None) -> str:
    """The installed torch's version, if this package can read its Inductor (its wrapper's text, its device
    interface, its CachingAutotuner and interpret path); otherwise one clear line (compat.SUPPORTED)."""
    from .. import compat
    return compat.check("torch", version)


def real_device_for(target: str | None) -> bool:
    """Whether `fuse` plans for this machine's own GPU, with no fakes: no target or `native` was asked for
    and a CUDA GPU is here (targets.native). Any named target is planned for on the stand-in device."""
    return target in (None, "native") and targets.native() is not None and targets.native().is_nvidia


def plannable_target(target: str):
    """The target, when this torch's Inductor can be asked to plan for it here; otherwise one clear line."""
    check_torch()
    return targets.resolve(target)


def plan(expr: str, shapes: dict[str, list[int]], dtype: str = "fp16", target: str = "sm_90",
         max_autotune: bool = False, real_device: bool = False) -> Plan:
    """Ask Inductor, in a child process, what it would launch for `expr` on `target` (`real_device`: the
    CUDA GPU of this machine, planned for with no fakes)."""
    tgt = plannable_target(target)
    answer = ask_child({"expr": expr, "shapes": shapes, "torch_dtype": dtypes.get(dtype).torch, "target": tgt.label,
                        "max_autotune": max_autotune, "real_device": real_device})
    from ..core import devices
    made = read(answer["wrapper"], expr, shapes, dtype, tgt, devices.get(tgt).name, answer["torch"])
    made.kernels_read = answer.get("kernels", {})
    made.eager_peak_bytes = answer.get("eager_peak_bytes")
    made.autotune = answer.get("autotune", [])
    return made


def ask_child(settings: dict) -> dict:
    """Run Inductor in its own process (planner_child.py) with these settings; its answer, or one clear error.

    A plan (not a --run) of an expression is kept in Triton's cache directory, keyed on the settings, the
    torch and Triton versions and playground's own code: asking again reads it back instead of starting
    Inductor (15-30 s)."""
    from ..artefact import cache
    key = _plan_key(settings)
    kept = cache.kept_json(key, PLAN_FILE) if key else None
    if kept is not None:
        return kept
    from ..lifecycle import child_env, run_child
    # Inductor's own cache is thrown away. One compile thread: a plan compiles no kernel, and Inductor would
    # otherwise start a pool of worker processes, each importing torch again (about 3 s of a 12 s plan on two cores).
    with tempfile.TemporaryDirectory(prefix="playground-fuse-") as tmp:
        code, answer, err = run_child("playground.inductor.planner_child", settings, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True,
                                      env=child_env(TRITON_INTERPRET=None, TORCHINDUCTOR_CACHE_DIR=tmp,
                                                    TORCHINDUCTOR_COMPILE_THREADS="1"))
    if answer is None:
        tail = err.strip().splitlines()[-1:] or ["no output"]
        raise KernelFailure(f"fuse: Inductor's process ended (exit {code}): {tail[0]}")
    if "error" in answer:
        raise (UserError if answer["bad_input"] else KernelFailure)(f"fuse: {answer['error']}")
    if key:
        cache.keep_json(key, PLAN_FILE, answer)
    return answer


PLAN_FILE = "playground-fuse-plan.json"


def _plan_key(settings: dict) -> str | None:
    """The key a plan is kept under, or None for what is not kept: a --run (it executes the kernels), a plan
    for this machine's own GPU, a file's function or module (its imports could change unseen), a run with
    the test suite's mutation switch, or Triton's switches for a fresh compile."""
    import hashlib
    import json

    from .. import versions
    from ..artefact import cache
    expr = settings.get("expr", "")
    if (settings.get("run") or settings.get("real_device") or os.environ.get("PLAYGROUND_FUSE_MUTATE")
            or _names_a_file(expr) or cache.disabled()):
        return None
    parts = [PLAN_FILE, json.dumps(settings, sort_keys=True), str(versions.torch_build()),
             str(versions.package_version("triton")), versions.code_fingerprint()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _names_a_file(expr: str) -> bool:
    head = expr.rpartition(":")[0]
    return bool(head) and os.path.exists(head)


def plan_many(expr: str, shapes: dict[str, list[int]], dtype: str, target_names: list[str],
              max_autotune: bool = False) -> list[Plan]:
    """One plan per target, each in its own process, side by side (a plan is mostly one core's work)."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, min(len(target_names), os.cpu_count() or 1))) as pool:
        return list(pool.map(lambda name: plan(expr, shapes, dtype, name, max_autotune), target_names))


def read(wrapper: str, expr: str, shapes: dict, dtype: str, tgt, device: str, torch_version: str) -> Plan:
    """The wrapper's `call`, as steps in launch order."""
    kernels = {m.group(1): m.group(3) for m in KERNEL_DEF.finditer(wrapper)}
    body = wrapper[wrapper.index("def call(self, args):"):] if "def call(self, args):" in wrapper else wrapper
    steps: list[Step] = []
    buffers, reused, aten = [], 0, []
    live: dict[str, int] = {}          # buffer name -> bytes of the allocation it holds (aliases hold 0)
    current = peak = 0
    for line in body.splitlines():
        text = line.strip()
        reuse = re.match(r"(\w+) = (\w+); del \2\s+# reuse", text)
        if reuse:                      # the new name takes over the old allocation: nothing freed, nothing new
            live[reuse.group(1)] = live.pop(reuse.group(2), 0)
        elif text.startswith("del "):
            for name in (n.strip() for n in text[4:].split(",")):
                current -= live.pop(name, 0)
        if text.startswith("#"):
            found = _ATEN.search(text)
            aten = [a.strip() for a in found.group(1).split(",") if a.strip()] if found else aten
            continue
        alloc = _ALLOC.search(text)
        if alloc:
            shape = [int(d) for d in alloc.group(2).split(",") if d.strip()]
            size = getattr(dtypes.DTYPES.get(short_dtype(alloc.group(4))), "bytes", 0)
            buffers.append({"name": alloc.group(1), "shape": shape, "dtype": alloc.group(4),
                            "bytes": math.prod(shape) * size})
            live[alloc.group(1)] = math.prod(shape) * size
            current += live[alloc.group(1)]
            peak = max(peak, current)
            continue
        if "# reuse" in text:
            reused += 1
        call = re.match(r"(extern_kernels\.\w+|\w+\.run)\((.*)\)$", text)
        if not call:
            continue
        target_name, args = call.group(1), split_top_level(call.group(2))
        if target_name.startswith("extern_kernels."):
            steps.append(Step(len(steps) + 1, "library", target_name, aten, args))
        elif target_name[:-4] in kernels:
            name = target_name[:-4]
            steps.append(_triton_step(len(steps) + 1, name, kernels[name], aten, args,
                                      {b["name"]: b["bytes"] for b in buffers}))
        aten = []
    return Plan(expr=expr, shapes=shapes, dtype=dtype, target=tgt.label, device=device, torch_version=torch_version,
                steps=steps, buffers=buffers, reused=reused, peak_bytes=peak, wrapper=wrapper)


def _triton_step(index: int, name: str, source: str, aten: list[str], args: list[str],
                 buffer_bytes: dict | None = None) -> Step:
    decorator = re.search(r"@triton_heuristics\.(\w+)\(", source)
    kind = KINDS.get(decorator.group(1), decorator.group(1)) if decorator else "Triton kernel"
    meta = _literal_after(source, "triton_meta=")
    hints = _literal_after(source, "size_hints=")
    numels = [int(a) for a in args if re.fullmatch(r"\d+", a)]
    signature = {k: str(v) for k, v in (meta or {}).get("signature", {}).items()}
    step = Step(index, kind, name, aten, [a for a in args if not a.startswith("stream=")], numels,
                hints or {}, signature, source, fused_ops=max(len(aten), 1))
    pointer = next((t for t in signature.values() if t.startswith("*")), None)
    element = getattr(dtypes.DTYPES.get(pointer[1:] if pointer else ""), "bytes", 0)
    if step.kind == KINDS["template"]:
        # a template's integer arguments are its grid, not loop sizes: its intermediate (the GEMM's output,
        # kept on chip for the epilogue) is the size of the buffer it writes
        written = [buffer_bytes[a] for a in args if a in (buffer_bytes or {})]
        if step.fused_ops > 1 and written:
            step.saved_bytes = 2 * (step.fused_ops - 1) * max(written)
    elif step.fused_ops > 1 and numels and element:
        step.saved_bytes = 2 * (step.fused_ops - 1) * math.prod(numels) * element
    return step


def _literal_after(source: str, key: str):
    """The Python literal that follows `key` in the decorator (DeviceProperties(...) read as None)."""
    start = source.find(key)
    if start < 0:
        return None
    text, depth = source[start + len(key):], 0
    for end, ch in enumerate(text):
        depth += ch in "{[("
        depth -= ch in "}])"
        if depth == 0 and ch in ",)\n" and end:
            break
    chunk = re.sub(r"DeviceProperties\([^)]*\)", "None", text[:end])
    try:
        return ast.literal_eval(chunk)
    except (ValueError, SyntaxError):
        return None


def short_dtype(torch_name: str) -> str:
    """torch's dtype name ("float16") as the project's ("fp16"); an unknown one as it is."""
    return next((d.name for d in dtypes.DTYPES.values() if d.torch == torch_name), torch_name)
