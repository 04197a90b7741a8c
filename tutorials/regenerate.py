"""Re-run every command in the tutorials and rewrite their output blocks from what really printed.

    python tutorials/regenerate.py                 # every lesson and solution
    python tutorials/regenerate.py 02 06           # lessons whose file name starts with 02 or 06
    python tutorials/regenerate.py --check         # change nothing; exit 1 if a block fails or is stale
    python tutorials/regenerate.py --gpu-only --save OUT.json
                                                   # on a GPU: run only the blocks that need one, keep
                                                   # their output in OUT.json (scripts/gpu_session.sh)

Run it with the project's virtual environment (its `bin/` goes first on PATH, as in the tests).
The same parser and runner serve tests/test_tutorials.py, so what the lessons show, what
the tests check and what a learner types are one thing.

The markup, after a ```bash or ```python block (each on its own line):

    <!-- expect: TEXT -->        the output must contain TEXT
    <!-- expect-re: REGEX -->    the output must match REGEX (re.search, multiline)
    <!-- expect-not: TEXT -->    the output must not contain TEXT
    <!-- exit: N -->             the exit status it must end with (default 0)
    <!-- skip: REASON -->        not run; a REASON naming "CUDA GPU" runs where one is present
    <!-- figures-of: triton X.Y --> the expectations pin figures of that Triton release's binaries
                                 (a pass count, a register peak): under another release the
                                 block must still run to its exit status, and its figures are
                                 not compared, as another compiler builds another binary
    <!-- exercise: mine.py start=PATH solution=PATH -->
                                 the learner's file: the harness runs the block with the
                                 solution in its place (it must pass) and with the starting
                                 file (it must not: an exercise whose start already passes
                                 teaches nothing)
    <!-- output: FILTER ... -->  the ```text block that follows is the output, trimmed by
                                 the filters, applied in the order written:
                                   from=REGEX  start at the first line matching
                                   to=REGEX    stop after the next line matching
                                   grep=REGEX  keep matching lines only
                                   lines=A-B,C-D  keep these (1-based, after the filters before)
                                   max=N       keep the first N lines
                                   width=N     cut longer lines to N characters
                                   only=REGEX  shorten the lines it matches to the matches

A block that needs a CUDA GPU shows output only as a GPU session recorded it: tutorials/recorded.json
holds each such block's output, keyed by its exact code, with the GPU, date and software it ran on
(scripts/gpu_intake.py adds a session's); its ```text block is that output, trimmed by the filters,
under a line that says where it was recorded. A block whose code changed has no record until a GPU
runs it again, and shows no output meanwhile.

The output shown has the repository's absolute path removed (paths read as relative to the
repository root, where the commands run), so the lessons read the same in any checkout.

Links written as [`quoted text`](../kernels/file.py#L42) are kept pointing at the line that
holds the quoted text: when a kernel file changes, regenerating moves the anchor.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

TUTORIALS = Path(__file__).resolve().parent
ROOT = TUTORIALS.parent
SOLUTIONS = TUTORIALS / "solutions"
GAP = "..."
TIMEOUT_S = 600

# Figures that differ from run to run for reasons that are not the lesson's: anything timed on this
# machine (compile times, check's time, --passes' wall times) and whether Triton's cache served a
# compile. Both sides are normalised before the staleness comparison, so no lesson test reads a clock.
VOLATILE = [
    (re.compile(r"compile(\s+)\d+ ms \((cache hit|compiled)\)"), r"compile\1N ms (cached or not)"),
    # check's time per input class, layout and config runs, and where its time went ("3.45 s; ...", "0.30 s (")
    (re.compile(r"(?<=[a-z ;)]) \d+\.\d\d s(?=[,;)]|$| \(| of| wall)", re.M), r" N s"),
    # compile --passes: wall times measured on this machine, per stage, per pass and in total
    (re.compile(r"^(  (?:source|ttir|ttgir|llir|ptx|cubin|amdgcn|hsaco|store))\s+\d+\.\d(?=  )", re.M), r"\1 N"),
    (re.compile(r"\d+\.\d ms in its MLIR passes"), "N ms in its MLIR passes"),
    (re.compile(r"^  total \d+\.\d ms$", re.M), "  total N ms"),
    (re.compile(r"^(\d+\s+make_\w+\s+\S+\s+\+\d+\s+-\d+\s+\d+)\s+(?:\d+\.\d|·)$", re.M), r"\1 N"),
]

RECORDED = TUTORIALS / "recorded.json"

_FENCE = re.compile(r"^```(\w*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*([a-z-]+)\s*:\s*(.*?)\s*-->\s*$")
_CODE_LINK = re.compile(r"\[`([^`]+)`\]\(([^)#\s]+)#L(\d+)(?:-L(\d+))?\)")
_ANY_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def lesson_files() -> list[Path]:
    return sorted(TUTORIALS.glob("*.md")) + sorted(SOLUTIONS.glob("*.md"))


@dataclass
class Block:
    path: Path
    lang: str                      # "bash" or "python"
    code: str
    line: int                      # 1-based line of the opening fence
    expect: list[str] = field(default_factory=list)
    expect_re: list[str] = field(default_factory=list)
    expect_not: list[str] = field(default_factory=list)
    exit: int = 0
    skip: str | None = None
    figures_of: str | None = None  # the Triton release ("3.9") whose binaries the expectations describe
    exercise: dict[str, str] = field(default_factory=dict)   # mine, start, solution
    output_filters: list[tuple[str, str]] | None = None
    output_span: tuple[int, int] | None = None   # 0-based [start, end) of the ```text block, fences included
    insert_at: int = 0                           # where a missing output block goes (0-based line index)

    @property
    def id(self) -> str:
        where = self.path.relative_to(TUTORIALS) if self.path.is_relative_to(TUTORIALS) else self.path.name
        return f"{where}:{self.line}"

    def committed_output(self) -> str | None:
        if self.output_span is None:
            return None
        lines = self.path.read_text().splitlines()
        start, end = self.output_span
        return "\n".join(lines[start + 1:end - 1])

    def command(self, role: str = "solution") -> str:
        """The code as the harness runs it: in an exercise, the learner's file replaced by `role`'s."""
        if not self.exercise:
            return self.code
        return re.sub(r"(\./)?" + re.escape(self.exercise["mine"]) + r"\b", self.exercise[role], self.code)

    def runs_here(self) -> bool:
        if self.skip is None:
            return True
        return self.needs_gpu and has_cuda_gpu()

    @property
    def needs_gpu(self) -> bool:
        return self.skip is not None and "CUDA GPU" in self.skip


@dataclass
class Result:
    exit: int
    output: str


def parse(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        lang, start = m.group(1), i
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise ValueError(f"{path}:{i + 1}: a ``` block that never closes")
        i = end + 1
        if lang not in ("bash", "python"):
            continue
        block = Block(path, lang, "\n".join(lines[start + 1:end]) + "\n", start + 1)
        j = i
        while j < len(lines) and (not lines[j].strip() or _DIRECTIVE.match(lines[j])):
            d = _DIRECTIVE.match(lines[j])
            if d:
                _apply(block, d.group(1), d.group(2), f"{path}:{j + 1}")
                block.insert_at = j + 1
            j += 1
        if block.output_filters is not None and j < len(lines) and lines[j].strip() == "```text":
            close = next((k for k in range(j + 1, len(lines)) if lines[k].strip() == "```"), None)
            if close is None:
                raise ValueError(f"{path}:{j + 1}: an output block that never closes")
            block.output_span = (j, close + 1)
            i = close + 1
        blocks.append(block)
    return blocks


def _apply(block: Block, key: str, value: str, where: str) -> None:
    if key == "expect":
        block.expect.append(value)
    elif key == "expect-re":
        re.compile(value)
        block.expect_re.append(value)
    elif key == "expect-not":
        block.expect_not.append(value)
    elif key == "exit":
        block.exit = int(value)
    elif key == "skip":
        if not value:
            raise ValueError(f"{where}: a skip needs its reason")
        block.skip = value
    elif key == "figures-of":
        m = re.fullmatch(r"triton (\d+\.\d+)", value)
        if not m:
            raise ValueError(f"{where}: figures-of names a release, as in 'triton 3.9'")
        block.figures_of = m.group(1)
    elif key == "exercise":
        mine, *pairs = value.split()
        block.exercise = {"mine": mine, **dict(p.partition("=")[::2] for p in pairs)}
        for role in ("start", "solution"):
            if role not in block.exercise:
                raise ValueError(f"{where}: an exercise names its {role}=PATH")
            if not (ROOT / block.exercise[role]).is_file():
                raise ValueError(f"{where}: exercise {role} {block.exercise[role]} does not exist")
    elif key == "output":
        block.output_filters = []
        for item in shlex.split(value):
            name, _, arg = item.partition("=")
            if name not in ("from", "to", "grep", "lines", "max", "width", "only"):
                raise ValueError(f"{where}: unknown output filter '{name}'")
            block.output_filters.append((name, arg))
    else:
        raise ValueError(f"{where}: unknown directive '{key}'")


def triton_release() -> str | None:
    """The installed Triton's major.minor, read from the package metadata of the Python that runs the blocks."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return ".".join(version("triton").split(".")[:2])
    except PackageNotFoundError:
        return None


