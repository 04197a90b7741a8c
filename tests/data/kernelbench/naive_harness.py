"""A naive correctness harness for KernelBench-format pairs: the checks KernelBench itself makes, and no more.

Written in our own words after KernelBench's src/eval.py (eval_kernel_against_ref and
run_and_check_correctness) at github.com/ScalingIntelligence/KernelBench commit
01f92ad6103dc3feb1fe5b3c7e58536e9197430f (MIT licence). What it keeps from there:
- the problem file is exec'd into a namespace; the solution is imported as a module (KernelBench's
  tempfile route for Triton, whose @triton.jit needs a real file);
- get_init_inputs() under seed 42, Model(*init) under seed 42, ModelNew(*init) under seed 42; both
  models cast to fp32 and moved to cuda;
- the trial seeds drawn from torch.manual_seed(42) with randint; each trial reseeds, calls get_inputs(),
  moves the inputs to cuda, runs the reference and then the solution on the same tensors, under no_grad;
- a shape check (`output.shape != output_new.shape` fails), then torch.allclose(atol=rtol=1e-2)
  (KernelBench v0 / v0.1's fp32 tolerance).

Options that copy other harnesses' weaker habits, each one a hole a cheat in MANIFEST.json walks through:
  --solution-first   the solution runs before the reference on the same tensors (KernelBench PR #82's
                     input-mutation hole)
  --ref-to-host      the reference's output is copied to the host and its device buffer freed before the
                     solution runs (the freed block is what a returned torch.empty may get back)
  --no-shape-check   torch.allclose alone, which broadcasts (the gpu-mode leaderboard's first eval)
  --nan-wildcard     `not (|out - ref| > atol + rtol*|ref|).any()`: a NaN compares false and so passes
                     (pygpubench PR #7)
Options that are no part of any harness, to show a cheat is really wrong:
  --set NAME=VALUE   override a problem's module-level size before anything is drawn
  --spiky            add a few +-50..100 values to every floating input (after it is drawn)

Usage: playground run tests/data/kernelbench/naive_harness.py --target sm_90 PROBLEM SOLUTION [options]
Prints PASS or FAIL (with why); exits 0 on PASS, 1 on FAIL.
"""
import argparse
import importlib.util
import sys
import traceback
from pathlib import Path

import torch


def set_seed(seed: int) -> None:
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


def load_problem(path: str, overrides: dict) -> dict:
    """exec the problem as KernelBench does; module-level sizes overridden before any function reads them."""
    context: dict = {"__name__": "kernelbench_problem", "__file__": path}
    exec(compile(Path(path).read_text(), path, "exec"), context)
    for name, value in overrides.items():
        if name not in context:
            raise SystemExit(f"--set {name}: the problem defines no {name}")
        context[name] = type(context[name])(value)
    return context


def load_solution(path: str):
    spec = importlib.util.spec_from_file_location("temp_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ModelNew


def spike(tensor: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """A few large values (+-50..100) among the drawn ones: about one element in 500, at least 3."""
    if not tensor.is_floating_point() or tensor.numel() == 0:
        return tensor
    flat = tensor.clone().reshape(-1)
    count = max(3, flat.numel() // 500)
    where = torch.randint(0, flat.numel(), (count,), generator=generator)
    size = torch.empty(count).uniform_(50, 100, generator=generator)
    sign = torch.where(torch.rand(count, generator=generator) < 0.5, -1.0, 1.0)
    flat[where] = (size * sign).to(flat.dtype)
    return flat.reshape(tensor.shape)


def to_device(value, device, precision):
    if not isinstance(value, torch.Tensor):
        return value
    return value.to(dtype=precision).to(device=device)


def compare(output, output_new, args) -> str | None:
    """None when the outputs agree as the harness judges; else why not."""
    if not args.no_shape_check and output.shape != output_new.shape:
        return f"output shape mismatch: expected {tuple(output.shape)}, got {tuple(output_new.shape)}"
    if args.nan_wildcard:
        diff = (output_new - output).abs()
        if (diff > args.tol + args.tol * output.abs()).any():
            return f"output mismatch (max diff {diff.max().item():.6g})"
        return None
    if not torch.allclose(output, output_new, atol=args.tol, rtol=args.tol):
        diff = (output.float() - output_new.float()).abs()
        return f"output mismatch (max diff {diff.max().item():.6g}, mean {diff.mean().item():.6g})"
    return None


def evaluate(args) -> str | None:
    device = torch.device("cuda", 0)
    precision = torch.float32
    overrides = dict(item.split("=", 1) for item in args.set)
    problem = load_problem(args.problem, overrides)
    Model, get_inputs, get_init_inputs = problem["Model"], problem["get_inputs"], problem["get_init_inputs"]

    set_seed(args.seed)
    init_inputs = [to_device(x, device, precision) for x in get_init_inputs()]
    with torch.no_grad():
        set_seed(args.seed)
        original = Model(*init_inputs)
    ModelNew = load_solution(args.solution)
    with torch.no_grad():
        set_seed(args.seed)
        custom = ModelNew(*init_inputs)
        original = original.to(device=device, dtype=precision)
        custom = custom.to(device=device, dtype=precision)

    torch.manual_seed(args.seed)
    trial_seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(args.trials)]
    spikes = torch.Generator().manual_seed(args.seed + 1)
    with torch.no_grad():
        for trial, trial_seed in enumerate(trial_seeds):
            set_seed(trial_seed)
            inputs = get_inputs()
            if args.spiky:
                inputs = [spike(x, spikes) if isinstance(x, torch.Tensor) else x for x in inputs]
            inputs = [to_device(x, device, precision) for x in inputs]
            model = original.to(device=device, dtype=precision)
            model_new = custom.to(device=device, dtype=precision)
            if args.solution_first:
                output_new = model_new(*inputs)
                torch.cuda.synchronize(device)
                output = model(*inputs)
            else:
                output = model(*inputs)
                torch.cuda.synchronize(device)
                if args.ref_to_host:
                    output = output.to("cpu", copy=True)   # the device buffer is freed here
                output_new = model_new(*inputs)
            torch.cuda.synchronize(device)
            if args.ref_to_host:
                output_new = output_new.to("cpu")
            problem_found = compare(output, output_new, args)
            if problem_found:
                return f"trial {trial} (seed {trial_seed}): {problem_found}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("problem")
    parser.add_argument("solution")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--tol", type=float, default=1e-2)
    parser.add_argument("--solution-first", action="store_true")
    parser.add_argument("--ref-to-host", action="store_true")
    parser.add_argument("--no-shape-check", action="store_true")
    parser.add_argument("--nan-wildcard", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--spiky", action="store_true")
    args = parser.parse_args(argv)
    try:
        why = evaluate(args)
    except Exception as e:       # KernelBench counts an exception in the solution as a failure
        traceback.print_exc()
        why = f"exception: {type(e).__name__}: {e}"
    print(f"FAIL: {why}" if why else f"PASS ({args.trials} trials)")
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main())
