"""The tour on the stack a user has: a smoke suite of every command that runs torch or Triton, marked `stack`.

It runs in the full suite on the pinned pair (torch 2.13's CPU build, Triton 3.9), and CI runs it again, alone,
on torch 2.14.1's CUDA build with the Triton 3.8 it pins, on a machine with no GPU (scripts/test.sh's stack
stage): what `pip install torch` gives today. Each test runs the installed `playground` script, as a user types
it, and asserts what it printed. No test here compares a time.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "check_code"
PLAYGROUND = str(Path(sys.executable).parent / "playground")


def playground(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([PLAYGROUND, *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def _triton() -> str:
    import triton
    return triton.__version__


@pytest.mark.parametrize("kernel, target, stage", [("gemm", "sm_80", "sass"), ("gemm", "sm_90", "ptx"),
                                                   ("softmax", "gfx942", "amdgcn")])
def test_compile_prints_the_stage_under_its_header(kernel, target, stage):
    done = playground("compile", kernel, "--target", target, "--show", stage, "--no-color")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    header = dict(re.findall(r"^// (\w[\w ]*?)\s{2,}(.*)$", done.stdout, re.M))
    assert header["kernel"].startswith(f"{kernel} (") and header["target"].startswith(f"{target} (")
    assert int(re.match(r"(\d+)", header["registers"]).group(1)) > 0
    assert header["compile"].endswith(f"triton {_triton()}")
    assert "live regs" in header     # a profile, or the one line that says why there is none
    body = "\n".join(line for line in done.stdout.splitlines() if not line.startswith("//"))
    assert {"sass": "HMMA", "ptx": ".entry gemm_kernel", "amdgcn": "s_endpgm"}[stage] in body


def test_check_a_spec():
    done = playground("check", "vector_add", "--quick")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^\d+ passed$", done.stdout, re.M)


def test_check_a_function_against_an_expression():
    done = playground("check", f"{DATA}/rms.py:rms_norm", "--ref", "F.rms_norm(x, (300,), w, 1e-6)",
                      "--inputs", "x=fp32[8,300], w=fp32[300], eps=1e-6", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith("PASS")


def test_check_a_module_with_its_backward():
    done = playground("check", f"{DATA}/norms.py:CubeLayer", "--ref", "x ** 3", "--inputs", "x=fp32[4,200]",
                      "--backward", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().splitlines()[-1].startswith("PASS")


def test_check_catches_a_wrong_backward():
    done = playground("check", f"{DATA}/norms.py:CubeWrongBackward", "--ref", "x ** 3", "--inputs", "x=fp32[4,200]",
                      "--backward", "--quick")
    assert done.returncode == 1 and "backward" in done.stdout.rstrip().splitlines()[-1], done.stdout + done.stderr


def test_check_a_kernelbench_pair():
    kb = ROOT / "tutorials" / "kernelbench"
    done = playground("check", kb / "softmax_triton.py", "--ref", kb / "problem.py", "--set", "batch_size=4,dim=2053",
                      "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^PASS: (\d+) of \1 cases pass", done.stdout, re.M)


def test_run_a_script_written_for_a_gpu():
    done = playground("run", "examples/scripts/softmax_tutorial.py", "-t", "sm_80")
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"softmax_kernel", done.stdout) and "sync point" in done.stdout


def test_fuse_plans_a_line_of_pytorch():
    done = playground("fuse", "torch.relu(a @ b + 1)", "-s", "a=256x256,b=256x256", "--target", "sm_90")
    assert done.returncode == 0, done.stderr
    assert "library: cuBLAS GEMM" in done.stdout and "triton_poi_fused_add_relu_0" in done.stdout


def test_fuse_runs_its_plan_against_eager():
    done = playground("fuse", "torch.softmax(x, dim=-1)", "--shape", "x=64x512", "--run")
    assert done.returncode == 0, done.stderr
    assert re.search(r"against eager PyTorch in fp64: .*: correct", done.stdout)


def test_a_puzzle_and_its_solution():
    done = playground("puzzle", "1", "--solution")
    assert done.returncode == 0, done.stdout + done.stderr
    unsolved = playground("puzzle", "1")
    assert unsolved.returncode == 1 and "not solved yet" in unsolved.stdout


def test_the_stack_is_one_playground_supports():
    done = playground("--version")
    assert done.returncode == 0 and f"triton     {_triton()}" in done.stdout
    import torch
    assert torch.__version__.split("+")[0] in done.stdout
