"""How far each solution in tests/data/margins sits from an fp64 reference, next to PyTorch's own error.

For every MANIFEST entry whose guard is null (a correct solution) or "tolerance" (a subtle numerical bug), this
loads the problem and the solution from their files, builds Model and ModelNew from get_init_inputs() under
torch.manual_seed(0), copies Model's parameters into ModelNew (by name; any left over by order where shapes
agree), and runs both on CPU tensors from get_inputs() under seeds 0 and 1, with Triton's interpreter. Per entry:

  err_sol    max |solution - ref64|, ref64 being Model run in float64 on the same inputs upcast
  err_torch  max |Model in the problem's dtype - ref64|: PyTorch's own rounding error
  ratio      err_sol / err_torch
  rel_ratio  the same ratio with each error taken as max |err| / (|ref64| + eps_dtype * max |ref64|)
  close      torch.testing.assert_close(solution, torch) passes (its dtype's default rtol/atol)
  1e-2       torch.allclose(solution, torch, atol=1e-2, rtol=1e-2) passes (KernelBench's fp32 tolerance)

Prints the correct and the buggy entries separately, each sorted by ratio, then the gap between the largest
correct ratio and the smallest bug ratio, where a checker's factor k must sit. Exits 1 if any bug's ratio is
below 10x the largest correct ratio.

It also judges each entry by the checker's own rule (playground/check/margin.py: K times PyTorch's error plus a
floor of ulps), in the column "rule", so the rule's K can be read against the gap.

Usage: .venv/bin/python benchmarks/margins_measure.py [--json] [SUBSTRING ...]   (only entries whose paths
contain one; --json prints one object per entry instead of the tables, for tests/test_check_margins.py)
"""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by this script or by any solution

import copy
import importlib.util
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # the checkout's playground, for its rule
from playground.check import margin  # noqa: E402

import torch

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "margins"
SEEDS = (0, 1)


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_parameters(model: torch.nn.Module, new: torch.nn.Module) -> None:
    """By name where name and shape agree; the rest of ModelNew's parameters by order, where shapes agree."""
    source = dict(model.named_parameters())
    left_src = [p for n, p in model.named_parameters()]
    left_dst = []
    with torch.no_grad():
        for name, param in new.named_parameters():
            if name in source and source[name].shape == param.shape:
                param.copy_(source[name])
                left_src = [p for p in left_src if p is not source[name]]
            else:
                left_dst.append(param)
        for src, dst in zip(left_src, left_dst):
            if src.shape == dst.shape:
                dst.copy_(src)


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def errors(out, ref64, eps):
    """(max abs error, max relative-to-scale error) of out against ref64."""
    diff = (out.double() - ref64).abs()
    scale = ref64.abs().max()
    return diff.max().item(), (diff / (ref64.abs() + eps * scale)).max().item()


def measure(entry: dict) -> dict:
    problem = load_module(CORPUS / entry["problem"], "margins_problem")
    solution = load_module(CORPUS / entry["solution"], "margins_solution")
    torch.manual_seed(0)
    init = problem.get_init_inputs()
    torch.manual_seed(0)
    model = problem.Model(*init).eval()
    torch.manual_seed(0)
    new = solution.ModelNew(*init).eval()
    copy_parameters(model, new)
    model64 = copy.deepcopy(model).double()
    err = {"sol": 0.0, "torch": 0.0, "sol_rel": 0.0, "torch_rel": 0.0}
    close = loose = rule = True
    seconds = 0.0
    for seed in SEEDS:
        torch.manual_seed(seed)
        inputs = problem.get_inputs()
        with torch.no_grad():
            ref64 = as_list(model64(*[x.double() if x.is_floating_point() else x for x in inputs]))
            native = as_list(model(*[x.clone() for x in inputs]))
            start = time.perf_counter()
            out = as_list(new(*[x.clone() for x in inputs]))
            seconds = max(seconds, time.perf_counter() - start)
        for o, n, r in zip(out, native, ref64):
            eps = torch.finfo(n.dtype).eps
            e_sol, e_sol_rel = errors(o, r, eps)
            e_torch, e_torch_rel = errors(n, r, eps)
            judged = margin.measure(o, r, n)
            rule = rule and (judged is None or judged.ok)
            err["sol"], err["sol_rel"] = max(err["sol"], e_sol), max(err["sol_rel"], e_sol_rel)
            err["torch"], err["torch_rel"] = max(err["torch"], e_torch), max(err["torch_rel"], e_torch_rel)
            try:
                torch.testing.assert_close(o, n)
            except AssertionError:
                close = False
            loose = loose and o.shape == n.shape and torch.allclose(o, n, atol=1e-2, rtol=1e-2)

    def ratio(a, b):
        return 1.0 if a == b == 0 else a / b if b else float("inf")

    return {"err_sol": err["sol"], "err_torch": err["torch"], "ratio": ratio(err["sol"], err["torch"]),
            "rel_ratio": ratio(err["sol_rel"], err["torch_rel"]), "close": close, "loose": loose,
            "rule": rule, "seconds": seconds}


