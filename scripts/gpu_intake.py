"""Take a GPU session's folder in: its timings into the validation set, its lesson outputs into the lessons, its
manifest and judgement kept, and the model's standing on the whole set worked out again.

    python scripts/gpu_intake.py OUT              # what scripts/gpu_session.sh wrote (the device tool's files_at)
    python scripts/gpu_intake.py OUT --no-accuracy   # the same, without rerunning the model on the set
    python scripts/gpu_intake.py --accuracy       # only the model again, and benchmarks/data/README.md's figures

What it does, in order; nothing is written unless every check passes first:
1. OUT/session.json is a real session's (not a dry run) and names its GPU; every row of OUT/measured.csv is in
   the recorded format (playground.bench.record.check_row). Rows already in benchmarks/data/measured.csv are
   refused as duplicates (a session taken in twice adds nothing); the others are appended.
2. OUT/lessons.json: each GPU block that passed its expectations on the GPU, and whose code is still a lesson's,
   goes into tutorials/recorded.json (the GPU, the date and the software beside it); the lessons then show it
   (tutorials/regenerate.py's apply_recorded). A block that failed there is named, for the lesson to be mended.
3. The session's other files (session.json, session.log, judgement.json, sweeps.json, native.json) are kept in
   benchmarks/data/sessions/DATE-GPU/.
4. benchmarks/model_accuracy.py runs on the whole set, and the figures at the top of benchmarks/data/README.md
   are rewritten from its answer (every figure the model's, MODELLED against MEASURED).
Then commit what it changed (it says what).
"""
from __future__ import annotations

import csv
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.bench import record  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
MEASURED = DATA / "measured.csv"
SESSIONS = DATA / "sessions"
README = DATA / "README.md"
KEPT = ("session.json", "session.log", "judgement.json", "sweeps.json", "native.json")


class Refused(Exception):
    """The folder cannot be taken in; nothing was written."""


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def regenerate():
    return _module("tutorials_regenerate", ROOT / "tutorials" / "regenerate.py")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def accuracy():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    return _module("model_accuracy", ROOT / "benchmarks" / "model_accuracy.py")


def session_id(manifest: dict) -> str:
    """'2026-11-28-nvidia-h100-80gb-hbm3': the day the session started and its GPU."""
    gpu = re.sub(r"[^a-z0-9]+", "-", manifest["environment"]["gpu"].lower()).strip("-")
    return f"{manifest['started'][:10]}-{gpu}"


