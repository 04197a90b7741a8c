"""scripts/gpu_session.sh: the prepared script a lent GPU runs. Its dry run here (every step's command parsed by
the CLI, the record format, the judging step on the fixture), and its runner with stand-in steps: a step that
fails or runs out of time does not stop the next, the budget is kept, JSON output lands where it should, and
one signal stops it all and keeps what ran."""
import csv
import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gpu_session", ROOT / "scripts" / "gpu_session.py")
session = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = session
_spec.loader.exec_module(session)


def test_the_dry_run_lists_every_step_checks_the_format_and_judges_the_fixture(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_session.sh"), str(out), "--dry-run"],
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, PYTHON=sys.executable))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert done.stdout.rstrip().endswith(f"== dry run passed: {len(session.STEPS)} steps listed, 0 problem(s)")
    manifest = json.loads((out / "session.json").read_text())
    assert manifest["dry_run"] is True and manifest["problems"] == []
    listed = [s["name"] for s in manifest["steps"]]
    assert listed == [s.name for s in session.STEPS] + ["judge (on the fixture)"]
    assert listed[:2] == ["sweep-gemm-4096", "measure-gemm-4096"]           # the timings first, in value order
    commands = {s["name"]: s["command"] for s in manifest["steps"]}
    assert commands["measure-gemm-16"] == (f"playground bench gemm --config all --shape M=16,N=4096,K=4096 --dtype fp16 "
                                           f"--record {out}/measured.csv --no-progress")
    # the judging step ran on the fixture and saved its figures as data
    judgement = json.loads((out / "judgement.json").read_text())
    [ordering] = judgement["orderings"]
    assert ordering["gpu"] == "NVIDIA L40S" and ordering["separated"] == 6 and judgement["groups"][0]["rows"] == 4
    # what comes back from the device tool: at most 8 plain files, in OUT itself
    assert len(session.FILES) <= session.MAX_FILES and sorted(p.name for p in out.iterdir()) == [
        "judgement.json", "session.json", "session.log"]


def test_the_dry_run_fails_on_a_command_the_cli_would_refuse_and_on_files_the_device_cannot_return(tmp_path,
                                                                                                  monkeypatch):
    bad = session.Step("measure-typo", ["{playground}", "bench", "gemm", "--config", "all", "--shapes", "M=16"], 30, "x")
    monkeypatch.setattr(session, "STEPS", session.STEPS + [bad])
    assert session.dry_run(tmp_path, sys.executable) == 1
    problems = json.loads((tmp_path / "session.json").read_text())["problems"]
    assert len(problems) == 1 and problems[0].startswith("measure-typo: No such option '--shapes'.")
    many = [session.Step(f"s{i}", ["{python}", "-c", "pass"], 1, "x", stdout_to=(f"f{i}.json", "k")) for i in range(3)]
    monkeypatch.setattr(session, "STEPS", session.STEPS + many + [
        session.Step("odd", ["{python}", "x", "{out}/a b.csv"], 1, "x")])
    found = session._check_files()
    assert any(p.startswith("11 files (") and p.endswith("the device tool brings back 8") for p in found)
    assert "a b.csv: not a plain file name" in found


