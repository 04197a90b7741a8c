"""The reference: PyTorch, in this process, after the subject has run in its own, in fp64 from the very inputs
the subject saw (rounded to their dtype), with the same parameters drawn by name. Three kinds:
- an expression over the input names (`--ref "F.rms_norm(x, (781,), model.weight, 1e-6)"`), with torch, F and
  math in scope, the --shape sizes by name, and `model` the module under check as its parameters (drawn as the
  subject's were) and its plain attributes (eps, hidden_size) show it;
- `FILE.py:NAME` or `package.module:NAME`: a function, an nn.Module class (built with the same --init) or an
  autograd.Function;
- a KernelBench problem's Model (problem.py), built under the case's seed, its parameters drawn here and copied
  into the solution's by name.
Besides the fp64 values, the reference's form (shape and dtype at the inputs' own dtypes) comes from a run on
torch's meta device (no arithmetic), or, where an op has no meta kernel, at the inputs' dtypes on the CPU.
"""
from __future__ import annotations

import ast
import copy
import math
from dataclasses import dataclass, field
from types import SimpleNamespace

from ...errors import UserError
from . import draws


@dataclass
class Expected:
    outputs: list = field(default_factory=list)     # [(name, fp64 tensor or None)]
    form: list | None = None                        # [{"name", "shape", "dtype"}] at the inputs' dtypes
    grads: list = field(default_factory=list)       # [(name, fp64 tensor)] with --backward
    error: str | None = None                        # the reference itself failed here
    native: list = field(default_factory=list)      # [(name, tensor)]: PyTorch in the inputs' own dtypes, the
    #                                                 yardstick of check/margin.py
    no_fp64: str | None = None                      # why `outputs` are the native run's, upcast: no fp64 kernel
    no_native: str | None = None                    # why there is no yardstick (PyTorch failed in the dtype)


