"""Pass by pass: what every MLIR pass of Triton's pipeline did to one compile's IR.

Triton's pass managers print the module before each pass when MLIR_ENABLE_DUMP is set (its
`pm.enable_debug()`). A child process (passes_child.py) compiles the Request again with that on,
in a Triton cache of its own (a cache hit runs no pass, and the variable is part of Triton's cache
key), and files each dump under the stage function that ran it (make_ttir, make_ttgir, make_llir
on NVIDIA; AMD's have the same names). The module "after" a pass is the dump before the next one,
or, for a pipeline's last pass, the module as the pipeline left it.

What is not here: the software pipeliner's internal steps (printed without layout aliases, so a
diff against them is noise), and LLVM's own optimisation passes after the MLIR is translated to
LLVM IR (Triton does not print those; `--show llir` is their result).

Texts are compared as `diff` compares stages (normalise.py): locations dropped, value
numbers shown as #, so renumbering alone is no change. The child's TTGIR must equal the
Request's own, or the log is refused: it is the JIT's compile, seen from inside.
"""
from __future__ import annotations

import difflib
import gzip
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import UserError
from . import passes_child

# "Before NAME: ARG{OPTIONS} (SCOPE)" since MLIR 20 (Triton 3.9); "Before NAME (ARG) (SCOPE)" before it (3.6)
_HEADER = re.compile(r"^// -----// IR Dump Before (\S+?)(?:: ([\w.-]+)(\{.*\})?| \(([\w.-]+)\)) \((.*)\) //----- //\s*$")
_INTERNAL = re.compile(r"^// -----// .*IR Dump")
FORMAT = 3    # of the cached log; bump when the parse changes
# a line of MLIR's timing report: "   0.0094 ( 18.5%)  TritonGPURemoveLayoutConversions", nested entries indented more
_TIMED = re.compile(r"^\s*(-?\d+\.\d+) \(\s*-?[\d.]+%\)  (\s*)(.+?)\s*$")


@dataclass
class Pass:
    number: int         # 1-based, in the order the passes ran
    pipeline: str       # Triton's stage function that ran it: make_ttir, make_ttgir, make_llir
    name: str           # the pass's class: TritonGPUAccelerateMatmul
    argument: str       # its command-line name: tritongpu-accelerate-matmul
    options: str        # its options as MLIR prints them, or ""
    scope: str          # what it ran on: 'builtin.module' operation, a function
    before: str         # normalised module text
    after: str
    seconds: float | None = None   # its wall time in MLIR's timing report; None where the report files its
                                   # runs elsewhere (a nested pipeline's runs are one entry there)

    @cached_property
    def _counts(self) -> tuple[int, int]:
        added = removed = 0
        for line in difflib.unified_diff(self.before.splitlines(), self.after.splitlines(), lineterm="", n=0):
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                removed += 1
        return added, removed

    @property
    def added(self) -> int:
        return self._counts[0]

    @property
    def removed(self) -> int:
        return self._counts[1]

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self, context: int = 3) -> str:
        lines = difflib.unified_diff(self.before.splitlines(), self.after.splitlines(),
                                     f"before {self.argument}", f"after {self.argument}", lineterm="", n=context)
        return "\n".join(lines) + "\n"

    def summary(self) -> dict:
        return {"number": self.number, "pipeline": self.pipeline, "name": self.name, "argument": self.argument,
                "options": self.options, "scope": self.scope, "added": self.added, "removed": self.removed,
                "lines_after": len(self.after.splitlines()), "seconds": self.seconds}


