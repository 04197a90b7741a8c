"""text.table: rich's layout, one column per cell, the same as one cell per value."""
import io

import pytest
from rich.console import Console
from rich.table import Table

from playground import text

pytestmark = pytest.mark.compile


def cell_per_value(head, rows, align):
    grid = Table(box=None, pad_edge=False, padding=(0, 1), show_header=True, header_style="", highlight=False)
    for i, name in enumerate(head):
        grid.add_column(name, justify="right" if i < len(align) and align[i] == "r" else "left", no_wrap=True)
    for row in rows:
        grid.add_row(*row)
    out = io.StringIO()
    Console(file=out, width=100_000, color_system=None, highlight=False).print(grid)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_columns_as_cells_lay_out_as_a_cell_per_value():
    head = ["BM", "regs", "smem", "limiter", "modelled", "notes"]
    rows = [["64", "66", "72 KB", "registers,shared_memory", "161.2 us", ""],
            ["128", "122", "96 KB", "registers", "143.3 us", "spills"],
            ["256", "", "240 KB", "-", "-", "CANNOT LAUNCH: needs 240 KB"]]
    assert text.table(head, rows, "rrrrr") == cell_per_value(head, rows, "rrrrr")
    assert text.table(head, rows, "rrrrr")[1] == " 64    66   72 KB  registers,shared_memory  161.2 us"
    assert text.table(head, [], "r") == cell_per_value(head, [], "r")


def test_a_ragged_or_multi_line_row_is_refused():
    with pytest.raises(ValueError):
        text.table(["a", "b"], [["1"]])
    with pytest.raises(ValueError):
        text.table(["a"], [["two\nlines"]])