class Reference:
    def __init__(self, kind: str, text: str, obj=None):
        self.kind, self.text, self.obj = kind, text, obj
        self._tree = ast.parse(text, mode="eval") if kind == "expression" else None

    def describe(self) -> str:
        return {"expression": f"`{self.text}`", "kernelbench": f"{self.text} (KernelBench's Model)"}.get(
            self.kind, self.text)

    # --- KernelBench: the model is built before the solution runs, its parameters drawn here --------------
    def prepare(self, case) -> None:
        """Build the case's reference model and draw its parameters (KernelBench), so the child copies them."""
        import torch
        if self.kind != "kernelbench":
            return
        torch.manual_seed(case.seed)
        model = case.problem.model(*case.init)
        specs = {}
        with torch.no_grad():
            for name, p in model.named_parameters():
                if p.is_floating_point():
                    mean, std = draws.scale_of(p)
                    p.copy_(draws.parameter(case.seed, name, tuple(p.shape), p.dtype, mean, std))
                    specs[name] = {"shape": list(p.shape), "mean": mean, "std": std}
        case.model, case.parameters = model, specs

    def expected(self, case, ran: dict, backward: bool) -> Expected:
        """The reference's outputs for `case` (fp64), its form, and with `backward` its gradients; `ran` is what
        the child reported of the case (the parameters the subject's module drew)."""
        try:
            form = self._form(case, ran)
        except UserError:
            raise
        native, no_native = self._attempt(lambda: self._native(case, ran))
        try:
            values, grads = self._values(case, ran, backward)
            return Expected(values, form, grads, native=native or [], no_native=no_native)
        except UserError:
            raise
        except Exception as e:       # noqa: BLE001 -- the reference failing at a case is reported, not raised
            why = _one_line(e)
            if native is None or backward:
                return Expected(error=why)
            # no fp64 kernel for some op: the native run is the answer, and the table alone judges (margin.py)
            upcast = [(n, t.double() if isinstance(t, torch_tensor()) else t) for n, t in native]
            return Expected(upcast, form, no_fp64=why)

    @staticmethod
    def _attempt(run):
        try:
            return run(), None
        except UserError:
            raise
        except Exception as e:       # noqa: BLE001 -- PyTorch itself fails here: said, not raised
            return None, _one_line(e)

    def _native(self, case, ran: dict) -> list:
        """The reference as PyTorch runs it: the inputs (and the model) in their own dtypes, on the CPU."""
        import torch
        args = [(n, v.clone() if isinstance(v, torch.Tensor) else v) for n, v in case.args]
        call, _ = self._call(case, ran, args, None, False)
        with torch.no_grad():
            return [(n, t.detach() if isinstance(t, torch.Tensor) else t) for n, t in flatten(call())]

    def _values(self, case, ran: dict, backward: bool):
        import torch
        args = [(n, _as(v, torch.float64, backward)) for n, v in case.args]
        call, leaves = self._call(case, ran, args, torch.float64, backward)
        with torch.set_grad_enabled(backward):
            outputs = flatten(call())
        values = [(n, t.detach() if isinstance(t, torch.Tensor) else t) for n, t in outputs]
        grads = []
        if backward:
            pairs = [(t, draws.gradient(case.seed, i, tuple(t.shape), _native_dtype(case, ran, i, t)).double())
                     for i, (_, t) in enumerate(outputs) if isinstance(t, torch.Tensor) and t.requires_grad]
            if pairs:
                torch.autograd.backward([t for t, _ in pairs], [g for _, g in pairs])
            grads = [(f"grad {n}", v.grad.detach()) for n, v in args + leaves
                     if isinstance(v, torch.Tensor) and v.requires_grad and v.grad is not None]
        return values, grads

    def _form(self, case, ran: dict):
        import torch
        for device in ("meta", "cpu"):
            try:
                args = [(n, v.to(device) if isinstance(v, torch.Tensor) else v) for n, v in case.args]
                call, _ = self._call(case, ran, args, None, False, device=device)
                with torch.no_grad():
                    return [{"name": n, "shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
                            for n, t in flatten(call()) if isinstance(t, torch.Tensor)]
            except Exception:       # noqa: BLE001 -- no meta kernel: try the CPU; neither: form is unknown
                continue
        return None

    def _call(self, case, ran: dict, args: list, dtype, grad: bool, device: str = "cpu"):
        """(a no-argument call of the reference, the parameters it differentiates) for these arguments; `dtype`
        None keeps the module's parameters at the inputs' own floating dtype."""
        import torch
        values = [v for _, v in args]
        if self.kind == "kernelbench":
            model = copy.deepcopy(case.model).to(device)
            if dtype is not None:
                model = model.to(dtype)
            leaves = _leaves(model, grad)
            return (lambda: model(*values)), leaves
        if self.kind == "expression":
            model, leaves = _stand_in(case, ran, dtype or _float_dtype(args), device, grad)
            scope = {"torch": torch, "F": torch.nn.functional, "math": math, **case.sizes, **dict(args),
                     "model": model}
            tree = _renamed(self._tree, case.literals)
            code = compile(tree, "<--ref>", "eval")
            return (lambda: eval(code, scope)), leaves       # noqa: S307 -- the user's own expression
        obj = self.obj
        if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
            torch.manual_seed(case.seed)
            init = case.init or {}
            module = obj(*init) if isinstance(init, list) else obj(**init)
            module = module.to(dtype or _float_dtype(args))
            drawn = ran.get("parameters") or {}
            with torch.no_grad():
                for name, p in module.named_parameters():
                    if p.is_floating_point():
                        mean, std = (drawn[name]["mean"], drawn[name]["std"]) if name in drawn else draws.scale_of(p)
                        p.copy_(draws.parameter(case.seed, name, tuple(p.shape), p.dtype, mean, std))
            module = module.to(device)
            return (lambda: module(*values)), _leaves(module, grad)
        if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
            return (lambda: obj.apply(*values)), []
        return (lambda: obj(*values)), []


def load(text: str, kernelbench_problem=None) -> Reference:
    """A --ref: a problem (already loaded), `FILE.py:NAME` / `module:NAME`, or an expression."""
    if kernelbench_problem is not None:
        return Reference("kernelbench", kernelbench_problem.path.name)
    where, colon, name = text.rpartition(":")
    if colon and name.isidentifier() and (where.endswith(".py") or _dotted(where)):
        return Reference("callable", text, _load_object(where, name))
    try:
        return Reference("expression", text)
    except SyntaxError as e:
        raise UserError(f"'{text}': neither FILE.py:NAME nor a Python expression ({e.msg})", param="ref") from None


def torch_tensor():
    import torch
    return torch.Tensor


def _one_line(e: Exception) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())}"[:300]


