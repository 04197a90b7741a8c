"""What the explorer page shows for one Compiled, as plain data: the served page, the static export
and a notebook's `_repr_html_` all draw this same dict with the same script (static/explorer.js).

Text travels as data, never as markup: each stage line is a list of (token class, text) pairs that
the script escapes into the page, so a `<script>` in a kernel's comment stays text. Each stage has a
digest of its lines and map: a page that already shows it is told "same" instead of sent it again.
The Python line of each stage line is `sourcemap.mapped_lines`, the attribution `--interleave` uses.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache

from ..artefact import disasm, sourcemap
from ..core import stages as stage_table
from ..report import render

# the stages the page can show: every textual one the target has, but the Python source (its own pane)
FIRST_PANES = {"cuda": ("ptx", "sass"), "hip": ("ttgir", "amdgcn")}


def pane_stages(target) -> list[str]:
    return [s for s in stage_table.textual(target.stages) if stage_table.STAGES[s].language != "python"]


def view(c, stages: list[str] | None = None, source: str | None = None, display_file: str | None = None) -> dict:
    """The page's data for `c`: source, header, figures and each stage's lines with their Python line.

    `source` is the text in the editor (the scratch copy's), `display_file` the name to show for it."""
    file, first, last = sourcemap.kernel_lines(c.spec.kernel)
    if source is None:
        with open(file, encoding="utf-8", errors="replace") as f:
            source = f.read()
    stages = stages or list(FIRST_PANES[c.target.backend])
    data = {
        "kernel": c.spec.name, "function": c.name, "file": display_file or file,
        "target": c.target.name, "backend": c.target.backend,
        "config": {"num_warps": c.config.num_warps, "num_stages": c.config.num_stages, "meta": c.config.meta,
                   "shape": c.config.shape, "dtype": c.config.dtype},
        "dtypes": list(getattr(c.spec, "dtypes", None) or [c.config.dtype]),
        "source": source, "kernel_lines": [first, last],
        "header": render.header_lines(c), "figures": figures(c),
        "available_stages": pane_stages(c.target), "stages": {},
    }
    for stage in stages:
        data["stages"][stage] = stage_lines(c, stage, file)
    data["colors"] = _colors(data["stages"])
    return data


def stage_lines(c, stage: str, kernel_file: str | None = None) -> dict:
    """{"lines": [[[cls, text], ...], ...], "map": [python line or None, ...]} for one stage."""
    kernel_file = kernel_file or sourcemap.kernel_lines(c.spec.kernel)[0]
    text = disasm.sass_with_line_info(c) if stage == "sass" else c.stage(stage)
    ptx = c.stage("ptx") if stage == "sass" else None
    mapped = sourcemap.mapped_lines(stage, text, kernel_file, ptx)
    mapped = [(line.rstrip(), py) for line, py in mapped if line.strip()]
    data = {"lines": tokens(stage, [line for line, _ in mapped]), "map": [py for _, py in mapped]}
    data["digest"] = hashlib.sha1(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:16]
    return data


def tokens(stage: str, lines: list[str]) -> list[list[list[str]]]:
    """Each line as (pygments short class, text) pairs; the lexer runs over the whole text at once."""
    from ..report.lexers import lexer_for
    lexer = lexer_for(stage)
    out: list[list[list[str]]] = [[]]
    if lexer is None:
        return [[["", line]] for line in lines]
    for ttype, value in lexer.get_tokens("\n".join(lines) + "\n"):
        cls = _short_class(ttype)
        cls = "" if cls == "w" else cls          # whitespace needs no span: fewer bytes, fewer nodes
        for i, part in enumerate(value.split("\n")):
            if i:
                out.append([])
            if not part:
                continue
            if out[-1] and out[-1][-1][0] == cls:     # a run of one class is one span
                out[-1][-1][1] += part
            else:
                out[-1].append([cls, part])
    return out[:len(lines)]


@lru_cache(maxsize=None)
def _short_class(ttype) -> str:
    from pygments.token import STANDARD_TYPES
    while ttype not in STANDARD_TYPES and ttype.parent is not None:
        ttype = ttype.parent
    return STANDARD_TYPES.get(ttype, "")


def _colors(stages: dict) -> dict:
    """One colour index per Python line that any pane maps to, in source order."""
    lines = sorted({py for s in stages.values() for py in s["map"] if py is not None})
    return {str(line): i for i, line in enumerate(lines)}


def figures(c) -> list[dict]:
    """The header's figures as the page's chips: name, value, and the full line as a tooltip."""
    header = render.header_lines(c)
    by_key: dict[str, str] = {}
    for line in header:
        key, _, value = line.partition(" ")
        if key and value.strip():
            by_key.setdefault(key, value.strip())
    r = c.resources
    chips = [{"name": "registers", "value": str(r.registers) if c.target.is_nvidia else
              f"{r.vgprs} VGPR + {r.agprs} AGPR", "title": by_key.get("registers", "")},
             {"name": "spills", "value": "none" if not r.spills else f"{r.spill_store_bytes} B",
              "title": by_key.get("spills", "")},
             {"name": "shared", "value": by_key.get("shared", "").removeprefix("mem").strip().split(" per ")[0],
              "title": by_key.get("shared", "").removeprefix("mem").strip()}]
    occupancy = by_key.get("occupancy", "")
    if occupancy:
        pct = occupancy[occupancy.find("(") + 1:occupancy.find(")")] if "(" in occupancy else occupancy
        limiter = occupancy.split("limited by ", 1)[1] if "limited by " in occupancy else ""
        chips.append({"name": "occupancy", "value": pct.split(",")[0], "title": occupancy})
        if limiter:
            chips.append({"name": "limiter", "value": limiter, "title": occupancy})
    if "waves" in by_key:
        waves = by_key["waves"]
        chips.append({"name": "waves", "value": waves.split(": ", 1)[-1].split(",")[0], "title": waves})
    if "what-if" in by_key:
        chips.append({"name": "what-if", "value": by_key["what-if"], "title": by_key["what-if"]})
    return chips
