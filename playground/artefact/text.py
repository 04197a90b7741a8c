"""Compiled artefacts as text, `lines(result)`: `inspect`'s reading of the code (a codeinspect.Report) and
`compile --passes`'s list of the passes (a passes.PassLog). Each one's words are still written beside what
they describe (codeinspect.lines, passes.text_lines); this module is the one name the commands call."""
from __future__ import annotations

from functools import singledispatch

from . import codeinspect, passes


@singledispatch
def lines(result, *args, **kwargs) -> list[str]:
    raise TypeError(f"no text for {type(result).__name__}")


lines.register(codeinspect.Report, codeinspect.lines)
lines.register(passes.PassLog, passes.text_lines)
