"""The tutorials cannot rot: every command block in them runs, on the CPU, and says what it said.

Each ```bash and ```python block in tutorials/*.md and tutorials/solutions/*.md is one test:
it must exit as the lesson says, contain every `<!-- expect: ... -->`, and, where the lesson
shows its output, print what is shown (after tutorials/regenerate.py's trimming). Exercise
blocks run on the solution (must pass) and on the starting file (must not). Links to kernel
lines must land on the text they quote. The parser and runner are regenerate.py's own.
"""
from __future__ import annotations

import importlib.util
import re
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tutorials_regenerate", ROOT / "tutorials" / "regenerate.py")
regen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = regen
_spec.loader.exec_module(regen)

LESSONS = sorted((ROOT / "tutorials").glob("[0-9][0-9]_*.md"))
BLOCKS = [b for path in regen.lesson_files() for b in regen.parse(path)]
LINKS = [link for path in regen.lesson_files() for link in regen.links(path)]


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block(block):
    if not block.runs_here():
        pytest.skip(block.skip)
    result = regen.run(block)
    found = regen.problems(block, result)
    assert not found, _explain(block, result, found)
    assert not regen.stale(block, result), (
        f"{block.id}: the output shown is not what the command prints now; "
        f"run `python tutorials/regenerate.py {block.path.name[:2]}`\n"
        f"--- shown\n{block.committed_output()}\n--- now\n"
        f"{regen.trim(result.output, block.output_filters)}")
    if block.exercise:
        start = regen.run(block, "start")
        assert regen.problems(block, start), (
            f"{block.id}: the exercise's starting file {block.exercise['start']} already passes the check; "
            "the exercise would teach nothing")


def _explain(block, result, found) -> str:
    tail = "\n".join(result.output.splitlines()[-30:])
    return f"{block.id}: {'; '.join(found)}\n$ {block.command().strip()}\n{tail}"


@pytest.mark.parametrize("link", LINKS, ids=[f"{l.path.name}:{l.line}:{l.target}" for l in LINKS])
def test_link(link):
    assert not regen.link_problems(link), f"{link.path.name}:{link.line}: {regen.link_problems(link)}"


# ---- the shape of a lesson ---------------------------------------------------------------------

@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_lesson_has_the_parts_a_learner_needs(path):
    text = path.read_text()
    assert "**What you will learn**" in text
    assert re.search(r"^## Exercise", text, re.MULTILINE), "every lesson ends with an exercise"
    assert "solutions/" in text, "the exercise links its solution"
    blocks = [b for b in BLOCKS if b.path == path]
    assert blocks, "a lesson without commands is a lecture"
    assert any(b.expect or b.expect_re or b.expect_not for b in blocks), "a lesson states what to look for"


def test_every_lesson_ends_with_an_exercise_the_tools_check_both_ways():
    """The last section is the exercise, and it holds a block run on the solution (must pass) and on the
    learner's starting file (must fail): test_block runs both."""
    for path in LESSONS:
        text = path.read_text()
        last_section = text[text.rindex("\n## "):]
        assert last_section.startswith("\n## Exercise"), f"{path.name}: the last section is not the exercise"
        checked = [b for b in BLOCKS if b.path == path and b.exercise and b.line > text[:text.rindex("\n## ")].count("\n")]
        assert checked, f"{path.name}: its exercise has no block the tools check (<!-- exercise: ... -->)"


def test_every_lesson_is_in_the_index():
    index = (ROOT / "tutorials" / "README.md").read_text()
    for path in LESSONS:
        assert f"]({path.name})" in index, f"{path.name} is missing from tutorials/README.md"


def test_the_lessons_link_previous_and_next_through_the_whole_course():
    """The last line of each lesson links its neighbours, under their own titles; none is left unreachable."""
    for i, path in enumerate(LESSONS):
        assert path.read_text().splitlines()[0].startswith(f"# {path.name[:2]} · "), f"{path.name}: title's number"
        last = path.read_text().rstrip().splitlines()[-1]
        want = []
        if i:
            want.append(f"Previous: [{_short_title(LESSONS[i - 1])}]({LESSONS[i - 1].name})")
        want.append(f"Next: [{_short_title(LESSONS[i + 1])}]({LESSONS[i + 1].name})" if i + 1 < len(LESSONS)
                    else "Next: [back to the course's index](README.md)")
        assert last == " · ".join(want), f"{path.name} ends with {last!r}"