def test_the_fixture_is_in_the_recorded_format_and_a_broken_one_is_caught(tmp_path, monkeypatch):
    assert session._check_fixture() == []
    rows = list(csv.DictReader(open(session.FIXTURE, newline="")))
    rows[1]["clocks"] = ""
    broken = tmp_path / "measured.csv"
    with open(broken, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setattr(session, "FIXTURE", broken)
    assert session._check_fixture() == ["measured.csv line 3: no clocks"]


def test_an_out_folder_with_files_is_refused_and_an_unknown_step_named(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    assert session.main([str(tmp_path)]) == 2 and (tmp_path / "mine.txt").read_text() == "keep me"
    assert session.main([str(tmp_path), "--only", "measure-gemm-99"]) == 2


# ---- the runner, with stand-in steps ----------------------------------------------------------------------

STAND_INS = r'''
import json, sys, time
sys.path.insert(0, sys.argv[2])
import gpu_session as s
py = sys.executable
s.RESERVE_S, s.MIN_STEP_S = 1, 5
s.STEPS = [
    s.Step("fails", ["{python}", "-c", "import sys; print('failing'); sys.exit(3)"], 20, "a step that fails"),
    s.Step("judge", ["{python}", "-c", "import time; time.sleep(1); print('judged')"], 20, "in the background",
           background=True, gpu=False),
    s.Step("keeps-json", ["{python}", "-c", "import json; print(json.dumps({'launches': 3}))"], 20, "JSON kept",
           stdout_to=("native.json", "run x.py")),
    s.Step("hangs", ["bash", "-c", "sleep 300 & echo $! > {out}/../child.pid; wait"], 3, "runs past its timeout"),
    s.Step("too-late", ["{python}", "-c", "pass"], 20, "no budget left for it"),
]
s.install_wheels = lambda session, python, env: None
s._environment = lambda session, python, env: {"cuda_available": True, "gpu": "Stand-in GPU"}
sys.exit(s.main([sys.argv[1], "--budget", sys.argv[3]]))
'''


def _stand_in_session(tmp_path, budget: str, **popen):
    script = tmp_path / "stand_ins.py"
    script.write_text(STAND_INS)
    out = tmp_path / "out"
    return out, subprocess.Popen([sys.executable, str(script), str(out), str(ROOT / "scripts"), budget],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_a_failing_or_hanging_step_does_not_stop_the_next_and_the_budget_is_kept(tmp_path):
    # budget 8 s, 1 kept back, 5 the least a step starts with: after the 3 s the hanging step takes, the last
    # step would have under 5 s, so it is not started
    out, proc = _stand_in_session(tmp_path, "8")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stdout + stderr
    steps = {s["name"]: s for s in json.loads((out / "session.json").read_text())["steps"]}
    assert steps["fails"]["status"] == "failed (exit 3)" and steps["fails"]["exit"] == 3
    assert steps["hangs"]["status"] == "timed out after 3 s"
    assert _gone(int((tmp_path / "child.pid").read_text())), "the hanging step's child outlived it"
    assert steps["keeps-json"]["status"] == "ok" and steps["keeps-json"]["output"] == "native.json: run x.py"
    assert json.loads((out / "native.json").read_text()) == {"run x.py": {"launches": 3}}
    assert steps["judge"]["status"] == "ok"                         # the background step, joined at the end
    assert steps["too-late"]["status"] == "not run: no time left"
    log = (out / "session.log").read_text()
    assert "failing" in log and "[judge] judged" in log and '{"launches": 3}' not in stdout
    assert "[judge] judged" not in stdout and "== judge: ok" in stdout      # a background step's lines: the log's


def test_one_signal_stops_the_step_and_its_children_and_keeps_the_manifest(tmp_path):
    out, proc = _stand_in_session(tmp_path, "400")
    pid_file = tmp_path / "child.pid"
    for _ in range(200):            # until the hanging step has started its child
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert _gone(int(pid_file.read_text()))
    manifest = json.loads((out / "session.json").read_text())
    assert manifest["stopped"] == "SIGTERM" and manifest["steps"][0]["name"] == "fails"
    assert f"== stopped by SIGTERM; what ran is saved in {out}" in stdout


def test_list_names_every_step_with_its_timeout(capsys):
    assert session.main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(session.STEPS) and lines[0].split()[:3] == ["sweep-gemm-4096", "45", "s"]


def test_the_steps_fit_the_device_and_ask_for_what_the_issue_lists():
    names = [s.name for s in session.STEPS]
    kernels = {s.argv[2] for s in session.STEPS if s.argv[:2] == ["{playground}", "bench"]}
    assert kernels == {"gemm", "softmax", "layernorm", "vector_add"}
    assert all("--record" in s.argv for s in session.STEPS if s.argv[:2] == ["{playground}", "bench"])
    assert names.index("judge") < names.index("pytest-gpu") < names.index("run-softmax-tutorial") < names.index("lessons")
    assert max(s.timeout_s for s in session.STEPS) < 600            # the device tool's limit for one command
    assert session.BUDGET_S <= 480                                  # the issue's 8 minutes
    sizes = next(s for s in session.STEPS if s.name == "measure-vector-add").argv
    assert "N=4096..268435456" in sizes                              # 2^12 to 2^28


def test_runner_waits_for_nothing_it_did_not_start():
    """The runner needs only the standard library: it starts before the wheels are installed."""
    done = subprocess.run([sys.executable, "-S", "-c", textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT / 'scripts')!r})
        import gpu_session
        assert not [m for m in sys.modules if m.split('.')[0] in ('playground', 'cli', 'torch', 'triton')]
        """)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
