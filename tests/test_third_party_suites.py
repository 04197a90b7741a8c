"""Two real projects' own GPU tests, unchanged, on the virtual GPU: `playground run -m pytest` in the project's
folder, as its developers run them (issue 40, item 5).

The suites are those of Liger-Kernel 0.8.5 and cut-cross-entropy 25.1.1 as their source distributions ship them;
scripts/test.sh downloads and unpacks them (tests/third_party/suites.txt pins each by version and sha256). Each test
is a handful of the project's own cases, chosen small enough for the interpreter: every launch runs in Triton's
interpreter under memcheck and racecheck, and the project's own asserts judge the outputs. Without running the
kernels (--no-exec) the same tests fail: they are decided by what the kernels computed.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITES = ROOT / "tests" / "third_party" / "suites"

# (the unpacked sdist, its test file, the cases (-k), the kernels they launch)
CASES = {
    "liger-kernel": ("liger_kernel-0.8.5", "test/transformers/test_rms_norm.py",
                     "test_correctness and True-True-LlamaRMSNorm and "
                     "(dtype0-0.0001-1e-06-2-128-512 or dtype1-0.2-0.02-5-123-123)",
                     {"_rms_norm_forward_kernel", "_rms_norm_backward_kernel"}),
    # its log-sum-exp merges partial results under a spin lock: racecheck must take the lock for what it is
    "cut-cross-entropy": ("cut_cross_entropy-25.1.1", "tests/test_cce_lse.py",
                          "shape0-None-dtype0 or shape1-20.0-dtype2", {"_cce_lse_forward_kernel"}),
}


def suite_or_skip(folder: str) -> Path:
    where = SUITES / folder
    if not where.is_dir():
        pytest.skip(f"{folder} is not unpacked under tests/third_party/suites (scripts/test.sh downloads it)")
    return where


def run_tests(where: Path, test_file: str, cases: str, *options: str):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", "-t", "sm_90", "--json", *options, "-m",
                           "pytest", test_file, "-k", cases, "-p", "no:cacheprovider"],
                          cwd=where, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.parametrize("project", CASES)
def test_a_projects_own_gpu_tests_pass_on_the_virtual_gpu_with_every_launch_watched(project):
    folder, test_file, cases, kernels = CASES[project]
    where = suite_or_skip(folder)
    done = run_tests(where, test_file, cases)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 passed" in done.stderr                       # --json: pytest's own output goes to stderr
    trace = json.loads(done.stdout)
    assert trace["exit_code"] == 0 and trace["module"] == "pytest"
    launches = trace["launches"]
    tests = {launch["test"] for launch in launches}
    assert len(tests) == 2 and all(t.startswith(f"{test_file}::") for t in tests)
    assert {launch["kernel"] for launch in launches} == kernels
    for launch in launches:
        assert launch["executed"] and "error" not in launch, launch.get("error")
        assert "findings" not in launch, launch["findings"]          # no sanitizer finding on a correct project
        assert launch["modelled_seconds"] > 0


def test_the_same_tests_fail_when_the_kernels_do_not_run():
    folder, test_file, cases, _ = CASES["cut-cross-entropy"]
    done = run_tests(suite_or_skip(folder), test_file, cases, "--no-exec")
    assert "2 failed" in done.stderr, done.stderr[-3000:]
    assert done.returncode == 1 and json.loads(done.stdout)["exit_code"] == 1
