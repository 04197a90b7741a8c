"""Views of a Compiled drawn by a higher layer. A notebook shows a compiled kernel through `_repr_html_`; the
explorer's page (web/export.py) draws it, and the web package registers that here as it is imported, so the
compile layer never imports the web layer."""
from __future__ import annotations

from typing import Callable

_NOTEBOOK: list[Callable] = []


def register_notebook(render: Callable) -> None:
    _NOTEBOOK[:] = [render]


def notebook(compiled) -> str | None:
    """The HTML a notebook shows for `compiled`; None (the plain repr) when no view is registered."""
    return _NOTEBOOK[0](compiled) if _NOTEBOOK else None