def flatten(returned, prefix: str = "out") -> list:
    """(name, value) for each tensor returned, named as child.py names the subject's."""
    import torch
    if isinstance(returned, torch.Tensor):
        return [(prefix, returned)]
    if isinstance(returned, (tuple, list)):
        return [item for i, v in enumerate(returned) for item in flatten(v, f"{prefix}[{i}]")]
    if isinstance(returned, dict):
        return [item for k, v in returned.items() for item in flatten(v, f"{prefix}[{k!r}]")]
    return [(prefix, returned)]


def _dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _load_object(where: str, name: str):
    import importlib
    from pathlib import Path

    from ...core import imports
    if where.endswith(".py"):
        file = Path(where)
        if not file.is_file():
            raise UserError(f"no such reference file: {where}", param="ref")
        module, _, _ = imports.import_placed(file.resolve(), imports.placement(file.resolve()), "playground_reference")
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise UserError(f"cannot import {where}: {e}", param="ref") from None
    if not hasattr(module, name):
        raise UserError(f"{where} has no {name}", param="ref")
    return getattr(module, name)


def _as(value, dtype, grad: bool):
    import torch
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        out = value.to(dtype).clone()
        return out.requires_grad_(True) if grad else out
    return value


def _float_dtype(args):
    import torch
    return next((v.dtype for _, v in args if isinstance(v, torch.Tensor) and v.is_floating_point()), torch.float32)


def _native_dtype(case, ran: dict, index: int, tensor):
    """The dtype the subject's output `index` had (the gradient fed to it was rounded to it)."""
    import torch
    outputs = ran.get("outputs") or []
    if index < len(outputs) and outputs[index].get("dtype"):
        return getattr(torch, outputs[index]["dtype"])
    return tensor.dtype


def _leaves(module, grad: bool) -> list:
    if not grad:
        return []
    leaves = []
    for name, p in module.named_parameters():
        if p.is_floating_point():
            p.requires_grad_(True)
            p.grad = None
            leaves.append((name, p))
    return leaves


def _stand_in(case, ran: dict, dtype, device: str, grad: bool):
    """`model` in a --ref expression: the subject module's parameters, drawn as the subject drew them, and its
    plain attributes, as nested namespaces (`model.norm.weight`)."""
    import torch
    root = SimpleNamespace(**(ran.get("attributes") or {}))
    leaves = []
    for name, spec in (ran.get("parameters") or {}).items():
        value = draws.parameter(case.seed, name, tuple(spec["shape"]), getattr(torch, spec["dtype"]), spec["mean"],
                                spec["std"]).to(dtype).to(device)
        if grad:
            value.requires_grad_(True)
            leaves.append((name, value))
        node = root
        *path, last = name.split(".")
        for part in path:
            node = node.__dict__.setdefault(part, SimpleNamespace())
        setattr(node, last, value)
    return root, leaves


class _Renamer(ast.NodeTransformer):
    def __init__(self, literals: dict):
        self.literals = literals

    def visit_Constant(self, node):
        if isinstance(node.value, int) and not isinstance(node.value, bool) and node.value in self.literals:
            return ast.copy_location(ast.Constant(self.literals[node.value]), node)
        return node


def _renamed(tree, literals: dict):
    return ast.fix_missing_locations(_Renamer(literals).visit(copy.deepcopy(tree))) if literals else tree