@dataclass
class PassLog:
    kernel: str
    target: str
    passes: list[Pass]
    # wall seconds, measured on this machine in a compile of its own with IR printing off: each of Triton's
    # stages (CompileTimes: "source", ttir, ttgir, llir, ptx, cubin / amdgcn, hsaco, "store"), and the MLIR
    # passes of each pipeline by MLIR's timing report, [pipeline, pass name, seconds] in the order they ran
    stage_seconds: dict = field(default_factory=dict)
    timings: list = field(default_factory=list)

    def slowest(self) -> list[tuple[str, str, int, float]]:
        """(pipeline, pass name, runs, seconds) for every pass name of every pipeline, the slowest first: a pass
        that runs several times counts once with its runs summed."""
        totals: dict[tuple[str, str], list] = {}
        for pipeline, name, seconds in self.timings:
            entry = totals.setdefault((pipeline, name), [0, 0.0])
            entry[0] += 1
            entry[1] += seconds
        return sorted(((p, n, runs, t) for (p, n), (runs, t) in totals.items()), key=lambda row: (-row[3], row[0], row[1]))

    def pick(self, which: str) -> Pass:
        """A pass by its number, or by name or argument (the first that ran; `NAME#2` for the second)."""
        if which.isdigit():
            n = int(which)
            if not 1 <= n <= len(self.passes):
                raise UserError(f"show_pass {which}: passes are numbered 1..{len(self.passes)}", param="show_pass")
            return self.passes[n - 1]
        name, _, nth = which.partition("#")
        matches = [p for p in self.passes if name.lower() in (p.name.lower(), p.argument.lower())]
        if not matches:
            close = difflib.get_close_matches(name, sorted({p.argument for p in self.passes} | {p.name for p in self.passes}), 3)
            raise UserError(f"`show_pass` {which}: no such pass in this pipeline"
                            + (f"; did you mean {', '.join(close)}?" if close else "; see the list with `passes`"))
        index = int(nth) if nth.isdigit() else 1
        if not 1 <= index <= len(matches):
            raise UserError(f"show_pass {which}: {name} ran {len(matches)} times", param="show_pass")
        return matches[index - 1]

    def find(self, pattern: str) -> dict:
        """The first pass whose output matches `pattern` (a regular expression) where its input did not:
        {"pattern", "number", "argument", "lines"}; number None with lines when the frontend's IR
        already has it, and lines empty when nothing ever does."""
        try:
            regex = re.compile(pattern)
        except re.error as e:
            raise UserError(f"find {pattern!r}: not a regular expression: {e}", param="find") from None
        found = {"pattern": pattern, "number": None, "argument": None, "lines": []}
        if self.passes and regex.search(self.passes[0].before):
            found["lines"] = _matching(self.passes[0].before, regex)
            return found
        for p in self.passes:
            if regex.search(p.after) and not regex.search(p.before):
                return {**found, "number": p.number, "argument": p.argument, "lines": _matching(p.after, regex)}
        return found

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "target": self.target, "passes": [p.summary() for p in self.passes],
                "stage_seconds": self.stage_seconds,
                "slowest": [{"pipeline": p, "name": n, "runs": runs, "seconds": t} for p, n, runs, t in self.slowest()]}


def _matching(text: str, regex) -> list[str]:
    """The distinct lines of `text` that match, in order, at most 10."""
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if regex.search(line)))[:10]


def log(compiled, timeout: float | None = None) -> PassLog:
    """Every pass of the pipeline that built `compiled`, read from the cache when it was read before."""
    cached = _cache_file(compiled)
    try:
        with gzip.open(cached, "rt") as f:
            data = json.load(f)
        if data.get("format") == FORMAT:
            return _from_data(compiled, data)
    except (OSError, ValueError, EOFError):
        pass
    data = _dump(compiled, timeout)
    data["format"] = FORMAT
    try:
        tmp = cached.with_suffix(f".tmp{os.getpid()}")
        with gzip.open(tmp, "wt") as f:
            json.dump(data, f)
        os.replace(tmp, cached)
    except OSError:
        pass     # a read-only cache: the log is still right, only not kept
    return _from_data(compiled, data)


def _cache_file(compiled) -> Path:
    return compiled.cache_dir() / f"playground-passes-{compiled.hash[:16]}.json.gz"


def _from_data(compiled, data: dict) -> PassLog:
    passes = []
    for record in data["passes"]:
        passes.append(Pass(len(passes) + 1, record["pipeline"], record["name"], record["argument"],
                           record["options"], record["scope"], record["before"], record["after"],
                           record.get("seconds")))
    return PassLog(compiled.spec.name, compiled.target.label, passes, data.get("stage_seconds", {}),
                   data.get("timings", []))


def _dump(compiled, timeout: float | None) -> dict:
    """Run the child and read its stderr into passes: {"passes": [record, ...]}."""
    import subprocess
    import tempfile

    from .. import lifecycle
    with tempfile.TemporaryDirectory(prefix="playground-passes-") as tmp:
        err_path = os.path.join(tmp, "dump.txt")
        env = lifecycle.child_env(TRITON_CACHE_DIR=os.path.join(tmp, "cache"), MLIR_ENABLE_DUMP="1",
                                  MLIR_DUMP_PATH=None, TRITON_INTERPRET=None, MLIR_ENABLE_TIMING=None)
        with open(err_path, "w") as err:
            code, answer, _ = lifecycle.run_child("playground.artefact.passes_child",
                                                  {"request": compiled.request.ref(),
                                                   "timing_cache": os.path.join(tmp, "timed-cache")},
                                                  env=env, stderr=err, stdout=subprocess.DEVNULL)
        text = Path(err_path).read_text(errors="replace")
        text, _, timed = text.partition(passes_child.TIMING)
    if code != 0 or answer is None:
        tail = text.strip().splitlines()[-1:] or ["no output"]
        raise UserError(f"passes: the compile with MLIR's IR printing failed: {tail[0]}", param="passes")
    if _without_directories(answer["ttgir"]) != _without_directories(compiled.stage("ttgir")):
        raise UserError("passes: the compile with IR printing on built a different TTGIR from this request's; "
                        "its passes would not be this kernel's", param="passes")
    records = parse(text, answer["finals"])
    if not records:
        raise UserError("passes: Triton printed no pass (MLIR_ENABLE_DUMP had no effect on this Triton build)", param="passes")
    timings = parse_timing(timed)
    attach_times(records, timings)
    return {"passes": records, "timings": timings, "stage_seconds": answer.get("stage_seconds", {})}


