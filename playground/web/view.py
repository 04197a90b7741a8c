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
    return stages_of(target.backend)


def stages_of(backend: str) -> list[str]:
    """The stages a pane can show for a backend: every textual one but the Python source."""
    return [s for s in stage_table.textual(stage_table.for_backend(backend))
            if stage_table.STAGES[s].language != "python"]


def stage_menu() -> dict:
    """What the page offers before it has any data: each backend's first panes, and the stages `diff` compares
    (every textual one of either backend but the Python source: NVIDIA's first panes first, the default, then
    the rest in pipeline order)."""
    every = [s for backend in FIRST_PANES for s in stages_of(backend)]
    return {"first": {backend: list(panes) for backend, panes in FIRST_PANES.items()},
            "diffable": list(dict.fromkeys([*FIRST_PANES["cuda"], *sorted(every, key=list(stage_table.STAGES).index)]))}


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
        "target": c.target.label, "backend": c.target.backend,
        "config": {"num_warps": c.config.num_warps, "num_stages": c.config.num_stages, "meta": c.config.meta,
                   "shape": c.config.shape, "dtype": c.config.dtype},
        "dtypes": list(getattr(c.spec, "dtypes", None) or [c.config.dtype]),
        "source": source, "kernel_lines": [first, last],
        "header": (header := render.header_lines(c)), "figures": figures(c, header),
        "available_stages": pane_stages(c.target), "stages": {},
    }
    for stage in stages:
        data["stages"][stage] = stage_lines(c, stage, file)
    data["colors"] = _colors(data["stages"])
    data["live"], data["live_note"] = _live_by_python_line(c)
    return data


def _live_by_python_line(c) -> tuple[dict, str]:
    """{python line: [peak, at its last instruction]} of live registers, or why there is none."""
    from ..artefact import live_registers
    pressure = live_registers.pressure(c) if c.target.is_nvidia else None
    if pressure is None:
        return {}, live_registers.unavailable(c) or ""
    return ({str(p.line): [p.peak, p.last] for p in pressure.lines},
            f"live registers (nvdisasm's life ranges): peak {pressure.peak} of the {pressure.allocated} allocated")


def stage_lines(c, stage: str, kernel_file: str | None = None) -> dict:
    """{"lines": [[[cls, text], ...], ...], "map": [python line or None, ...]} for one stage."""
    kernel_file = kernel_file or sourcemap.kernel_lines(c.spec.kernel)[0]
    text = disasm.sass_with_line_info(c) if stage == "sass" else c.stage(stage)
    ptx = c.stage("ptx") if stage == "sass" else None
    mapped = sourcemap.mapped_lines(stage, text, kernel_file, ptx)
    mapped = [(line.rstrip(), py) for line, py in mapped if line.strip()]
    data = {"lines": tokens(stage, [line for line, _ in mapped]), "map": [py for _, py in mapped]}
    data |= _instruction_notes(c, stage, [line for line, _ in mapped])
    data["digest"] = hashlib.sha1(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:16]
    return data


def _instruction_notes(c, stage: str, lines: list[str]) -> dict:
    """What the page shows on hovering an instruction: its opcode's entry in the ISA tables ("ops" per line, the
    words once per opcode in "explained"), and for SASS its control codes ("control", an optional column) and
    the registers live at it ("live")."""
    from ..artefact import isa
    language = stage_table.STAGES[stage].language
    ops, explained = [], {}
    for line in lines:
        entry = isa.describe(language, line)
        ops.append(entry.key if entry else None)
        if entry:
            explained[entry.key] = f"{entry.does} ({entry.see})"
    out = {"ops": ops, "explained": explained} if explained else {}
    if stage == "sass":
        from ..artefact import control_codes, live_registers
        controls = control_codes.by_line(c.kernel.asm["cubin"], "\n".join(lines))
        out["control"] = [k.text() if k else None for k in controls]
        out["live"] = live_registers.by_line(c, lines)
    return out


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


def figures(c, header: list[str] | None = None) -> list[dict]:
    """The header's figures as the page's chips: name, value, and the header's full line as a tooltip.
    Values come from the binary's resources and the occupancy calculator, as the header's do."""
    from ..errors import UserError
    from ..figures import occupancy, occupancy_text
    from ..units import kib, pct
    titles: dict[str, str] = {}
    for line in header if header is not None else render.header_lines(c):
        if not line.startswith(" ") and len(line.split(None, 1)) == 2:   # indented lines continue a figure
            titles.setdefault(*[part.strip() for part in line.split(None, 1)])
    r = c.resources
    chips = [{"name": "registers", "value": str(r.registers) if c.target.is_nvidia else
              f"{r.vgprs} VGPR + {r.agprs} AGPR", "title": titles.get("registers", "")},
             {"name": "spills", "value": f"{r.spill_store_bytes + r.spill_load_bytes} B" if r.spills else "none",
              "title": titles.get("spills", "")},
             {"name": "shared", "value": kib(r.shared_total), "title": titles.get("shared", "").removeprefix("mem ").strip()}]
    try:
        occ = occupancy.of(c)
    except UserError as e:          # a GPU with no device table: say so rather than show nothing
        return chips + [{"name": "occupancy", "value": "not computed", "title": str(e)}]
    title = titles.get("occupancy", "")
    if not occ.launchable:
        return chips + [{"name": "occupancy", "value": "cannot launch", "title": occ.reason}]
    words = occupancy_text.LIMITER_WORDS[c.target.is_nvidia]
    chips += [{"name": "occupancy", "value": pct(occ.occupancy), "title": title},
              {"name": "limiter", "value": ", ".join(words[k] for k in occ.limiter), "title": title}]
    if occ.waves:
        chips.append({"name": "waves", "value": f"{occ.waves} wave{'s' if occ.waves != 1 else ''}",
                      "title": titles.get("waves", "")})
    if occ.hints:
        chips.append({"name": "what-if", "value": occ.hints[0], "title": " / ".join(occ.hints)})
    return chips
