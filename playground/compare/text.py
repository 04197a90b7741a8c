"""A comparison as text, `lines(comparison)`: which variant is which, what changed, the figures side by side,
then the stage diff (coloured when `color`); `show` writes one figure as the table and the page show it."""
from __future__ import annotations

from ..report.render import highlight
from ..text import microseconds, paint, table
from ..units import kib, pct
from .diff import MODELLED_TIME, Comparison, Side

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
    if name == MODELLED_TIME:
        return microseconds(value)
    return str(value)


def delta_line(cmp: Comparison) -> str:
    # Figures one side does not have (AMD's VGPRs beside an NVIDIA target) are in the table, not here.
    figs = [(n, a, b) for n, a, b in cmp.deltas if not n.endswith(" lines") and None not in (a, b)]
    failed = [s for s in (cmp.a, cmp.b) if s.error]
    if failed:     # one line each: the side, and why
        return "\n         ".join(f"{s.label} does not compile: {s.error}" for s in failed)
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
        rows.append([n, show(n, va), show(n, vb), "*" if va != vb and not (a.error or b.error) else ""])
    out += table(["", "a", "b", ""], rows, "lrr")
    if "instructions" in names:
        code = "/".join(dict.fromkeys(s.code for s in (a, b) if not s.error))
        out.append(f"instructions and the rows after it: static counts in the {code}; * marks a difference")
    if MODELLED_TIME in names:
        out.append(f"{MODELLED_TIME}: the performance model's, on the target's GPU at the compiled shape; not measured")
    out.append("")
    if a.error or b.error:
        return out
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
    return side.where + (f", triton {side.triton}" if side.triton and side.triton not in side.label else "")
