"""A naive correctness harness, as KernelBench's and the leaderboards' harnesses have been written: both models in
this one process, one fixed seed, the reference's output compared with torch.allclose. It exists to show what
`playground check` catches and this does not (tests/test_kb_guards.py). Run it on the virtual GPU:

    playground run tests/data/kb_guards/naive_harness.py --target sm_90 PROBLEM.py SOLUTION.py [options]

Options: --ref-second (the reference runs after the solution, on the same inputs: KernelBench PR 82's order),
--any-diff (pass unless `((out - ref).abs() > tol).any()`, which NaN never makes true: pygpubench PR 7),
--to-float (both outputs cast to float32 before comparing, as harnesses that accept any float dtype do).
Modelled on KernelBench's src/eval.py (ScalingIntelligence/KernelBench, MIT licence): same seed for both models
and the inputs, a shape check, allclose with atol = rtol = 1e-2, a few trials; written in our own words.
"""
import importlib.util
import sys

import torch

ATOL = RTOL = 1e-2
TRIALS = 2
SEED = 42


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    problem_path, solution_path, *flags = argv
    problem = load(problem_path, "naive_problem")
    solution = load(solution_path, "naive_solution")
    init = problem.get_init_inputs()
    torch.manual_seed(SEED)
    reference = problem.Model(*init).cuda()
    torch.manual_seed(SEED)
    candidate = solution.ModelNew(*init).cuda()
    for trial in range(TRIALS):
        torch.manual_seed(SEED)
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]
        with torch.no_grad():
            if "--ref-second" in flags:
                got = candidate(*inputs)
                want = reference(*inputs)
            else:
                want = reference(*inputs)
                torch.cuda.synchronize()
                del want                      # freed, as an eval loop frees it before the next step ...
                want = reference(*inputs)     # ... and computed again for the comparison
                got = candidate(*inputs)
        if "--to-float" in flags:
            got, want = got.float(), want.float()
        if got.shape != want.shape:
            print(f"FAIL trial {trial}: shape {tuple(got.shape)} != {tuple(want.shape)}")
            return 1
        if "--any-diff" in flags:
            bad = bool(((got - want).abs() > ATOL + RTOL * want.abs()).any())
        else:
            bad = not torch.allclose(got, want, atol=ATOL, rtol=RTOL)
        if bad:
            print(f"FAIL trial {trial}: outputs differ")
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