def parse_timing(text: str) -> list[list]:
    """MLIR's timing reports (MLIR_ENABLE_TIMING) as [pipeline, pass name, seconds] in the order they ran, each
    report filed under the Triton stage function whose pass manager printed it. Analyses ("(A) ..."), nested
    pipelines' own rows ("'tt.func' Pipeline": their passes are listed under them) and Rest/Total are left out."""
    out, pipeline = [], None
    for line in text.splitlines():
        if line.startswith(passes_child.BEGIN):
            pipeline = line[len(passes_child.BEGIN):]
            continue
        m = _TIMED.match(line)
        if not m or pipeline is None:
            continue
        name = m.group(3)
        if name in ("Rest", "Total") or name.startswith("(A)") or name.endswith(" Pipeline"):
            continue
        out.append([pipeline, name, float(m.group(1))])
    return out


def attach_times(records: list[dict], timings: list[list]) -> None:
    """Give each pass of the dump its row of the timing report, aligned by name within its pipeline. A pass the
    dump prints once per run but the report sums into one row (the inliner's canonicalisation, run on every
    callee) gets the time once, on the first run that aligns; the others keep None."""
    by_pipeline: dict[str, list] = {}
    for pipeline, name, seconds in timings:
        by_pipeline.setdefault(pipeline, []).append((name, seconds))
    for pipeline, rows in by_pipeline.items():
        dumped = [r for r in records if r["pipeline"] == pipeline]
        matcher = difflib.SequenceMatcher(a=[r["name"] for r in dumped], b=[name for name, _ in rows], autojunk=False)
        for block in matcher.get_matching_blocks():
            for i in range(block.size):
                dumped[block.a + i]["seconds"] = rows[block.b + i][1]


def _without_directories(ir: str) -> str:
    """The IR with each location's file reduced to its name. Triton's cache key holds a kernel's source
    but not its path, so a cache hit may carry the locations of the same file compiled from another
    checkout, while the child, compiling afresh, writes this one's."""
    return _LOC_FILE.sub(r'loc("\1"', ir)


_LOC_FILE = re.compile(r'loc\("(?:[^"]*/)([^"/]*)"')


def parse(text: str, finals: dict[str, str]) -> list[dict]:
    """The dumps in the child's stderr as records with normalised before and after texts."""
    from .normalise import normalise
    pipelines: list[tuple[str, list[dict]]] = []
    current: dict | None = None
    body: list[str] = []

    def close():
        nonlocal current
        if current is not None and current is not _SKIP:
            current["before"] = normalise("\n".join(body), "ttgir")
            pipelines[-1][1].append(current)
        current = None
        body.clear()

    for line in text.splitlines():
        if line.startswith(passes_child.BEGIN):
            close()
            pipelines.append((line[len(passes_child.BEGIN):], []))
        elif line.startswith(passes_child.END):
            close()
        elif m := _HEADER.match(line):
            close()
            if pipelines:
                current = {"pipeline": pipelines[-1][0], "name": m.group(1), "argument": m.group(2) or m.group(4),
                           "options": (m.group(3) or "").strip("{} "), "scope": m.group(5)}
        elif _INTERNAL.match(line):
            close()
            current = _SKIP           # the pipeliner's internal steps: not a pass, printed differently
        elif current is not None:
            body.append(line)
    close()
    records = []
    for pipeline, dumps in pipelines:
        final = normalise(finals.get(pipeline, ""), "ttgir")
        for i, record in enumerate(dumps):
            record["after"] = dumps[i + 1]["before"] if i + 1 < len(dumps) else final
            records.append(record)
    return records


_SKIP: dict = {}


def expected_pass(log: PassLog, found: dict, name: str) -> str | None:
    """Why `name` is not the pass that introduced `found`'s pattern, or None when it is."""
    p = log.passes[found["number"] - 1] if found["number"] is not None else None
    if p is not None and name.lower() in (p.argument.lower(), p.name.lower()):
        return None
    known = {q.argument.lower() for q in log.passes} | {q.name.lower() for q in log.passes}
    unknown = "" if name.lower() in known else f" (and no pass of this pipeline is called {name})"
    actual = f"pass {p.number}, {p.argument}" if p else "no pass"
    return f"--expect-pass {name}: {found['pattern']!r} was introduced by {actual}, not {name}{unknown}"
