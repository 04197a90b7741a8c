"""scripts/gpu_intake.py: a GPU session's folder taken in. Its rows are appended to the validation set (a row
already there is refused; a dry run's folder, or a row not in the recorded format, refuses the whole folder and
writes nothing); the lesson blocks that passed on the GPU are recorded and shown; the session's own files kept.
All on copies: the repository's files are not touched."""
import csv
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gpu_intake", ROOT / "scripts" / "gpu_intake.py")
intake = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = intake
_spec.loader.exec_module(intake)

from playground.bench import record  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "gpu_session" / "measured.csv"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """Copies of what the intake writes to: the validation set, the sessions folder, and lesson 09 with its record."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(intake.MEASURED, data / "measured.csv")
    monkeypatch.setattr(intake, "MEASURED", data / "measured.csv")
    monkeypatch.setattr(intake, "SESSIONS", data / "sessions")
    regen = intake.regenerate()
    lessons = tmp_path / "tutorials"
    lessons.mkdir()
    shutil.copyfile(ROOT / "tutorials" / "13_measuring.md", lessons / "13_measuring.md")
    monkeypatch.setattr(regen, "TUTORIALS", lessons)
    monkeypatch.setattr(regen, "SOLUTIONS", lessons / "solutions")
    monkeypatch.setattr(regen, "RECORDED", lessons / "recorded.json")
    return regen, data, lessons


def _session(tmp_path, regen, rows=None, dry_run=False) -> Path:
    """A session folder as gpu_session.sh leaves it: two lesson blocks passed, one failed."""
    out = tmp_path / "out"
    out.mkdir(parents=True)
    (out / "session.json").write_text(json.dumps({
        "format": "playground gpu session 1", "started": "2026-11-28T10:00:00+00:00", "dry_run": dry_run,
        "environment": {"gpu": "NVIDIA H100 80GB HBM3", "software": "triton 3.6.0; torch 2.11.0+cu130"},
        "steps": []}))
    (out / "session.log").write_text("== measure-gemm-2048: ok\n")
    rows = rows if rows is not None else list(csv.DictReader(open(FIXTURE, newline="")))[:2]
    record.write(out / "measured.csv", rows)
    gpu_blocks = [b for p in regen.lesson_files() for b in regen.parse(p) if b.needs_gpu]
    breakdown = next(b for b in gpu_blocks if "--breakdown" in b.code)
    smi = next(b for b in gpu_blocks if "nvidia-smi" in b.code)
    proton = next(b for b in gpu_blocks if "proton" in b.code)
    ran = lambda b, output, problems: {"lesson": "13_measuring.md", "line": b.line, "code": b.code,  # noqa: E731
                                       "exit": b.exit, "output": output, "problems": problems}
    (out / "lessons.json").write_text(json.dumps({"blocks": [
        ran(breakdown, "measured    vector_add on NVIDIA H100 80GB HBM3\nhost-to-device copy  1.2 ms\n", []),
        ran(smi, "clocks.current.sm [MHz], clocks.current.memory [MHz]\n1980 MHz, 2619 MHz\n", []),
        ran(proton, "Traceback: no module\n", ["output lacks 'softmax_kernel'"])]}))
    return out


def test_a_session_is_taken_in_rows_appended_lessons_shown_and_its_files_kept(tmp_path, project):
    regen, data, lessons = project
    out = _session(tmp_path, regen)
    before = (data / "measured.csv").read_text()
    changed = intake.take_in(out, rerun_accuracy=False, regen=regen)
    assert f"{data / 'measured.csv'}: 2 rows appended" in changed
    after = (data / "measured.csv").read_text()
    assert after.startswith(before) and len(after.splitlines()) == len(before.splitlines()) + 2
    kept = data / "sessions" / "2026-11-28-nvidia-h100-80gb-hbm3"
    assert sorted(p.name for p in kept.iterdir()) == ["session.json", "session.log"]
    # two blocks recorded and shown under the line that says where; the failed one named, not shown
    records = regen.recorded()
    assert len(records) == 2 and {r["gpu"] for r in records.values()} == {"NVIDIA H100 80GB HBM3"}
    assert any(c.startswith("not recorded: 13_measuring.md:") and "failed on the GPU (output lacks 'softmax_kernel')"
               in c for c in changed)
    blocks = {b.code: b for b in regen.parse(lessons / "13_measuring.md") if b.needs_gpu}
    shown = next(b for code, b in blocks.items() if "--breakdown" in code).committed_output()
    assert shown.startswith("# recorded on NVIDIA H100 80GB HBM3, 2026-11-28 (triton 3.6.0; torch 2.11.0+cu130)\n")
    assert "host-to-device copy  1.2 ms" in shown
    assert all(not regen.recorded_problems(b, records) for b in blocks.values())
    # the same folder again: every row a duplicate, the session kept already: refused, nothing written
    with pytest.raises(intake.Refused, match="taken in already"):
        intake.take_in(out, rerun_accuracy=False, regen=regen)
    assert (data / "measured.csv").read_text() == after


def test_a_dry_run_or_a_row_out_of_format_is_refused_and_nothing_written(tmp_path, project):
    regen, data, _ = project
    before = (data / "measured.csv").read_text()
    with pytest.raises(intake.Refused, match="a dry run's folder"):
        intake.take_in(_session(tmp_path / "a", regen, dry_run=True), rerun_accuracy=False, regen=regen)
    rows = list(csv.DictReader(open(FIXTURE, newline="")))[:2]
    rows[1]["clocks"] = ""
    with pytest.raises(intake.Refused, match=r"line 3: no clocks"):
        intake.take_in(_session(tmp_path / "b", regen, rows=rows), rerun_accuracy=False, regen=regen)
    assert (data / "measured.csv").read_text() == before and not (data / "sessions").exists()
    assert not regen.RECORDED.exists()


def test_a_row_already_in_the_set_is_refused_and_the_rest_appended(tmp_path, project):
    regen, data, _ = project
    rows = list(csv.DictReader(open(FIXTURE, newline="")))
    record.write(data / "measured.csv", rows[:1])
    changed = intake.take_in(_session(tmp_path, regen, rows=rows[:3]), rerun_accuracy=False, regen=regen)
    assert f"{data / 'measured.csv'}: 2 rows appended, 1 refused as duplicates" in changed


def test_the_readme_block_says_what_the_set_holds_and_where_the_model_stands():
    acc = intake.accuracy()
    rows = list(csv.DictReader(open(FIXTURE, newline="")))
    groups, blocks, left_out = acc.judge(rows)
    block = acc.readme_block(acc.as_data("fixture", rows, groups, blocks, left_out), rows)
    lines = block.splitlines()
    assert lines[0] == acc.README_BEGIN and lines[-1] == acc.README_END
    assert lines[1].startswith("- **rows:** 4: 0 published, 4 recorded by this project's GPU sessions")
    assert "(MODELLED vs MEASURED)" in lines[2] and "goals" in lines[2].lower()
    assert lines[3].startswith("- **config order,** gemm M=2048,N=2048,K=2048 fp16 on NVIDIA L40S (triton, recorded "
                               "2026-01-01 00:00 UTC): of 6 pairs")


def test_the_data_readme_shows_the_figures_for_the_rows_the_set_holds():
    """The generated block is in the README and counts the set as it is (the slow test compares every figure)."""
    acc = intake.accuracy()
    text = intake.README.read_text()
    assert acc.README_BEGIN in text and acc.README_END in text
    rows = list(csv.DictReader(open(intake.MEASURED, newline="")))
    recorded = sum(record.recorded(r) for r in rows)
    assert f"- **rows:** {len(rows)}: {len(rows) - recorded} published, {recorded} recorded" in text


@pytest.mark.slow      # the whole set modelled: 90 s with Triton's cache warm, 8 minutes cold
def test_the_data_readmes_figures_are_what_the_whole_set_gives():
    acc = intake.accuracy()
    rows = list(csv.DictReader(open(intake.MEASURED, newline="")))
    groups, blocks, left_out = acc.judge(rows)
    block = acc.readme_block(acc.as_data("measured.csv", rows, groups, blocks, left_out), rows)
    assert block in intake.README.read_text()
