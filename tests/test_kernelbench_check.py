"""Issue 41's proof: KernelBench-format problems (tests/data/kernelbench/), correct solutions written differently,
and one cheat per guard. tests/test_kernelbench_naive.py shows a naive allclose harness passing each cheat; here
`playground check SOLUTION.py --ref PROBLEM.py` fails each with the guard that should fire and passes every
correct one. Each problem's solutions are checked in one call, as `check solutions/*.py --ref problem.py` does."""
import json
from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("torch")
from playground.virtual.judge import judge, sandbox  # noqa: E402

KB = Path(__file__).resolve().parent / "data" / "kernelbench"
MANIFEST = json.loads((KB / "MANIFEST.json").read_text()) if (KB / "MANIFEST.json").is_file() else []
BY_PROBLEM = defaultdict(list)
for entry in MANIFEST:
    BY_PROBLEM[entry["problem"]].append(entry)


@pytest.mark.skipif(not MANIFEST, reason="no tests/data/kernelbench/MANIFEST.json")
@pytest.mark.parametrize("problem", sorted(BY_PROBLEM))
def test_every_correct_solution_passes_and_every_cheat_fails_with_its_guard(problem):
    entries = BY_PROBLEM[problem]
    if sandbox.shutil.which("bwrap") is None:     # the libc escapes need the kernel-enforced walls
        entries = [e for e in entries if e.get("guard") != "containment" or not e.get("needs_bwrap")]
    request = judge.Request(subject="", ref=str(KB / problem), quick=True, require_triton=True,
                            sets=entries[0].get("sets", {}), timeout=300)
    verdicts = judge.check_many(request, [str(KB / e["solution"]) for e in entries], jobs=2).verdicts
    for entry, verdict in zip(entries, verdicts):
        messages = [f.message for f in verdict.findings] + [f"{c.label}: {c.note or ''} {c.guards}"
                                                             for c in verdict.cases if c.status != "pass"]
        if entry["correct"]:
            assert verdict.ok, (entry["solution"], messages)
        else:
            assert not verdict.ok, entry["solution"]
            assert entry["guard"] in verdict.guards, (entry["solution"], verdict.guards, messages)
