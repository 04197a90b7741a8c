"""Issue 41's proof, the checker's side: every KernelBench-format problem of tests/data/kernelbench/ (its
MANIFEST.json lists correct solutions written differently, and one cheat or more per guard), each problem's
solutions checked in one call, as `check solutions/*.py --ref problem.py` does. Every correct solution passes and
every cheat fails with the guard that should fire. tests/test_kernelbench_naive.py shows a naive allclose harness,
after KernelBench's eval, passing the same cheats."""
import json
from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("torch")
from playground.check.code import judge  # noqa: E402

KB = Path(__file__).resolve().parent / "data" / "kernelbench"
MANIFEST = json.loads((KB / "MANIFEST.json").read_text())
# the default run's sample, one entry a guard (each solution is a process of a few seconds); -m slow runs them all
QUICK = {"online_softmax.py", "cheat_scale_zeros.py", "cheat_values_no_max.py", "welford_layernorm.py",
         "cheat_shapes_default_only.py", "cheat_nonfinite_nan.py", "cheat_inputs_zero_x.py",
         "cheat_reach_patch_allclose.py", "atomic_split_k.py", "masked_k_tail.py", "cheat_seeds_replay.py",
         "cheat_form_cpu_tensor.py", "cheat_memory_empty.py", "atomic_norm.py", "cheat_sanitizer_rw_race.py",
         "atomic_mse.py", "cheat_containment_fork_bomb.py", "cheat_work_pytorch_only.py"}


def groups(every: bool) -> dict:
    """(problem, check options) -> its entries."""
    out = defaultdict(list)
    for entry in MANIFEST:
        if every or Path(entry["solution"]).name in QUICK:
            out[(entry["problem"], json.dumps(entry.get("check", {})))].append(entry)
    return out


def test_every_guard_has_a_cheat_and_the_sample_keeps_one_of_each():
    cheats = [e for e in MANIFEST if not e["correct"]]
    named = {"scale", "seeds", "shapes", "values", "form", "nonfinite", "inputs", "memory", "work", "reach",
             "sanitizer", "containment"}
    assert {e["guard"] for e in cheats} == named
    assert {e["guard"] for e in cheats if Path(e["solution"]).name in QUICK} == named


@pytest.mark.parametrize("every", [pytest.param(True, marks=pytest.mark.slow), False], ids=["all", "sample"])
def test_check_passes_every_correct_solution_and_fails_every_cheat_with_its_guard(every):
    for (problem, options), entries in sorted(groups(every).items()):
        request = judge.Request(subject="", ref=str(KB / problem), quick=True, require_triton=True, timeout=300,
                                **json.loads(options))
        verdicts = judge.check_many(request, [str(KB / e["solution"]) for e in entries], jobs=2).verdicts
        for entry, verdict in zip(entries, verdicts):
            why = [f.message for f in verdict.findings] + [f"{c.label}: {c.note or ''} {c.guards}"
                                                           for c in verdict.cases if c.status != "pass"]
            if entry["correct"]:
                assert verdict.ok, (entry["solution"], why)
            else:
                assert not verdict.ok, entry["solution"]
                assert entry["guard"] in verdict.guards, (entry["solution"], verdict.guards, why)
    assert not (Path.home() / "playground_kernelbench_escape.txt").exists()     # the escaping cheat wrote nothing