def environment() -> dict:
    """The venv's bin first, no colours, a fixed width: what a learner's shell has, made repeatable."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb", PYTHONUNBUFFERED="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(block: Block, role: str = "solution") -> Result:
    code = block.command(role)
    argv = ["bash", "-e", "-c", code] if block.lang == "bash" else [sys.executable, "-c", code]
    try:
        p = subprocess.run(argv, cwd=ROOT, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Result(124, out + f"\n[timed out after {TIMEOUT_S} s]")
    return Result(p.returncode, p.stdout)


def problems(block: Block, result: Result) -> list[str]:
    """What is wrong with a block's real run: its exit status and each missing expectation."""
    found = []
    if result.exit != block.exit:
        found.append(f"exit status {result.exit}, expected {block.exit}")
    if block.figures_of and block.figures_of != triton_release():
        return found
    found += [f"output lacks {text!r}" for text in block.expect if text not in result.output]
    found += [f"output matches nothing for /{rx}/" for rx in block.expect_re
              if not re.search(rx, result.output, re.MULTILINE)]
    found += [f"output contains {text!r}" for text in block.expect_not if text in result.output]
    if block.output_filters and result.output.strip() and not trim(result.output, block.output_filters).strip():
        found.append("the output filters leave nothing to show")
    return found


