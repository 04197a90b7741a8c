"""Plain text every package's output is made of: tables, colour, a config in words, a path and a time
as a person reads them. A leaf: it imports nothing from the library, so any layer may use it."""
from __future__ import annotations

from pathlib import Path


def short_path(path: str) -> str:
    """`path` relative to the working directory when it lies below it, else as it is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def microseconds(seconds: float) -> str:
    """A time in seconds as microseconds to four significant figures: "12.35 us"."""
    return f"{seconds * 1e6:.4g} us"


def varying(configs: list[dict]) -> list[str]:
    """The config keys that differ between configs (constant ones go in the title)."""
    keys = list(dict.fromkeys(k for c in configs for k in c))
    return [k for k in keys if len({repr(c.get(k)) for c in configs}) > 1] or keys


def config_words(config: dict) -> str:
    """{"BLOCK_SIZE": 1024, "num_warps": 4} -> "BLOCK_SIZE=1024, num_warps=4"."""
    return ", ".join(f"{k}={v}" for k, v in config.items())


def config_head(name: str) -> str:
    """BLOCK_SIZE_M -> BM, GROUP_SIZE_M -> GM, num_warps -> warps: a config key as a table header."""
    if name in ("num_warps", "num_stages"):
        return name.split("_")[1]
    parts = name.split("_")
    if len(parts) > 1 and parts[-1] and len(parts[-1]) <= 2:
        return parts[0][0] + parts[-1]
    return name


def table(head: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    """A plain-text table through rich: columns two spaces apart, `align` one letter per column
    (l or r; missing letters mean l), trailing spaces dropped. Cells are single lines of text.

    Each column goes to rich as one cell holding all its lines: the same layout as a cell per
    value (tests/test_report.py compares them), at a third of the cost, which a cached `sweep`
    notices.
    """
    import io

    from rich.console import Console
    from rich.table import Table
    if any(len(row) != len(head) or any("\n" in cell for cell in row) for row in rows):
        raise ValueError("table: every row needs one single-line cell per column")
    grid = Table(box=None, pad_edge=False, padding=(0, 1), show_header=True, header_style="", highlight=False)
    for i, name in enumerate(head):
        justify = "right" if i < len(align) and align[i] == "r" else "left"
        grid.add_column(name, justify=justify, no_wrap=True)
    if rows:
        grid.add_row(*("\n".join(column) for column in zip(*rows)))
    out = io.StringIO()
    Console(file=out, width=100_000, color_system=None, highlight=False, emoji=False, markup=False).print(grid)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def paint(text: str, style: str, color: bool) -> str:
    """`text` in a rich style ("bold", "red", "bold yellow") as terminal codes, or as it is without colour."""
    if not color or not text:
        return text
    import io

    from rich.console import Console
    from rich.text import Text
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard", width=100_000, highlight=False,
            emoji=False, markup=False).print(Text(text, style=style), end="")
    return out.getvalue()