def table(title: str, rows: list) -> None:
    print(f"\n{title} ({len(rows)})")
    print(f"{'entry':58} {'err_sol':>9} {'err_torch':>9} {'ratio':>8} {'rel_ratio':>9} {'close':>5} "
          f"{'1e-2':>5} {'rule':>5} {'secs':>5}")
    for name, r in sorted(rows, key=lambda row: row[1]["ratio"]):
        print(f"{name:58} {r['err_sol']:9.2e} {r['err_torch']:9.2e} {r['ratio']:8.2f} {r['rel_ratio']:9.2f} "
              f"{'pass' if r['close'] else 'FAIL':>5} {'pass' if r['loose'] else 'FAIL':>5} "
              f"{'pass' if r['rule'] else 'FAIL':>5} {r['seconds']:5.2f}")


def main() -> int:
    entries = json.loads((CORPUS / "MANIFEST.json").read_text())
    as_json = "--json" in sys.argv[1:]
    wanted = [a for a in sys.argv[1:] if a != "--json"]
    correct, buggy = [], []
    for entry in entries:
        if entry["guard"] not in (None, "tolerance"):
            continue
        if wanted and not any(w in entry["solution"] for w in wanted):
            continue
        name = entry["solution"].removeprefix("solutions/").removesuffix(".py")
        result = measure(entry)
        (correct if entry["correct"] else buggy).append((name, result))
    if as_json:
        print(json.dumps([{"solution": n, "correct": c is correct, **r} for c in (correct, buggy) for n, r in c]))
        return 0
    table("correct solutions", correct)
    table("subtle bugs (guard: tolerance)", buggy)
    worst_correct = max((r["ratio"] for _, r in correct), default=0.0)
    best_bug = min((r["ratio"] for _, r in buggy), default=float("inf"))
    worst_correct_rel = max((r["rel_ratio"] for _, r in correct), default=0.0)
    best_bug_rel = min((r["rel_ratio"] for _, r in buggy), default=float("inf"))
    print(f"\nlargest ratio among correct solutions: {worst_correct:.2f}   (rel_ratio {worst_correct_rel:.2f})")
    print(f"smallest ratio among bugs:             {best_bug:.2f}   (rel_ratio {best_bug_rel:.2f})")
    print(f"bugs passing allclose(atol=rtol=1e-2): {sum(r['loose'] for _, r in buggy)} of {len(buggy)}; "
          f"passing assert_close: {sum(r['close'] for _, r in buggy)}; passing the rule (K={margin.K:g}): "
          f"{sum(r['rule'] for _, r in buggy)}; correct ones the rule fails: {sum(not r['rule'] for _, r in correct)}")
    too_close = [name for name, r in buggy if r["ratio"] < 10 * worst_correct]
    if too_close:
        print(f"FAIL: bugs under 10x the largest correct ratio ({10 * worst_correct:.2f}): {', '.join(too_close)}")
        return 1
    print(f"OK: every bug's ratio is at least 10x the largest correct ratio "
          f"(gap for k: {worst_correct:.2f} .. {best_bug:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
