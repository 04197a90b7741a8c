"""playground puzzle: the ladder of tutorials/puzzles/, listed, and one puzzle checked with the sanitizers."""
from __future__ import annotations

import click

from .common import debug, progress


@click.command("puzzle")
@click.argument("number", required=False, metavar="[N]")
@click.option("--solution", is_flag=True, help="Check the puzzle's solution (solutions/NN_name.py) instead.")
@click.option("--full", is_flag=True, help="Every case of the puzzle, not only its quick ones.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the random inputs.")
@click.pass_context
def command(ctx, number, solution, full, seed):
    """List the puzzles, or check puzzle N: your file in tutorials/puzzles/, edited in place.

    The check is `playground check FILE --quick` in Triton's interpreter, so memcheck, racecheck
    and initcheck watch every run; the last line says whether the puzzle is solved. Nothing is
    written: your file is only read. Exit status 1 while a run fails, 2 for an unknown N.

    \b
    playground puzzle                  the ladder, with what each puzzle teaches
    playground puzzle 3                check tutorials/puzzles/03_outer_sum.py
    playground puzzle 3 --solution     check tutorials/puzzles/solutions/03_outer_sum.py
    playground check ./my_copy.py --quick    a copy of a puzzle, anywhere
    """
    from .. import text
    from ..check import kernel_text as check_text
    from ..check import puzzles
    if number is None:
        rows = [[f"{p.number:02d}", p.name, p.statement, ", ".join(p.lessons)] for p in puzzles.all_puzzles()]
        click.echo("\n".join(text.table(["#", "puzzle", "what the kernel computes", "prepares lesson"], rows)))
        click.echo("check one with `playground puzzle N`; solutions are in tutorials/puzzles/solutions/")
        return
    with progress(True, "checking") as tick:
        puzzle, outcome = puzzles.check(number, solution=solution, full=full, seed=seed, progress=tick)
    click.echo("\n".join(check_text.lines(outcome, debug=debug(ctx))), color=True)   # rich chose the colours
    click.echo(puzzles.verdict(puzzle, outcome, solution))
    ctx.exit(outcome.exit_code)
