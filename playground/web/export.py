"""`compile --html FILE` and a notebook's view of a Compiled: the explorer with no server.

The same data (view.py) and script as `playground serve`, embedded in one file: the source pane is
read-only, every textual stage of the target is included, and a pane's stage picker offers them.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from . import page, view


def html(c, stages: list[str] | None = None) -> str:
    return page.static_page(view.view(c, stages or view.pane_stages(c.target)))


def notebook_html(c) -> str:
    return page.fragment({"mode": "static", "data": view.view(c, view.pane_stages(c.target))})


def write_html(c, file: str, stages: list[str] | None = None, force: bool = False) -> Path:
    """Write the page; an existing file is replaced only with `force` (nothing the user wrote is lost)."""
    path = Path(file)
    if path.exists() and not force:
        raise UserError(f"html {file}: exists; use `force` to replace it", param="html")
    if path.is_dir():
        raise UserError(f"html {file}: is a directory", param="html")
    from ..files import write_atomically
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, html(c, stages))
    except OSError as e:
        raise UserError(f"html {file}: cannot write: {e.strerror or e}", param="html") from None
    return path
