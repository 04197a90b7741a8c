"""The puzzles of tutorials/puzzles/: small kernels to write from a stub, each checked as `check` checks a kernel.

A puzzle is a kernel file in the KernelSpec form named NN_name.py, whose kernel body is a stub; its solution is
the file of the same name in solutions/. The module docstring is the statement: its first line is what the
listing shows, and its "Prepares lesson(s) ..." line names the lessons it leads to. Listing reads the files as
text (ast), so it imports nothing and runs no learner's code.

`check` runs the learner's file where it lies, as `playground check FILE --quick --interpreter` would: the quick
cases, the input classes, layouts and configs beyond them, in Triton's interpreter, so that the sanitizers
(memcheck, racecheck, initcheck) always watch. It reads the file and writes nothing: the learner's edits are
never copied, moved or overwritten (Python's own bytecode cache, __pycache__, aside).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..text import short_path

PUZZLES_DIR = Path(__file__).resolve().parents[2] / "tutorials" / "puzzles"
SOLUTIONS = "solutions"
_FILE = re.compile(r"^(\d\d)_(\w+)\.py$")
_PREPARES = re.compile(r"Prepares lessons? (\d\d(?:(?:, | and )\d\d)*)")   # read with the asides in brackets dropped


@dataclass(frozen=True)
class Puzzle:
    number: int
    name: str                   # "outer_sum", from the file's name
    path: Path                  # the learner's file: the stub, until they fill it in
    solution: Path
    statement: str              # the docstring's first line
    lessons: tuple[str, ...]    # the lessons it prepares, as numbered in tutorials/ ("06", "11")

    def file(self, solution: bool = False) -> Path:
        return self.solution if solution else self.path


def all_puzzles(folder: Path = PUZZLES_DIR) -> list[Puzzle]:
    """Every puzzle in `folder`, in order: the files NN_name.py of solutions/ (the learner's files may be
    edited, broken or gone; a solution is the puzzle's fixed record), each with the learner's file beside it."""
    folder = Path(folder)
    solutions = folder / SOLUTIONS
    if not solutions.is_dir():
        raise UserError(f"no puzzles at {short_path(str(folder))}: they ship in the repository's tutorials/puzzles/, "
                        f"not in an installed package")
    out = []
    for path in sorted(solutions.glob("[0-9][0-9]_*.py")):
        found = _FILE.match(path.name)
        if not found:
            continue
        statement, lessons = _statement(path)
        out.append(Puzzle(int(found.group(1)), found.group(2), folder / path.name, path, statement, lessons))
    return out


def _statement(path: Path) -> tuple[str, tuple[str, ...]]:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    prepares = _PREPARES.search(re.sub(r"\s*\([^)]*\)", "", " ".join(doc.split())))
    lessons = tuple(re.findall(r"\d\d", prepares.group(1))) if prepares else ()
    return first, lessons


def find(number, folder: Path = PUZZLES_DIR) -> Puzzle:
    """Puzzle `number` (3, "3" or "03"); UserError for a number no puzzle has."""
    puzzles = all_puzzles(folder)
    known = f"puzzles {puzzles[0].number} to {puzzles[-1].number}" if puzzles else "no puzzles"
    try:
        wanted = int(str(number))
    except ValueError:
        raise UserError(f"puzzle '{number}': give its number; there are {known} (`playground puzzle` lists "
                        f"them)") from None
    for puzzle in puzzles:
        if puzzle.number == wanted:
            return puzzle
    raise UserError(f"puzzle {number}: there is no such puzzle; there are {known} (`playground puzzle` lists them)")


def check(number, solution: bool = False, full: bool = False, seed: int = 0, folder: Path = PUZZLES_DIR,
          progress=None):
    """(the Puzzle, check's Report) for puzzle `number`'s file (its solution with `solution`): the quick cases,
    or all of them with `full`, every input class, layout and config, in the interpreter with the sanitizers.
    The Report's exit_code is 1 when any run fails."""
    from ..core import registry
    from . import kernel as correctness
    puzzle = find(number, folder)
    path = puzzle.file(solution)
    if not path.is_file():
        raise UserError(f"{short_path(str(path))} is missing: `git checkout {short_path(str(path))}` brings "
                        f"the stub back")
    spec = registry.load(str(path))
    report = correctness.run_check([spec], quick=not full, seed=seed, interpreter=True, progress=progress)
    return puzzle, report


def verdict(puzzle: Puzzle, report, solution: bool = False) -> str:
    """The last line `playground puzzle N` prints: solved or not, and what to do next."""
    what = f"puzzle {puzzle.number} ({puzzle.name}{', the solution' if solution else ''})"
    total = len(report.results)
    failing = [r for r in report.results if not r.ok]
    if not failing:
        return f"{what}: solved, {total} of {total} runs pass"
    again = f"playground puzzle {puzzle.number}" + (" --solution" if solution else "")
    return (f"{what}: not solved yet, {len(failing)} of {total} runs fail (first: {failing[0].label}); "
            f"edit {short_path(str(puzzle.file(solution)))} and run `{again}` again")