def trim(output: str, filters: list[tuple[str, str]]) -> str:
    """Apply the output filters; mark dropped runs of lines with a gap line, except after grep."""
    output = output.replace(str(ROOT) + os.sep, "")
    rows = list(enumerate(line.rstrip() for line in output.rstrip("\n").splitlines()))
    grepped = False
    more = 0
    for name, arg in filters:
        if name == "from":
            start = next((k for k, (_, text) in enumerate(rows) if re.search(arg, text)), len(rows))
            rows = rows[start:]
        elif name == "to":
            stop = next((k for k, (_, text) in enumerate(rows) if k > 0 and re.search(arg, text)), len(rows) - 1)
            rows = rows[:stop + 1]
        elif name == "grep":
            rows = [r for r in rows if re.search(arg, r[1])]
            grepped = True
        elif name == "lines":
            keep = set()
            for part in arg.split(","):
                a, _, b = part.partition("-")
                keep.update(range(int(a), int(b or a) + 1))
            rows = [r for k, r in enumerate(rows, 1) if k in keep]
        elif name == "max":
            more += max(len(rows) - int(arg), 0)
            rows = rows[:int(arg)]
        elif name == "only":
            rows = [(k, _only(arg, text)) for k, text in rows]
        elif name == "width":
            n = int(arg)
            rows = [(k, text if len(text) <= n else text[:n - 4] + " " + GAP) for k, text in rows]
    out, previous = [], None
    for index, text in rows:
        if not grepped and previous is not None and index != previous + 1:
            out.append(GAP)
        out.append(text)
        previous = index
    if more:
        out.append(f"{GAP} ({more} more lines)")
    return "\n".join(out)


