"""The puzzles of tutorials/puzzles/: every stub fails its check and every solution passes, through the library
call `playground puzzle N` makes (check/puzzles.py); the command lists them, refuses an unknown number, and
writes nothing into the puzzle folder."""
import importlib.util

import pytest
from conftest import outcome

from playground.check import puzzles

PUZZLES = puzzles.all_puzzles()


def test_the_ladder_is_numbered_without_gaps_and_each_has_a_stub():
    assert [p.number for p in PUZZLES] == list(range(1, len(PUZZLES) + 1)) and len(PUZZLES) >= 16
    assert all(p.path.is_file() and p.path.parent == puzzles.PUZZLES_DIR for p in PUZZLES)
    assert all(p.statement and p.lessons for p in PUZZLES)
    # the lessons named are the tutorials' new numbering: 02 first kernel ... 12 flash attention
    assert {lesson for p in PUZZLES for lesson in p.lessons} <= {"02", "04", "06", "07", "08", "09", "10", "11", "12"}
    assert {p.name: p.lessons for p in PUZZLES if len(p.lessons) > 1} == \
        {"row_sum": ("06", "11"), "matmul_k_tail": ("09", "10"), "matmul_bias_relu": ("04", "09")}


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: f"{p.number:02d}_{p.name}")
def test_the_stub_and_its_solution_are_one_file_but_the_kernel_body(puzzle):
    stub, solution = puzzle.path.read_text(), puzzle.solution.read_text()
    head, tail = (lambda s: s[:s.index("@triton.jit")]), (lambda s: s[s.index("\n\n\n", s.index("@triton.jit")):])
    assert head(stub) == head(solution).replace(f"playground puzzle {puzzle.number} --solution\n",
                                                f"playground puzzle {puzzle.number}\n")
    assert tail(stub) == tail(solution)          # the reference, the spec and its cases: the same
    assert stub != solution


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: f"{p.number:02d}_{p.name}")
def test_the_stub_fails_and_the_solution_passes(puzzle):
    _, stub = puzzles.check(puzzle.number)
    assert not stub.ok and stub.exit_code == 1
    plain = [r for r in stub.results if r.kind == "values" and r.variant == "randn"]
    assert plain and all(r.status == "fail" for r in plain)              # a mismatch, not a crash
    assert all(any(not o.ok for o in r.outputs) for r in plain)      # its values: the table or the margin rule
    assert stub.sanitizers == "memcheck, racecheck and initcheck watched every run"
    _, solved = puzzles.check(puzzle.number, solution=True)
    assert solved.ok and solved.exit_code == 0, "\n".join(r.summary() for r in solved.results if not r.ok)
    assert solved.counts().get("pass", 0) >= 3 and set(solved.counts()) <= {"pass", "skip"}
    assert all(o.mismatches == 0 and o.total > 0 for r in solved.results for o in r.outputs)
    assert [r.case for r in solved.results if r.variant == "randn" and r.kind == "values"] == \
        [r.case for r in plain]                                          # the same quick cases as the stub's


def test_the_dropout_reference_is_tl_rand_itself():
    """The reference's Philox numbers are Triton's: the solution's mask passes exactly (above); here, they are
    uniform in [0, 1) and keep about 1 - p of the elements."""
    spec = importlib.util.spec_from_file_location("dropout_solution", puzzles.find(11).solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    u = module.uniform(1234, 100000)
    assert 0.0 <= float(u.min()) and float(u.max()) < 1.0
    assert abs(float((u > module.P).double().mean()) - (1 - module.P)) < 0.005
    assert not bool((module.uniform(1234, 64) == module.uniform(1235, 64)).all())   # the seed matters


def test_the_command_lists_the_ladder():
    code, out, err = outcome("puzzle")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].split() == ["#", "puzzle", "what", "the", "kernel", "computes", "prepares", "lesson"]
    rows = lines[1:1 + len(PUZZLES)]
    assert [row.split()[:2] for row in rows] == [[f"{p.number:02d}", p.name] for p in PUZZLES]
    assert rows[0].startswith("01  copy") and rows[13].endswith("09, 10")
    assert lines[-1] == "check one with `playground puzzle N`; solutions are in tutorials/puzzles/solutions/"


@pytest.mark.parametrize("number, message", [
    ("99", "error: puzzle 99: there is no such puzzle; there are puzzles 1 to 16 (`playground puzzle` lists them)"),
    ("x", "error: puzzle 'x': give its number; there are puzzles 1 to 16 (`playground puzzle` lists them)")])
def test_an_unknown_puzzle_is_bad_input(number, message):
    code, out, err = outcome("puzzle", number)
    assert (code, out, err.strip()) == (2, "", message)


def _folder():
    """Every file under tutorials/puzzles/ but Python's bytecode cache: its bytes and modification time."""
    return {str(p.relative_to(puzzles.PUZZLES_DIR)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(puzzles.PUZZLES_DIR.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def test_the_command_checks_in_place_and_writes_nothing_there():
    before = _folder()
    code, out, _ = outcome("puzzle", "2")
    assert code == 1
    assert out.splitlines()[-1].startswith("puzzle 2 (add_scalar): not solved yet, 7 of 7 runs fail (first: "
                                           "02_add_scalar [N=1] fp32); edit tutorials/puzzles/02_add_scalar.py")
    assert "never written" in out and "memcheck, racecheck and initcheck watched every run" in out
    code, out, _ = outcome("puzzle", "02", "--solution")
    assert code == 0 and out.splitlines()[-1] == "puzzle 2 (add_scalar, the solution): solved, 7 of 7 runs pass"
    assert _folder() == before


def _compiled(puzzle, solution: bool):
    from playground.artefact.request import Request
    from playground.core import registry
    return Request.of(registry.load(str(puzzle.file(solution))), "sm_90").compile()


def test_a_stub_and_a_solution_compile_for_a_gpu():
    """The quick form of the slow test below: the files are real kernels for a GPU too, not only the interpreter."""
    stub = _compiled(puzzles.find(1), solution=False).stage("ptx")
    assert ".target sm_90" in stub and "st.global" not in stub           # the stub writes nothing
    matmul = _compiled(puzzles.find(14), solution=True).stage("ptx")
    # tl.dot on tensor cores: Hopper's wgmma takes 64 rows per warp group, so a 32-row tile gets mma.sync
    assert matmul.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4 and "wgmma" not in matmul


@pytest.mark.slow
@pytest.mark.parametrize("solution", [False, True], ids=["stub", "solution"])
@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: f"{p.number:02d}_{p.name}")
def test_every_file_compiles_for_a_gpu(puzzle, solution):
    assert ".target sm_90" in _compiled(puzzle, solution).stage("ptx")


@pytest.mark.slow
@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: f"{p.number:02d}_{p.name}")
def test_every_solution_passes_every_case(puzzle):
    """The quick form is test_the_stub_fails_and_the_solution_passes: the quick cases alone."""
    _, report = puzzles.check(puzzle.number, solution=True, full=True)
    assert report.ok, "\n".join(r.summary() for r in report.results if not r.ok)
    assert len(report.results) > len(puzzles.check(puzzle.number, solution=True)[1].results)