def _short_title(path: Path) -> str:
    return path.read_text().splitlines()[0][2:].split(":")[0]


def test_a_lesson_number_in_the_prose_names_a_lesson_that_exists():
    """`lesson 13` must mean this course's lesson 13; Triton's own tutorials are named by their titles."""
    numbers = {p.name[:2] for p in LESSONS}
    for path in regen.lesson_files():
        text = path.read_text()
        for phrase in re.findall(r"\b[Ll]essons? \d\d(?:(?:, | and | to | or |–)\d\d)*", text):
            for n in re.findall(r"\d\d", phrase):
                assert n in numbers, f"{path.name}: {phrase!r}"
        assert not re.search(r"[Tt]utorial \d\d", text), f"{path.name}: 'tutorial NN' is ambiguous; name Triton's by title"


def test_skips_are_rare_and_say_why():
    skipped = [b for b in BLOCKS if b.skip]
    assert all(b.skip.strip() for b in skipped)
    assert len(skipped) <= max(3, len(BLOCKS) // 10), [b.id for b in skipped]


def test_commands_name_their_target():
    """`native` means "this machine's GPU": a lesson that relies on it shows other code elsewhere."""
    for b in BLOCKS:
        for line in b.code.splitlines():
            if re.search(r"playground (compile|grid|occupancy|inspect|diff|sweep)\b", line) \
                    and "--arch" not in line and "--help" not in line \
                    and ".json#" not in line:        # a captured launch (FILE.json#N) carries its own target
                assert "--target" in line or "target=" in line, f"{b.id}: `{line.strip()}` names no --target"


# ---- the harness itself: a checker that cannot fail checks nothing -----------------------------

def _doc(tmp_path, body: str) -> Path:
    path = tmp_path / "lesson.md"
    path.write_text(textwrap.dedent(body))
    return path


def test_harness_catches_a_missing_expectation_and_a_wrong_exit(tmp_path):
    path = _doc(tmp_path, """\
        ```bash
        echo hello
        ```
        <!-- expect: goodbye -->

        ```bash
        exit 3
        ```
        """)
    first, second = regen.parse(path)
    assert regen.problems(first, regen.run(first)) == ["output lacks 'goodbye'"]
    assert regen.problems(second, regen.run(second)) == ["exit status 3, expected 0"]


def test_figures_of_one_triton_release_are_compared_under_it_alone(tmp_path):
    installed = regen.triton_release()
    path = _doc(tmp_path, f"""\
        ```bash
        echo 73 MLIR passes
        ```
        <!-- figures-of: triton {installed} -->
        <!-- expect: 80 MLIR passes -->

        ```bash
        echo 73 MLIR passes; exit 3
        ```
        <!-- figures-of: triton 2.0 -->
        <!-- expect: 80 MLIR passes -->
        """)
    here, other = regen.parse(path)
    assert regen.problems(here, regen.run(here)) == ["output lacks '80 MLIR passes'"]
    # another release's binary: the exit status still counts, the figures do not
    assert regen.problems(other, regen.run(other)) == ["exit status 3, expected 0"]


def test_the_lessons_figures_are_of_the_triton_the_suite_installs():
    pinned = {b.figures_of for p in regen.lesson_files() for b in regen.parse(p) if b.figures_of}
    assert pinned == {"3.9"}
    if regen.triton_release() != "3.9":
        pytest.skip(f"Triton {regen.triton_release()} here: the lessons' figures are compared under 3.9 (.venv)")


def test_harness_runs_python_blocks_and_honours_exit_and_expect_not(tmp_path):
    path = _doc(tmp_path, """\
        ```python
        import sys
        print("spilled 8 bytes")
        sys.exit(1)
        ```
        <!-- exit: 1 -->
        <!-- expect-not: spilled -->
        """)
    (block,) = regen.parse(path)
    assert regen.problems(block, regen.run(block)) == ["output contains 'spilled'"]


def test_harness_notices_stale_output_and_rewrites_it(tmp_path):
    path = _doc(tmp_path, """\
        ```bash
        printf 'a\\nb\\nc\\nd\\n'
        ```
        <!-- output: lines=1,3-4 -->
        ```text
        typed by hand
        ```
        """)
    (block,) = regen.parse(path)
    result = regen.run(block)
    assert regen.trim(result.output, block.output_filters) == "a\n...\nc\nd"
    assert regen.has_cuda_gpu() or regen.stale(block, result)
    regen.regenerate(path)
    (block,) = regen.parse(path)
    assert block.committed_output() == "a\n...\nc\nd"
    assert not regen.stale(block, regen.run(block))


def test_times_measured_on_this_machine_never_decide_staleness():
    """Two runs of `compile --passes` differ in every wall time and nowhere else: a lesson showing one must not
    go stale on the other (under load in a fresh clone, they did)."""
    one = ("13  make_ttgir  convert-triton-to-tritongpu     +97      -65          131      2.2\n"
           "  stage      ms  what runs\n  ttir      5.5  MLIR passes    3.9 ms in its MLIR passes\n"
           "  llir    321.9  MLIR passes, then LLVM's optimisation pipeline  256.4 ms in its MLIR passes\n"
           "  cubin    83.5  ptxas\n  total 521.1 ms\ncompile     1 ms (cache hit)\ntime: randn 0.40 s")
    other = ("13  make_ttgir  convert-triton-to-tritongpu     +97      -65          131     12.9\n"
             "  stage      ms  what runs\n  ttir     14.8  MLIR passes    10.3 ms in its MLIR passes\n"
             "  llir   1392.4  MLIR passes, then LLVM's optimisation pipeline  1321.9 ms in its MLIR passes\n"
             "  cubin     3.5  ptxas\n  total 2521.1 ms\ncompile     210 ms (compiled)\ntime: randn 10.41 s")
    assert regen.normalise(one) == regen.normalise(other)
    assert regen.normalise(one) != regen.normalise(one.replace("+97", "+98"))     # what the passes did still counts


def test_no_lesson_shows_a_time_that_is_compared():
    """Every wall time a lesson shows from `compile --passes` is one the staleness check ignores."""
    timed = re.compile(r"\d\.\d ms in its|^  (?:source|ttir|ttgir|llir|ptx|cubin|amdgcn|hsaco|store)\s+\d+\.\d  |total \d+\.\d ms",
                       re.MULTILINE)
    shown = [(block, block.committed_output()) for block in BLOCKS if "--passes" in block.code]
    assert any(timed.search(text or "") for _, text in shown), "lesson 05 shows the stage times: this test reads them"
    for block, text in shown:
        assert not timed.search(regen.normalise(text or "")), f"{block.id}: measured times would be compared"


def test_trim_filters_in_order():
    out = "head\n  12  x = 1\n  mov a\n  add b\n  13  y = 2\n  mov c\ntail\n"
    assert regen.trim(out, [("from", r"^\s+12  "), ("to", r"^\s+\d+  ")]) == "  12  x = 1\n  mov a\n  add b\n  13  y = 2"
    assert regen.trim(out, [("grep", "mov")]) == "  mov a\n  mov c"
    assert regen.trim(out, [("grep", "mov"), ("max", "1")]) == "  mov a\n... (1 more lines)"
    assert regen.trim("abcdefghij\n", [("width", "8")]) == "abcd ..."
    assert regen.trim("  %1 = call asm \"wgmma.x.y {r1, r2}\"\n", [("only", r"wgmma[\w.]+")]) == \
        "  ... wgmma.x.y ..."


def test_link_check_catches_a_moved_line_and_fix_moves_it(tmp_path):
    (tmp_path / "k.py").write_text("a = 1\nb = tl.dot(x, y)\nc = 3\n")
    path = _doc(tmp_path, "See [`b = tl.dot(x, y)`](k.py#L3) and [gone](nope.py).\n")
    problems = [p for link in regen.links(path) for p in regen.link_problems(link)]
    assert problems == ["k.py#L3: the linked lines do not contain `b = tl.dot(x, y)`", "nope.py: no such file"]
    regen.fix_anchors(path)
    assert "(k.py#L2)" in path.read_text()


def test_exercise_blocks_run_on_the_solution_and_the_start(tmp_path):
    path = _doc(tmp_path, """\
        ```bash
        cat ./mine.py
        ```
        <!-- exercise: mine.py start=kernels/vector_add.py solution=tutorials/solutions/04_leaky_relu_matmul.py -->
        <!-- expect: tl.where -->
        """)
    (block,) = regen.parse(path)
    assert block.command() == "cat tutorials/solutions/04_leaky_relu_matmul.py\n"
    assert not regen.problems(block, regen.run(block))
    assert regen.problems(block, regen.run(block, "start")) == ["output lacks 'tl.where'"]


# ---- output a GPU session recorded --------------------------------------------------------------------

GPU_BLOCKS = [b for b in BLOCKS if b.needs_gpu]


@pytest.mark.parametrize("block", GPU_BLOCKS, ids=[b.id for b in GPU_BLOCKS])
def test_a_gpu_blocks_output_is_what_a_gpu_session_recorded(block):
    """A block that needs a CUDA GPU shows output only from tutorials/recorded.json, as its filters trim it."""
    assert not regen.recorded_problems(block, regen.recorded()), regen.recorded_problems(block, regen.recorded())


def test_gpu_blocks_run_as_written_on_a_gpu_and_show_their_output():
    """Every GPU block can run unattended on a GPU session (no command that waits for ever, no file that is not
    in the repository) and says what to look for and how much of its output to show."""
    assert len(GPU_BLOCKS) >= 5
    for block in GPU_BLOCKS:
        assert block.output_filters is not None, f"{block.id}: no <!-- output: --> to show a recorded run"
        assert block.expect or block.expect_re, f"{block.id}: nothing to check on the GPU"
        assert "-lms" not in block.code or block.code.startswith("timeout "), f"{block.id}: never ends"
        assert "my_script.py" not in block.code, f"{block.id}: names a file the repository lacks"


def test_harness_shows_recorded_output_and_refuses_output_typed_by_hand(tmp_path):
    path = _doc(tmp_path, """\
        ```bash
        nvidia-smi -L
        ```
        <!-- skip: needs a CUDA GPU -->
        <!-- output: max=1 -->
        ```text
        GPU 0: typed by hand
        ```
        """)
    (block,) = regen.parse(path)
    assert regen.recorded_problems(block, {}) == [f"{block.id}: shows output that no GPU session recorded for this code"]
    record = {"code": block.code, "gpu": "NVIDIA H100 80GB HBM3", "date": "2026-11-28", "exit": 0,
              "software": "triton 3.6.0; torch 2.11.0+cu130", "output": "GPU 0: NVIDIA H100 80GB HBM3\nGPU 1: other\n"}
    records = {block.code: record}
    assert regen.recorded_problems(block, records) == [
        f"{block.id}: the output shown is not what a GPU session recorded (tutorials/recorded.json)"]
    regen.apply_recorded(path, records)
    (block,) = regen.parse(path)
    assert block.committed_output() == ("# recorded on NVIDIA H100 80GB HBM3, 2026-11-28 (triton 3.6.0; torch 2.11.0+cu130)"
                                        "\nGPU 0: NVIDIA H100 80GB HBM3\n... (1 more lines)")
    assert regen.recorded_problems(block, records) == []
    regen.apply_recorded(path, {})          # the record gone (the code changed): the output goes with it
    (block,) = regen.parse(path)
    assert block.committed_output() is None and regen.recorded_problems(block, {}) == []