def _only(pattern: str, text: str) -> str:
    """The line cut to what `pattern` matches in it, with `...` where something was cut."""
    hits = list(re.finditer(pattern, text))
    if not hits:
        return text
    indent = text[:len(text) - len(text.lstrip())]
    body = f" {GAP} ".join(h.group(0).strip() for h in hits)
    head = "" if not text[:hits[0].start()].strip() else f"{GAP} "
    tail = "" if not text[hits[-1].end():].strip() else f" {GAP}"
    return indent + head + body + tail


def normalise(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


# ---- output a GPU session recorded --------------------------------------------------------------

def recorded(path: Path | None = None) -> dict[str, dict]:
    """The GPU blocks' recorded runs, by their exact code: {code: {lesson, gpu, date, software, exit, output}}."""
    path = path or RECORDED
    if not path.exists():
        return {}
    import json
    return {r["code"]: r for r in json.loads(path.read_text())["blocks"]}


def recorded_output(block: Block, record: dict) -> str:
    """The ```text block of a GPU block: where it was recorded, then its output trimmed by the block's filters."""
    where = f"# recorded on {record['gpu']}, {record['date']} ({record['software']})"
    return where + "\n" + trim(record["output"], block.output_filters or [])


def recorded_problems(block: Block, records: dict[str, dict]) -> list[str]:
    """What is wrong with a GPU block's output as the lesson shows it: output no session recorded, or not the
    recorded output as its filters trim it."""
    committed, record = block.committed_output(), records.get(block.code)
    if record is None:
        return [] if committed is None else [f"{block.id}: shows output that no GPU session recorded for this code"]
    if block.output_filters is None:
        return []
    if committed is None or normalise(committed) != normalise(recorded_output(block, record)):
        return [f"{block.id}: the output shown is not what a GPU session recorded (tutorials/recorded.json)"]
    return []


def recorded_edits(blocks: list[Block], records: dict[str, dict]) -> tuple[list, list, list[str]]:
    """For the GPU blocks among `blocks` (not run here): the output blocks to write from their records, the ones
    to remove (output no session recorded), and the problems each had."""
    replacements, removals, found = [], [], []
    for block in blocks:
        if not block.needs_gpu:
            continue
        problems_here = recorded_problems(block, records)
        found += problems_here
        if problems_here and block.code in records and block.output_filters is not None:
            replacements.append((block, recorded_output(block, records[block.code])))
        elif problems_here:
            removals.append(block)
    return replacements, removals, found


def apply_recorded(path: Path, records: dict[str, dict] | None = None) -> list[str]:
    """Show each GPU block of a lesson as tutorials/recorded.json has it, running nothing (scripts/gpu_intake.py);
    returns what changed."""
    replacements, removals, found = recorded_edits(parse(path), recorded() if records is None else records)
    write_outputs(path, replacements, removals)
    return found


def write_outputs(path: Path, replacements: list, removals: list) -> None:
    """Rewrite a lesson's output blocks: (block, text) to show, and blocks whose output block goes."""
    if not replacements and not removals:
        return
    lines = path.read_text().splitlines()
    edits = [(block, ["```text", *shown.splitlines(), "```"]) for block, shown in replacements]
    edits += [(block, []) for block in removals if block.output_span]
    for block, new in sorted(edits, key=lambda e: e[0].line, reverse=True):
        if block.output_span:
            start, end = block.output_span
            lines[start:end] = new
        else:
            lines[block.insert_at:block.insert_at] = new
    path.write_text("\n".join(lines) + "\n")


def run_gpu_blocks(files: list[Path], save: Path | None = None) -> list[dict]:
    """Run every block that needs a CUDA GPU (on one), as a GPU session does: each with its exit, output and the
    problems its expectations find, ready for tutorials/recorded.json; saved to `save` after each block, so that
    a session stopped on the way keeps the blocks that ran."""
    import json
    out = []
    for path in files:
        for block in parse(path):
            if not block.needs_gpu:
                continue
            result = run(block)
            found = problems(block, result)
            print(f"  {'FAIL' if found else 'ok':<4}  {block.id}  {block.code.strip().splitlines()[0][:80]}")
            for p in found:
                print(f"        {p}")
            out.append({"lesson": str(path.relative_to(TUTORIALS)), "line": block.line, "code": block.code,
                        "exit": result.exit, "output": result.output.replace(str(ROOT) + os.sep, ""),
                        "problems": found})
            if save is not None:
                tmp = save.with_name(save.name + ".tmp")
                tmp.write_text(json.dumps({"blocks": out}, indent=1) + "\n")
                os.replace(tmp, save)
    return out


def stale(block: Block, result: Result) -> bool:
    """Whether the output shown differs from what the command prints now.

    Lessons are generated on a machine with no GPU; where one is present, commands that use it
    (check, bench) print other things, so only expectations are checked there.
    """
    committed = block.committed_output()
    if committed is None or block.output_filters is None or has_cuda_gpu():
        return False
    return normalise(trim(result.output, block.output_filters)) != normalise(committed)


# ---- links ------------------------------------------------------------------------------------

@dataclass
class Link:
    path: Path          # the Markdown file
    line: int           # 1-based line in it
    target: str         # as written
    quote: str | None   # the inline-code link text, which the linked line must contain
    first: int | None
    last: int | None

    def file(self) -> Path:
        return (self.path.parent / self.target.split("#")[0]).resolve()


def _prose_lines(text: str):
    """(1-based number, line, masked) for each line outside fenced blocks.

    In `masked`, inline code is blanked (same length), so `kernel[grid](...)` in backticks is
    not taken for a link; the text of a link written [`like this`](...) is blanked too, and
    read back from the line itself.
    """
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            masked = re.sub(r"``.*?``|`[^`]*`", lambda m: " " * len(m.group(0)), line)
            yield n, line, masked


def links(path: Path) -> list[Link]:
    found = []
    for n, line, masked in _prose_lines(path.read_text()):
        for m in _ANY_LINK.finditer(masked):
            target = line[m.start(1):m.end(1)]
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            code = _CODE_LINK.match(line[m.start():m.end()])
            anchor = re.search(r"#L(\d+)(?:-L(\d+))?$", target)
            first = int(anchor.group(1)) if anchor else None
            last = int(anchor.group(2) or anchor.group(1)) if anchor else None
            found.append(Link(path, n, target, code.group(1) if code else None, first, last))
    return found


def link_problems(link: Link) -> list[str]:
    file = link.file()
    if link.first is None and file.is_dir():
        return []
    if not file.is_file():
        return [f"{link.target}: no such file"]
    if link.first is None:
        return []
    lines = file.read_text().splitlines()
    if not 1 <= link.first <= link.last <= len(lines):
        return [f"{link.target}: {file.name} has {len(lines)} lines"]
    if link.quote and not any(link.quote in lines[k - 1] for k in range(link.first, link.last + 1)):
        return [f"{link.target}: the linked lines do not contain `{link.quote}`"]
    return []


def fix_anchors(path: Path) -> list[str]:
    """Move each quoted link's anchor to the line that now holds its quote; report what cannot move."""
    text, notes = path.read_text(), []

    def move(m: re.Match) -> str:
        quote, target, first = m.group(1), m.group(2), int(m.group(3))
        last = int(m.group(4) or first)
        file = (path.parent / target).resolve()
        if not file.is_file():
            notes.append(f"{path.name}: {target} does not exist")
            return m.group(0)
        lines = file.read_text().splitlines()
        if any(quote in lines[k - 1] for k in range(first, min(last, len(lines)) + 1)):
            return m.group(0)
        hits = [k for k, line in enumerate(lines, 1) if quote in line]
        if not hits:
            notes.append(f"{path.name}: `{quote}` is no longer in {target}")
            return m.group(0)
        new = min(hits, key=lambda k: abs(k - first))
        span = f"#L{new}" + (f"-L{new + last - first}" if last != first else "")
        notes.append(f"{path.name}: `{quote}` moved to {target}{span}")
        return f"[`{quote}`]({target}{span})"

    lines = text.splitlines()
    for n, line, masked in _prose_lines(text):
        if _ANY_LINK.search(masked) and _CODE_LINK.search(line):
            lines[n - 1] = _CODE_LINK.sub(move, line)
    new_text = "\n".join(lines) + "\n"
    if new_text != text:
        path.write_text(new_text)
    return notes


# ---- the command --------------------------------------------------------------------------------

_GPU = None


def has_cuda_gpu() -> bool:
    global _GPU
    if _GPU is None:
        _GPU = os.path.exists("/dev/nvidiactl") and subprocess.run(
            [sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
            capture_output=True).returncode == 0
    return _GPU


def regenerate(path: Path, check_only: bool = False) -> list[str]:
    """Run a file's blocks; rewrite its output blocks (unless check_only). Returns the failures."""
    failures = []
    if not check_only:
        for note in fix_anchors(path):
            print(f"  link  {note}")
    blocks = parse(path)
    records = recorded()
    replacements, removals, found = recorded_edits([b for b in blocks if not b.runs_here()], records)
    if check_only:
        failures += found
    for block in blocks:
        if not block.runs_here():
            print(f"  skip  {block.id}: {block.skip}")
            continue
        result = run(block)
        found = problems(block, result)
        status = "FAIL" if found else "ok"
        print(f"  {status:<4}  {block.id}  {block.command().strip().splitlines()[0][:80]}")
        for p in found:
            failures.append(f"{block.id}: {p}")
            print(f"        {p}")
        if found:
            print("\n".join("        | " + line for line in result.output.splitlines()[-15:]))
        if block.exercise and not problems(block, run(block, "start")):
            failures.append(f"{block.id}: the exercise's starting file {block.exercise['start']} already passes")
            print(f"        {failures[-1]}")
        if block.output_filters is not None and not block.needs_gpu:   # a GPU block shows what a session recorded
            if check_only and stale(block, result):
                failures.append(f"{block.id}: the output shown is not what the command prints now")
            shown = trim(result.output, block.output_filters)
            committed = block.committed_output()
            # Same but for a compile time: keep the text, so that regenerating does not churn diffs.
            if committed is None or normalise(shown) != normalise(committed):
                replacements.append((block, shown))
    if not check_only:
        write_outputs(path, replacements, removals)
    for link in links(path):
        for p in link_problems(link):
            failures.append(f"{path.name}:{link.line}: {p}")
    return failures


def main(argv: list[str]) -> int:
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    check_only = "--check" in argv
    save = argv[argv.index("--save") + 1] if "--save" in argv and argv.index("--save") + 1 < len(argv) else None
    wanted = [a for a in argv if not a.startswith("--") and a != save]
    files = [p for p in lesson_files()
             if not wanted or any(p.name.startswith(w) or str(p).endswith(w) for w in wanted)]
    if "--gpu-only" in argv:
        if not has_cuda_gpu():
            print("error: --gpu-only runs the blocks that need a CUDA GPU, and torch sees none here", file=sys.stderr)
            return 2
        runs = run_gpu_blocks(files, Path(save) if save else None)
        failed = [r for r in runs if r["problems"]]
        print(f"\n{len(runs)} GPU block(s) run; {len(failed)} failed their expectations")
        return 1 if failed else 0
    failures = []
    for path in files:
        print(path.relative_to(ROOT))
        failures += regenerate(path, check_only)
    if failures:
        print(f"\n{len(failures)} problem(s):")
        print("\n".join("  " + f for f in failures))
        return 1
    print(f"\n{len(files)} file(s) {'checked' if check_only else 'regenerated'}; all blocks pass")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
