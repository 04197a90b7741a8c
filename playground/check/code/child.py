"""The process the code under check runs in (started by sandbox.py; never imported by the CLI).

    python -m playground.check.code.child SETTINGS.json

It is untrusted code's process: it holds no reference output and makes no verdict. In order, it
- drops to the sandbox's limits (resource limits, the unprivileged user where sandbox.py chose one), then
  installs an audit hook that refuses, and records, a write outside the scratch folder, a socket connection, a
  fork, and a program run that is not Triton's tool chain (sandbox.py says what else stops them, and how firmly);
- installs the virtual GPU of the target (session.install_for_running: every launch compiled for it and run in
  Triton's interpreter under the sanitizers), or watches this machine's GPU (native);
- fills every GPU tensor torch allocates uninitialised with a poison (draws.poison), so an output that was never
  written, or `torch.empty` hoping for someone's freed result, shows as such;
- imports the subject, then, case by case: builds it (a module under the case's seed, its parameters drawn by
  name), puts the case's inputs on the GPU, calls it, and saves what it returned, the inputs as they are after
  the call, the gradients (--backward) and the launches it made, one file per case, for the parent to judge.
It also notes whether the subject replaced torch's comparison functions or walked the garbage collector (the
`reach` guard: neither can help it, the reference and the comparison live in the parent).
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

_EVENTS: list[dict] = []
_WATCHING = {"on": False}
# the functions a harness compares or times with; a subject that replaces one is trying to reach the verdict
_REACH = ("torch.allclose", "torch.isclose", "torch.equal", "torch.testing.assert_close", "torch.Tensor.__eq__",
          "torch.Tensor.allclose", "gc.get_objects", "time.perf_counter", "time.time")


def main(argv: list[str]) -> int:
    settings = json.loads(Path(argv[0]).read_text())
    if not settings.get("own_pid_namespace"):   # there, the parent is the namespace's pid 1: bubblewrap's
        from ...lifecycle import die_with_parent    # --die-with-parent does this
        die_with_parent()
    _confine(settings)
    import warnings
    warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
    import torch

    from ...virtual import session, torch_device
    from . import draws
    recorder = session.install_for_running(settings["target"]) if settings["target"] else session.install_native()
    if settings.get("poison", True):
        from ...virtual import capture
        torch_device._state["fresh_memory"] = draws.poison
        capture.POISON_MASKED_LANES["on"] = True
    answer = {"cases": [], "events": _EVENTS}
    out = Path(settings["results"])
    reach_before = _identities()
    try:
        _WATCHING["on"] = True
        subject = _load(settings)
        answer["subject"] = subject.describe()
    except BaseException as e:          # the subject's own failure to import: the verdict says it
        answer["load_error"] = _one_line(e)
        answer["traceback"] = _user_traceback(e)
        _write(out, answer, recorder)
        return 0
    finally:
        _WATCHING["on"] = False
    _write(out, answer, recorder)           # loaded: a case that kills the process is told apart from the import
    cases = torch.load(settings["cases"], weights_only=True)
    kept: dict = {}                         # the first case's module, called again at the end (the replayed guard)
    for case in cases:
        answer["cases"].append(_run_case(subject, case, settings, recorder, out, kept if not kept else None))
        _write(out, answer, recorder)       # as it goes: a case that kills the process leaves the others
    again = next((c for c in cases if c.get("again")), None)
    if again is not None and kept.get("module") is not None:
        answer["again"] = _run_case(subject, {**again, "id": f"{again['id']}-again"}, settings, recorder, out,
                                    reuse=kept["module"])
        _write(out, answer, recorder)
    answer["reach"] = _replaced(reach_before)
    _write(out, answer, recorder)
    return 0


# --- the subject ----------------------------------------------------------------------------------
class Subject:
    def __init__(self, obj, kind: str, name: str):
        self.obj, self.kind, self.name = obj, kind, name
        self.module = None

    def describe(self) -> dict:
        return {"kind": self.kind, "name": self.name}


def _load(settings: dict) -> Subject:
    import importlib

    import torch
    ref = settings["subject"]
    if settings["kind"] == "kernelbench":
        namespace = _import_file(Path(ref))
        cls = namespace.get("ModelNew")
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
            raise LookupError(f"{Path(ref).name} defines no ModelNew (an nn.Module), as KernelBench's solutions do")
        return Subject(cls, "kernelbench", "ModelNew")
    where, _, name = ref.rpartition(":")
    if where.endswith(".py") or os.sep in where:
        namespace = _import_file(Path(where))
    else:
        namespace = vars(importlib.import_module(where))
    if name not in namespace:
        known = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("_"))
        raise LookupError(f"{where} has no {name}; it defines {', '.join(known[:12]) or 'nothing callable'}")
    obj = namespace[name]
    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        return Subject(obj, "module", name)
    if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
        return Subject(obj, "autograd", name)
    if callable(obj):
        return Subject(obj, "function", name)
    raise LookupError(f"{name} is a {type(obj).__name__}, not a function, an nn.Module or an autograd.Function")


def _import_file(file: Path) -> dict:
    from ...core import imports
    where = imports.placement(file.resolve())
    module, _, _ = imports.import_placed(file.resolve(), where, "playground_checked")
    return vars(module)


# --- one case -------------------------------------------------------------------------------------
def _run_case(subject: Subject, case: dict, settings: dict, recorder, out: Path, keep: dict | None = None,
              reuse=None) -> dict:
    """Run one case; `keep` receives the module it built, and `reuse` is a module built by an earlier case, called
    again (with this case's parameters and inputs) instead of a new one."""
    import torch

    from .reference import flatten          # the reference's outputs are named the same way
    result = {"id": case["id"], "status": "ran"}
    first = len(recorder.launches)
    start = time.perf_counter()
    saved: dict = {}
    try:
        torch.manual_seed(case["seed"])
        args = [_on_gpu(value, case.get("layout")) for _, value in case["args"]]
        names = [name for name, _ in case["args"]]
        backward = settings.get("backward")
        if backward:
            args = [a.requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                    for a in args]
        _WATCHING["on"] = True
        try:
            call, module, drawn = _bound(subject, case, settings, args, reuse)
            if keep is not None:
                keep["module"] = module
            with torch.set_grad_enabled(bool(backward)):
                returned = call()
            outputs = flatten(returned)
            saved["outputs"] = [(n, _plain(t)) for n, t in outputs if t is not None]
            result["outputs"] = [_describe(n, t) for n, t in outputs]
            if backward:
                saved["inputs_after_forward"] = [(n, _plain(a)) for n, a in zip(names, args)
                                                 if isinstance(a, torch.Tensor)]
                saved["grads"] = _backward(outputs, names, args, module, case["seed"])
        finally:
            _WATCHING["on"] = False
        saved["inputs_after"] = [(n, _plain(a)) for n, a in zip(names, args) if isinstance(a, torch.Tensor)]
        if module is not None:
            mapping = drawn.pop("__mapping__", None)
            if mapping is not None:
                result["parameter_mapping"] = mapping
            result["parameters"] = drawn
            result["attributes"] = {k: v for k, v in vars(module).items()
                                    if not k.startswith("_") and isinstance(v, (int, float, bool, str))}
    except BaseException as e:      # noqa: BLE001 -- the subject's failure is a verdict, not ours
        if isinstance(e, KeyboardInterrupt):
            raise
        result.update(status="error", error=_one_line(e), traceback=_user_traceback(e))
    result["seconds"] = time.perf_counter() - start
    result["launches"] = [_launch(r) for r in recorder.launches[first:]]
    torch.save(saved, out / f"case-{case['id']}.pt")
    return result


def _bound(subject: Subject, case: dict, settings: dict, args: list, reuse=None):
    """The call a case makes, and the module it built (None for a function or an autograd.Function); with `reuse`,
    that module, its parameters set for this case, as a model serving one request after another is."""
    import torch

    from . import draws
    if subject.kind == "function":
        return (lambda: subject.obj(*args)), None, {}
    if subject.kind == "autograd":
        return (lambda: subject.obj.apply(*args)), None, {}
    init = case.get("init") or {}
    torch.manual_seed(case["seed"])          # KernelBench builds both models under one seed
    if reuse is not None:
        module = reuse
    else:
        module = subject.obj(*init) if isinstance(init, list) else subject.obj(**init)
    dtype = settings.get("module_dtype")
    if dtype:
        module = module.to(getattr(torch, dtype))
    wanted = case.get("parameters")          # KernelBench: the reference's, matched by name, else by order
    floating = [(n, p) for n, p in module.named_parameters() if p.is_floating_point()]
    mapping = draws.match_parameters([(n, tuple(p.shape)) for n, p in floating], wanted)
    drawn = {}
    with torch.no_grad():
        for name, p in floating:
            source = mapping["pairs"].get(name, name) if wanted is not None else name
            if wanted is None:
                mean, std = draws.scale_of(p)
            elif name in mapping["pairs"]:
                mean, std = wanted[source]["mean"], wanted[source]["std"]
            else:
                continue
            p.copy_(draws.parameter(case["seed"], source, tuple(p.shape), p.dtype, mean, std))
            drawn[name] = {"shape": list(p.shape), "dtype": str(p.dtype).removeprefix("torch."), "mean": mean,
                           "std": std}
    if wanted is not None:
        drawn["__mapping__"] = mapping
    module = module.to("cuda")
    return (lambda: module(*args)), module, drawn


def _on_gpu(value, layout: str | None):
    """A case's input as the subject receives it: on the GPU; with layout "strided", a view into a wider
    allocation (poisoned beyond the view), so a kernel that assumes contiguous rows reads poison."""
    import torch
    if not isinstance(value, torch.Tensor):
        return value
    if layout == "strided" and value.dim() >= 2 and value.shape[-1] > 1:
        wide = torch.empty(*value.shape[:-1], value.shape[-1] + 16, dtype=value.dtype, device="cuda")
        view = wide[..., 3:3 + value.shape[-1]]
        view.copy_(value)
        return view
    return value.to("cuda").clone()


def _describe(name: str, value) -> dict:
    import torch
    if not isinstance(value, torch.Tensor):
        return {"name": name, "type": type(value).__name__, "value": repr(value)[:80]}
    return {"name": name, "type": type(value).__name__, "shape": list(value.shape),
            "dtype": str(value.dtype).removeprefix("torch."), "device": str(value.device)}


def _plain(value):
    """A plain CPU tensor holding the value's data (a subclass, a lazy tensor, is forced here)."""
    import torch

    from ... import compat
    if not isinstance(value, torch.Tensor):
        return torch.tensor(float(value)) if isinstance(value, (int, float)) else None
    with compat.disable_torch_function():
        return compat.reach("make_subclass")(torch.Tensor, value.detach()).clone()


def _backward(outputs: list, names: list, args: list, module, seed: int) -> list:
    import torch

    from . import draws
    pairs = [(t, draws.gradient(seed, i, tuple(t.shape), t.dtype).to("cuda")) for i, (_, t) in enumerate(outputs)
             if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs:
        raise RuntimeError("no output requires grad: nothing to differentiate")
    torch.autograd.backward([t for t, _ in pairs], [g for _, g in pairs])
    grads = [(f"grad {n}", _plain(a.grad)) for n, a in zip(names, args)
             if isinstance(a, torch.Tensor) and a.requires_grad and a.grad is not None]
    if module is not None:
        grads += [(f"grad {n}", _plain(p.grad)) for n, p in module.named_parameters() if p.grad is not None]
    return grads


def _launch(record: dict) -> dict:
    return {k: record[k] for k in ("index", "kernel", "grid", "variant", "executed", "error", "findings",
                                   "repeat_of", "file", "args", "masked_loads") if k in record}


def _write(out: Path, answer: dict, recorder) -> None:
    answer["trace"] = {k: v for k, v in recorder.as_dict().items()}
    (out / "answer.json").write_text(json.dumps(answer, default=str))


# --- confinement ----------------------------------------------------------------------------------
def _confine(settings: dict) -> None:
    import resource
    limits = settings.get("limits", {})
    for name, value in limits.items():
        which = getattr(resource, f"RLIMIT_{name.upper()}")
        resource.setrlimit(which, (value, value))
    user = settings.get("drop_to")
    if user:
        os.setgroups([])
        os.setgid(user[1])
        os.setuid(user[0])
    allowed = tuple(str(Path(p).resolve()) for p in settings.get("writable", []))
    tools = settings.get("tools", [])

    def audit(event: str, args: tuple) -> None:
        if event == "open" and allowed and _writes(args):
            path = str(args[0]) if not isinstance(args[0], int) else None
            if path and not path.startswith("/dev/") and not _inside(path, allowed):
                _EVENTS.append({"guard": "containment", "what": f"write to {path}"})
                raise PermissionError(f"playground check: writing outside the scratch folder ({path}) is refused")
        elif event == "socket.connect":
            _EVENTS.append({"guard": "containment", "what": f"socket connection to {args[1]!r}"})
            raise PermissionError("playground check: a network connection is refused")
        elif event == "os.fork" or event == "os.forkpty":
            _EVENTS.append({"guard": "containment", "what": "fork"})
            raise PermissionError("playground check: forking is refused")
        elif event in ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec"):
            program = str(args[0] if event != "subprocess.Popen" else (args[0] or _first(args[1])))
            if not any(Path(program).name == t or program.startswith(t) for t in tools):
                _EVENTS.append({"guard": "containment", "what": f"run {program}"})
                raise PermissionError(f"playground check: running {program} is refused")
        elif event in ("gc.get_objects", "gc.get_referrers") and _WATCHING["on"]:
            _EVENTS.append({"guard": "reach", "what": f"{event}: searched the garbage collector's objects"})

    sys.addaudithook(audit)


def _first(argv) -> str:
    if isinstance(argv, (str, bytes, os.PathLike)):
        return os.fsdecode(argv).split()[0] if os.fsdecode(argv).split() else ""
    return os.fsdecode(argv[0]) if argv else ""


def _writes(args: tuple) -> bool:
    mode, flags = (args[1] if len(args) > 1 else "r"), (args[2] if len(args) > 2 else 0)
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC)) if flags else False


def _inside(path: str, roots: tuple) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def _identities() -> dict:
    import gc
    import time as time_module

    import torch
    found = {}
    for dotted in _REACH:
        head, _, attr = dotted.rpartition(".")
        owner = {"torch": torch, "torch.testing": torch.testing, "torch.Tensor": torch.Tensor, "gc": gc,
                 "time": time_module}[head]
        found[dotted] = id(getattr(owner, attr, None))
    return found


def _replaced(before: dict) -> list[str]:
    after = _identities()
    return [name for name in before if after[name] != before[name]]


def _one_line(e: BaseException) -> str:
    from ... import removed_features
    text = " ".join(str(e).split())
    removed = removed_features.explain(text)     # a feature this Triton removed: which one last had it, and --triton
    if removed:
        return f"{type(e).__name__}: {removed}"
    return f"{type(e).__name__}: {text}"[:400] if text else type(e).__name__


def _user_traceback(e: BaseException) -> str:
    here = str(Path(__file__).resolve().parents[2])
    frames = [f for f in traceback.extract_tb(e.__traceback__) if here not in f.filename]
    return "".join(traceback.format_list(frames[-6:])) + "".join(traceback.format_exception_only(type(e), e))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
