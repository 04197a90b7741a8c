"""`fuse --run`: the plan is real code, so run it and check it computes what eager PyTorch computes.

With no GPU, the plan Inductor makes for the target at small shapes runs on the CPU (execute.py:
generated kernels in Triton's interpreter, each of their configs; library calls in PyTorch) and its
outputs are compared with eager PyTorch in fp64. Large shapes are scaled down first, since the
interpreter runs a program at a time: every dimension over RUN_DIM becomes RUN_DIM, which keeps equal
dimensions equal (a GEMM's inner sizes still agree). The plan at those shapes can differ from the
plan at the shapes asked for (loop sizes, configs, a split), so the text names the kernels it ran.
On a machine with a CUDA GPU (no --target), torch.compile runs the function on it at the shapes asked
for, with nothing stood in (execute.check_on_device).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..core import dtypes
from ..errors import UserError
from .plan import ask_child, plannable_target, read, shapes_text

RUN_DIM = 64
AS_GIVEN = 1 << 16          # inputs of at most this many elements in all run at the shapes asked for


def run_shapes(shapes: dict[str, list[int]]) -> dict[str, list[int]]:
    if sum(math.prod(d) for d in shapes.values()) <= AS_GIVEN:
        return shapes
    return {name: [min(d, RUN_DIM) for d in dims] for name, dims in shapes.items()}


@dataclass
class PlanCheck:
    expr: str
    target: str
    shapes: dict                  # the shapes it ran at
    chosen: str                   # how: "as asked" (--shape), "scaled" (down from --shape), "given" (--run-shape)
    kernels: dict                 # generated kernel -> how many configs it has (each one ran)
    library_calls: list[str]
    runs: list[dict]              # per config index: each output's comparison with eager fp64
    device: str | None = None     # the CUDA GPU it ran on (real_device); None: the CPU and the interpreter

    @property
    def ok(self) -> bool:
        return all(o["ok"] for r in self.runs for o in r["outputs"])

    def as_dict(self) -> dict:
        return {"expr": self.expr, "target": self.target, "shapes": self.shapes, "chosen": self.chosen,
                "kernels": self.kernels, "library_calls": self.library_calls, "runs": self.runs, "ok": self.ok,
                "executed_by": (f"torch.compile on {self.device}" if self.device else
                                "Triton's interpreter on the CPU (generated kernels), PyTorch on the CPU (library "
                                "calls)") + "; reference: eager PyTorch in fp64"}


def run(expr: str, shapes: dict[str, list[int]], dtype: str, target: str, shapes_to_run: dict | None = None,
        seed: int = 0, max_autotune: bool = False, real_device: bool = False) -> PlanCheck:
    tgt = plannable_target(target)
    used = shapes_to_run or (shapes if real_device else run_shapes(shapes))    # a GPU runs the real shapes
    if set(used) != set(shapes):
        raise UserError(f"run_shape: name the same tensors as `shape` ({', '.join(shapes)})", param="run_shape")
    try:
        answer = ask_child({"expr": expr, "shapes": used, "torch_dtype": dtypes.get(dtype).torch,
                            "target": tgt.label, "run": True, "dtype": dtype, "seed": seed,
                            "max_autotune": max_autotune, "real_device": real_device})
    except UserError as e:
        if used == shapes:
            raise
        raise UserError(f"{e} (at `run`'s scaled-down shapes {shapes_text(used)}; give others with `run_shape`)") \
            from None
    made = read(answer["wrapper"], expr, used, dtype, tgt, "", answer["torch"])
    found = answer["check"]
    chosen = "given" if shapes_to_run else "as asked" if used == shapes else "scaled"
    return PlanCheck(expr=expr, target=tgt.label, shapes=used, chosen=chosen, device=found.get("device"),
                     kernels={s.name: found["configs_per_kernel"].get(s.name, 1) for s in made.kernels},
                     library_calls=[s.name for s in made.steps if s.kind == "library"], runs=found["runs"])


def plan_and_run(expr: str, shapes: dict[str, list[int]], dtype: str, target: str, run_check: bool,
                 shapes_to_run: dict | None = None, max_autotune: bool = False, real_device: bool = False):
    """(the plan, its check or None): with --run, two Inductor processes side by side."""
    from concurrent.futures import ThreadPoolExecutor

    from .plan import plan
    if not run_check:
        return plan(expr, shapes, dtype, target, max_autotune, real_device), None
    with ThreadPoolExecutor(max_workers=2) as pool:
        planned = pool.submit(plan, expr, shapes, dtype, target, max_autotune, real_device)
        checked = pool.submit(run, expr, shapes, dtype, target, shapes_to_run, 0, max_autotune, real_device)
        return planned.result(), checked.result()
