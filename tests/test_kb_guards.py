"""Issue 41's proof: KernelBench-format problems (tests/data/kb_guards/), correct solutions written differently
(online softmax, Welford layernorm, atomic split-K, masked K tails) and one cheat per guard, listed in
MANIFEST.json. A naive allclose harness (naive_harness.py, after KernelBench's eval) passes every cheat it can
run; `playground check SOLUTION.py --ref PROBLEM.py` fails each with the guard that should fire and passes every
correct solution. Each problem's solutions are checked in one call, as `check solutions/*.py --ref problem.py`."""
import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("torch")
from playground.virtual import session  # noqa: E402
from playground.virtual.judge import judge  # noqa: E402

KB = Path(__file__).resolve().parent / "data" / "kb_guards"
MANIFEST = json.loads((KB / "MANIFEST.json").read_text())
BY_PROBLEM = defaultdict(list)
for entry in MANIFEST:
    BY_PROBLEM[entry["problem"]].append(entry)
# the default run's sample (each solution is a process of a few seconds); -m slow runs every entry
QUICK = {"softmax/online.py", "softmax/zeros.py", "softmax/replay.py", "softmax/no_max.py", "softmax/mutate.py",
         "softmax/race.py", "softmax/patch_allclose.py", "softmax/escape_fork.py", "layernorm/welford.py",
         "layernorm/ignores_weights.py", "matmul/splitk_atomic.py", "matmul/masked_k.py"}
NAIVE_QUICK = {"softmax/zeros.py", "softmax/nan.py", "softmax/mutate.py"}


def test_the_manifest_has_a_cheat_for_every_guard_and_the_four_correct_solutions():
    guards = {e["guard"] for e in MANIFEST if not e["correct"]}
    assert guards == {"scale", "seeds", "shapes", "values", "form", "nonfinite", "inputs", "memory", "work",
                      "reach", "sanitizer", "containment", "tolerance"}
    assert sum(e["correct"] for e in MANIFEST) == 4


@pytest.mark.parametrize("every", [pytest.param(True, marks=pytest.mark.slow), False], ids=["all", "sample"])
def test_the_naive_harness_passes_every_cheat_it_can_run_and_the_correct_solutions(every):
    runnable = [e for e in MANIFEST if e["naive_passes"] is True and (every or e["solution"] in NAIVE_QUICK)]

    def naive(entry):
        run = session.run_script(str(KB / "naive_harness.py"), [str(KB / entry["problem"]), str(KB / entry["solution"]),
                                 *entry["naive_args"]], "sm_90", quiet_stdout=True)
        return entry["solution"], run.exit_code

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(pool.map(naive, runnable))
    assert results == {e["solution"]: 0 for e in runnable}


@pytest.mark.parametrize("every", [pytest.param(True, marks=pytest.mark.slow), False], ids=["all", "sample"])
@pytest.mark.parametrize("problem", sorted(BY_PROBLEM))
def test_check_passes_every_correct_solution_and_fails_every_cheat_with_its_guard(problem, every):
    entries = [e for e in BY_PROBLEM[problem] if every or e["solution"] in QUICK]
    request = judge.Request(subject="", ref=str(KB / problem), quick=True, require_triton=True, timeout=300)
    verdicts = judge.check_many(request, [str(KB / e["solution"]) for e in entries], jobs=2).verdicts
    for entry, verdict in zip(entries, verdicts):
        why = [f.message for f in verdict.findings] + [f"{c.label}: {c.note or ''} {c.guards}"
                                                       for c in verdict.cases if c.status != "pass"]
        if entry["correct"]:
            assert verdict.ok, (entry["solution"], why)
        else:
            assert not verdict.ok, entry["solution"]
            assert entry["guard"] in verdict.guards, (entry["solution"], verdict.guards, why)
    assert not Path("/var/tmp/playground-check-escaped.txt").exists()
