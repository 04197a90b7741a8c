"""The cheats in tests/data/kernelbench/ beat a naive harness: KernelBench's own checks (naive_harness.py) pass
each one its manifest says they pass, on the virtual GPU, and every correct solution too, also at other sizes,
seeds and on spiky inputs. `check` is the one that must fail the cheats (issue 41, item 4).

Each pair runs as `playground run naive_harness.py PROBLEM SOLUTION`, in its own process (a cheat patches
torch or walks the harness's objects): two at a time, since a process's start is most of its cost."""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "kernelbench"
HARNESS = DATA / "naive_harness.py"
MANIFEST = json.loads((DATA / "MANIFEST.json").read_text())
GUARDS = {"scale", "seeds", "shapes", "values", "form", "nonfinite", "inputs", "memory", "work", "reach",
          "sanitizer", "containment"}

PASSING = [entry for entry in MANIFEST if entry["naive_passes"] is True]
CORRECT = [entry for entry in MANIFEST if entry["correct"]]
# correct solutions away from the defaults: what the cheats get wrong, these get right
ELSEWHERE = {
    "problems/softmax_long_row.py": ["--set", "batch_size=3", "--set", "dim=1000"],
    "problems/layernorm_affine.py": ["--set", "batch_size=5", "--set", "features=700"],
    "problems/matmul_k_tail.py": ["--set", "M=33", "--set", "K=130", "--set", "N=129"],
    "problems/frobenius_norm.py": ["--set", "dim2=7"],
    "problems/mse_loss.py": ["--set", "dim=301"],
}


def name_of(entry: dict) -> str:
    return Path(entry["solution"]).relative_to("solutions").with_suffix("").as_posix()


def harness_args(entry: dict, extra=()) -> tuple:
    return (str(DATA / entry["problem"]), str(DATA / entry["solution"]), *entry["naive_args"], *extra)


def naive(args: tuple) -> tuple[int, str]:
    """The naive harness on a virtual sm_90: (exit status, everything printed)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", str(HARNESS), "--target", "sm_90", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    return done.returncode, done.stdout + done.stderr


@cache
def verdicts(group: str) -> dict:
    """Every run of a group at once, two processes at a time, keyed by its arguments."""
    runs = {"passing": [harness_args(e) for e in PASSING],
            "elsewhere": [harness_args(e, ELSEWHERE[e["problem"]] + ["--spiky", "--seed", "7"]) for e in CORRECT]}
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(runs[group], pool.map(naive, runs[group])))


def test_the_manifest_names_files_that_exist_and_one_cheat_per_guard_at_least():
    for entry in MANIFEST:
        assert (DATA / entry["problem"]).is_file() and (DATA / entry["solution"]).is_file(), entry
        assert entry["correct"] == (entry["guard"] is None), entry
        assert entry["naive_passes"] in (True, False, "gpu-only", "not run (dangerous)"), entry
    assert {e["guard"] for e in MANIFEST if not e["correct"]} == GUARDS
    assert {e["guard"] for e in PASSING if not e["correct"]} == GUARDS - {"memory", "containment"}
    assert len([e for e in MANIFEST if e["guard"] == "containment"]) == 3


@pytest.mark.parametrize("entry", PASSING, ids=name_of)
def test_the_naive_harness_passes_it(entry):
    code, output = verdicts("passing")[harness_args(entry)]
    assert code == 0 and "PASS (3 trials)" in output, output[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("entry", CORRECT, ids=name_of)
def test_a_correct_solution_passes_at_other_sizes_on_spiky_inputs(entry):
    code, output = verdicts("elsewhere")[harness_args(entry, ELSEWHERE[entry["problem"]] +
                                                      ["--spiky", "--seed", "7"])]
    assert code == 0 and "PASS (3 trials)" in output, output[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("solution, extra", [
    ("softmax_long_row/cheat_scale_zeros", ["--spiky"]),
    ("softmax_long_row/cheat_values_no_max", ["--spiky"]),
    ("matmul_k_tail/cheat_seeds_replay", ["--seed", "7"]),
    ("layernorm_affine/cheat_shapes_default_only", ["--set", "batch_size=9"]),
])
def test_a_cheat_is_really_wrong_away_from_what_it_assumes(solution, extra):
    """Not a harness's test: the harness's own extras, to show the cheat above is wrong, not merely odd."""
    entry = next(e for e in MANIFEST if e["solution"] == f"solutions/{solution}.py")
    code, output = naive(harness_args(entry, extra))
    assert code == 1 and "FAIL" in output, output[-3000:]
