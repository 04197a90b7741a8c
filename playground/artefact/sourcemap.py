"""Map each line of a compiled stage back to the line of Python that produced it.

line_info.py reads each stage's location records into chains of frames, innermost first. Code
inlined from Triton's own library (`tl.cdiv`, `tl.sum`, ...) belongs to the user's line that
called it, so a stage line is attributed to the innermost frame that is not inside the triton
package; interleave groups the stage's lines under those Python lines.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .line_info import Frame, locate


@dataclass
class SourceGroup:
    line: int | None               # Python line number in the kernel's file; None: no location
    python: str                    # that line's text
    stage_lines: list[str] = field(default_factory=list)


def attribute(frames: list[Frame], kernel_file: str) -> int | None:
    """The Python line a chain of frames belongs to: the innermost frame in user code."""
    for file, line in frames:
        if _is_library(file):
            continue
        if _same_file(file, kernel_file) and line > 0:
            return line
        return None   # user code in another file: not this kernel's line
    return None


def _is_library(file: str) -> bool:
    parts = Path(file).parts
    return "triton" in parts and ("language" in parts or "runtime" in parts or "compiler" in parts) \
        or file.startswith("<")


def _same_file(a: str, b: str) -> bool:
    return a == b or Path(a).name == Path(b).name and (not Path(a).is_absolute() or Path(a).resolve() == Path(b).resolve())


def interleave(stage: str, text: str, kernel_file: str, first_line: int, last_line: int,
               ptx: str | None = None) -> list[SourceGroup]:
    """Python lines first_line..last_line, each followed by the stage lines generated from it.

    Lines of the stage with no location (declarations, labels, directives) are gathered in a
    final group with `line=None`, so nothing is dropped. Triton files a kernel's prologue and its
    return (`tt.return`, `ret;`, `EXIT`) under the `def` line: what comes after the body in the
    stage is shown after the body, in a group of its own.
    """
    source = Path(kernel_file).read_text().splitlines()
    groups = {n: SourceGroup(n, source[n - 1] if n <= len(source) else "") for n in range(first_line, last_line + 1)}
    unplaced = SourceGroup(None, "")
    ending = SourceGroup(first_line, END_OF_KERNEL)
    located = locate(stage, text, ptx)
    recorded_as = _recorded_path(located, kernel_file)
    in_body = False
    for stage_line, frames in located:
        line = attribute(frames, recorded_as) if frames else None
        if line is not None and line not in groups:
            groups[line] = SourceGroup(line, source[line - 1] if 0 < line <= len(source) else "")
        in_body = in_body or (line is not None and line != first_line)
        target = unplaced if line is None else ending if line == first_line and in_body else groups[line]
        if stage_line.strip():
            target.stage_lines.append(stage_line)
    ordered = [groups[n] for n in sorted(groups)]
    return ordered + [g for g in (ending, unplaced) if g.stage_lines]


def mapped_lines(stage: str, text: str, kernel_file: str, ptx: str | None = None) -> list[tuple[str, int | None]]:
    """Each line of the stage as `locate` reads it (location records removed), with the Python line
    it belongs to by the same attribution `interleave` uses, or None. The web page colours by this."""
    located = locate(stage, text, ptx)
    recorded_as = _recorded_path(located, kernel_file)
    return [(stage_line, attribute(frames, recorded_as) if frames else None) for stage_line, frames in located]


END_OF_KERNEL = "# the kernel's end: its return, filed under the def line"


def _recorded_path(located, kernel_file: str) -> str:
    """The path under which the artefact knows the kernel's file.

    Triton's cache key covers a kernel's source text and first line, not its file's path, so a
    copy of a kernel file (a second checkout, a learner's `my_add.py`) is served the artefact
    compiled from the original, whose locations name the original's path. When the kernel's
    own path is absent and exactly one user file is named, that file is this kernel's source
    under another name: its text at those lines is the same, or the cache would have missed.
    """
    files = {f for _, frames in located for f, _ in frames if f and not _is_library(f)}
    if any(_same_file(f, kernel_file) for f in files) or len(files) != 1:
        return kernel_file
    return files.pop()


def kernel_lines(fn) -> tuple[str, int, int]:
    """(file, first line, last line) of a @triton.jit function's source, decorator excluded."""
    import inspect
    lines, start = inspect.getsourcelines(fn.fn)
    offset = next((i for i, l in enumerate(lines) if l.lstrip().startswith("def ")), 0)
    return fn.fn.__code__.co_filename, start + offset, start + len(lines) - 1