def read_session(out: Path) -> tuple[dict, list[dict]]:
    """The manifest and the recorded rows, checked; Refused says why not."""
    path = out / "session.json"
    if not path.exists():
        raise Refused(f"{out}: no session.json, so not a GPU session's folder (scripts/gpu_session.sh writes one)")
    manifest = json.loads(path.read_text())
    if manifest.get("dry_run"):
        raise Refused(f"{out}: a dry run's folder: it measured nothing")
    rows = []
    measured = out / "measured.csv"
    if measured.exists():
        with open(measured, newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != record.FIELDS:
                raise Refused(f"{measured}: its header is not the validation set's")
            rows = list(reader)
        problems = [f"line {i}: {p}" for i, row in enumerate(rows, 2) for p in record.check_row(row)]
        if problems:
            raise Refused(f"{measured}: not in the recorded format: {'; '.join(problems[:5])}")
    environment = manifest.setdefault("environment", {})
    if not environment.get("gpu"):          # the probe did not finish: the rows name the GPU they ran on
        named = {row["gpu"] for row in rows}
        if len(named) != 1:
            raise Refused(f"{out}: session.json names no GPU and its rows name {len(named)}")
        environment["gpu"] = named.pop()
    return manifest, rows


def new_rows(rows: list[dict]) -> tuple[list[dict], int]:
    """(the rows not yet in the validation set, how many were already there): a row's identity is all of it."""
    key = lambda row: tuple(row.get(k, "") for k in record.FIELDS)      # noqa: E731
    with open(MEASURED, newline="") as f:
        have = {key(row) for row in csv.DictReader(f)}
    fresh, seen = [], set()
    for row in rows:
        k = key(row)
        if k not in have and k not in seen:
            fresh.append(row)
            seen.add(k)
    return fresh, len(rows) - len(fresh)


def lesson_records(out: Path, manifest: dict, regen) -> tuple[list[dict], list[str]]:
    """(records for tutorials/recorded.json, what was left out and why) from OUT/lessons.json."""
    path = out / "lessons.json"
    if not path.exists():
        return [], ["no lessons.json: the lessons step did not run"]
    current = {b.code for p in regen.lesson_files() for b in regen.parse(p) if b.needs_gpu}
    env = manifest["environment"]
    kept, notes = [], []
    for block in json.loads(path.read_text())["blocks"]:
        where = f"{block['lesson']}:{block['line']}"
        if block["problems"]:
            notes.append(f"{where} failed on the GPU ({'; '.join(block['problems'])}): mend the lesson")
        elif block["code"] not in current:
            notes.append(f"{where}: the lesson's code has changed since the session ran it")
        else:
            kept.append({"code": block["code"], "lesson": block["lesson"], "gpu": env["gpu"],
                         "date": manifest["started"][:10], "software": env.get("software", ""),
                         "exit": block["exit"], "output": block["output"]})
    return kept, notes


def take_in(out: Path, rerun_accuracy: bool = True, regen=None) -> list[str]:
    """Take a session's folder in (the module docstring's steps); returns what changed, for the commit. `regen`:
    tutorials/regenerate.py as a module (the tests give one that reads other lessons)."""
    manifest, rows = read_session(out)
    regen = regen or regenerate()
    fresh, duplicates = new_rows(rows)
    lessons, lesson_notes = lesson_records(out, manifest, regen)
    folder = SESSIONS / session_id(manifest)
    if folder.exists() and not fresh:
        raise Refused(f"{out}: taken in already ({_rel(folder)} exists, and all {duplicates} of its "
                      f"rows are in the set)")
    changed = []
    if fresh:
        record.write(MEASURED, fresh)
        changed.append(f"{_rel(MEASURED)}: {len(fresh)} rows appended"
                       + (f", {duplicates} refused as duplicates" if duplicates else ""))
    elif rows:
        changed.append(f"{_rel(MEASURED)}: nothing appended; all {duplicates} rows were there already")
    folder.mkdir(parents=True, exist_ok=True)
    for name in KEPT:
        if (out / name).exists():
            shutil.copyfile(out / name, folder / name)
    changed.append(f"{_rel(folder)}/: {', '.join(n for n in KEPT if (out / n).exists())}")
    if lessons:
        records = regen.recorded()
        records.update({r["code"]: r for r in lessons})
        regen.RECORDED.write_text(json.dumps({"blocks": sorted(records.values(), key=lambda r: (r["lesson"], r["code"]))},
                                             indent=1) + "\n")
        changed.append(f"tutorials/recorded.json: {len(lessons)} GPU blocks recorded")
        for path in regen.lesson_files():
            if regen.apply_recorded(path):
                changed.append(f"{_rel(path)}: its GPU blocks show the recorded output")
    changed += [f"not recorded: {n}" for n in lesson_notes]
    if rerun_accuracy:
        changed.append(refresh_accuracy())
    return changed


def refresh_accuracy() -> str:
    """Run the model on the whole set; rewrite benchmarks/data/README.md's figures from its answer."""
    acc = accuracy()
    with open(MEASURED, newline="") as f:
        rows = list(csv.DictReader(f))
    groups, blocks, left_out = acc.judge(rows)
    data = acc.as_data(_rel(MEASURED), rows, groups, blocks, left_out)
    block = acc.readme_block(data, rows)
    text = README.read_text()
    if acc.README_BEGIN in text:
        head, rest = text.split(acc.README_BEGIN, 1)
        text = head + block + rest.split(acc.README_END, 1)[1]
    else:
        text = text.replace("README_BLOCK", block)
    README.write_text(text)
    return f"{_rel(README)}: the model's figures on {len(rows)} rows"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        if argv[0] == "--accuracy":
            changed = [refresh_accuracy()]
        else:
            changed = take_in(Path(argv[0]), rerun_accuracy="--no-accuracy" not in argv)
    except Refused as e:
        print(f"error: {e}; nothing was written", file=sys.stderr)
        return 2
    print("\n".join(changed))
    print("commit these (git add benchmarks/data tutorials) with what the session showed")
    return 0


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)      # `--help | head`: stop quietly, as a shell tool does
    sys.exit(main(sys.argv[1:]))
