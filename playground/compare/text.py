"""A comparison as text, `lines(comparison)`: which variant is which, what changed, the figures side by side,
then the stage diff (coloured when `color`); `show` writes one figure as the table and the page show it."""
from __future__ import annotations

from ..report.render import highlight
from ..text import paint, table
from ..units import kib, pct
from .diff import Comparison, Side

_BYTES = ("shared memory", "spill stores", "spill loads")


def show(name: str, value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name in _BYTES:
        return kib(value)
    if name == "occupancy":
        return pct(value)
    return str(value)


def delta_line(cmp: Comparison) -> str:
    # Figures one side does not have (AMD's VGPRs beside an NVIDIA target) are in the table, not here.
    figs = [(n, a, b) for n, a, b in cmp.deltas if not n.endswith(" lines") and None not in (a, b)]
    if not figs:
        return "no differences in resource usage or instruction mix"
    return ", ".join(f"{n} {show(n, a)} → {show(n, b)}" for n, a, b in figs)


def lines(cmp: Comparison, color: bool = False) -> list[str]:
    """Deltas on top, the figures side by side, then the stage diff."""
    a, b = cmp.a, cmp.b
    out = table(["", "", ""], [[paint(letter, "bold", color), side.label, _where(side)]
                               for letter, side in (("a", a), ("b", b))])[1:]
    out += [f"{paint('changed', 'bold', color)}  {delta_line(cmp)}", ""]
    names = list(dict.fromkeys([*a.figures, *b.figures]))
    rows = []
    for n in names:
        va, vb = a.figures.get(n), b.figures.get(n)
        rows.append([n, show(n, va), show(n, vb), "*" if va != vb else ""])
    out += table(["", "a", "b", ""], rows, "lrr")
    if "instructions" in names:
        code = "/".join(dict.fromkeys("SASS" if s.compiled.target.is_nvidia else "amdgcn" for s in (a, b)))
        out.append(f"instructions and the rows after it: static counts in the {code}; * marks a difference")
    out.append("")
    out.append(f"{paint(cmp.stage + ' diff', 'bold', color)}, normalised: {cmp.normalisation}"
               + (" (--raw for the exact text)" if cmp.normalised else ""))
    if cmp.identical:
        out.append(f"the {cmp.stage} of both variants is the same" + (" after normalisation" if cmp.normalised
                                                                       else ""))
        return out
    styles = (("---", "bold"), ("+++", "bold"), ("@@", "cyan"), ("-", "red"), ("+", "green"))
    for line in cmp.diff:
        style = next((st for prefix, st in styles if line.startswith(prefix)), None)
        out.append(paint(line, style, color) if style else " " + highlight(line[1:], cmp.stage, color).rstrip("\n"))
    return out


def _where(side: Side) -> str:
    c = side.compiled
    cfg = c.config
    meta = ",".join(f"{k}={v}" for k, v in cfg.meta.items())
    return f"{c.spec.name} on {c.target.label}, num_warps={cfg.num_warps}, num_stages={cfg.num_stages}, {meta}"
