"""Expectations about a compiled kernel, checked by `compile --expect`: the exit code of an exercise.

An expectation is `FIGURE OP VALUE`, with OP one of <= >= == != < >:
- `registers`, `spills` (bytes stored + loaded), `shared` (bytes per block, static + dynamic),
  `occupancy` (a fraction; `50%` reads as 0.5), `blocks_per_sm`, `waves` and `last_wave` (the last
  wave's share of a full one): the figures the header prints, from the binary and the occupancy
  calculator.
- `STAGE:REGEX`: how many lines of that stage (`sass`, `ptx`, `ttgir`, `amdgcn`, ...) match the
  regular expression, e.g. `sass:HGMMA >= 4`, `ptx:mma\\.sync == 0`.
"""
from __future__ import annotations

import operator
import re
from dataclasses import asdict, dataclass

from ..core.stages import textual
from ..errors import UserError
from ..units import pct
from . import occupancy

_OPS = {"<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
        ">": operator.gt}
_FORM = re.compile(r"^\s*(?P<lhs>.+?)\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<rhs>-?[0-9][0-9_.]*%?)\s*$")
FIGURES = ("registers", "spills", "shared", "occupancy", "blocks_per_sm", "waves", "last_wave")
_FRACTIONS = ("occupancy", "last_wave")


@dataclass(frozen=True)
class Expectation:
    text: str        # as written
    figure: str      # a name from FIGURES, or "STAGE:REGEX"
    op: str
    value: float


@dataclass
class Outcome:
    expectation: str
    figure: str
    got: float
    holds: bool

    @property
    def shown(self) -> str:
        """The value as the header prints it: occupancy as a percentage, counts as integers."""
        if self.figure in _FRACTIONS:
            return pct(self.got)
        return str(int(self.got)) if float(self.got).is_integer() else f"{self.got:.4g}"

    def as_dict(self) -> dict:
        return asdict(self)


def parse(text: str, stages: tuple[str, ...]) -> Expectation:
    m = _FORM.match(text)
    if not m:
        raise UserError(f"expect '{text}': expected FIGURE OP NUMBER, as in `expect` 'registers <= 128' "
                        f"or `expect` 'sass:HGMMA >= 4'", param="expect")
    figure, rhs = m["lhs"], m["rhs"]
    try:
        value = float(rhs[:-1]) / 100 if rhs.endswith("%") else float(rhs)
    except ValueError:
        raise UserError(f"expect '{text}': {rhs} is not a number", param="expect") from None
    stage, colon, pattern = figure.partition(":")
    if colon:
        if stage not in stages:
            raise UserError(f"expect '{text}': no stage '{stage}' for this target; it has {', '.join(stages)}", param="expect")
        try:
            re.compile(pattern)
        except re.error as e:
            raise UserError(f"expect '{text}': not a regular expression: {e}", param="expect") from None
    elif figure in _FRACTIONS and not rhs.endswith("%") and value > 1:
        raise UserError(f"expect '{text}': {figure} is a fraction; write {rhs}% or {value / 100:g}", param="expect")
    elif figure not in FIGURES:
        raise UserError(f"expect '{text}': unknown figure '{figure}'; use one of {', '.join(FIGURES)}, "
                        f"or STAGE:REGEX to count lines", param="expect")
    return Expectation(text.strip(), figure, m["op"], value)


def figure(c, name: str) -> float:
    """One figure of a compiled kernel, as an expectation names it."""
    stage, colon, pattern = name.partition(":")
    if colon:
        text = c.stage(stage)
        return sum(1 for line in text.splitlines() if re.search(pattern, line))
    r = c.resources
    if name == "registers":
        return r.registers
    if name == "spills":
        return r.spill_store_bytes + r.spill_load_bytes
    if name == "shared":
        return r.shared_total
    occ = occupancy.of(c)
    if name in ("waves", "last_wave") and occ.waves is None:
        raise UserError(f"expect {name}: the spec's grid gives no CTA count at this shape", param="expect")
    return {"occupancy": occ.occupancy, "blocks_per_sm": occ.active_blocks_per_sm, "waves": occ.waves,
            "last_wave": occ.last_wave_fill}[name]


def check(c, texts) -> list[Outcome]:
    """Every expectation, evaluated on the compiled kernel."""
    stages = tuple(textual(c.target.stages))
    outcomes = []
    for e in (parse(t, stages) for t in texts):
        got = figure(c, e.figure)
        outcomes.append(Outcome(e.text, e.figure, got, bool(_OPS[e.op](got, e.value))))
    return outcomes


def failure_line(outcomes: list[Outcome]) -> str | None:
    """One line naming every expectation that does not hold, or None when all do."""
    failed = [o for o in outcomes if not o.holds]
    if not failed:
        return None
    return (f"{len(failed)} of {len(outcomes)} expectations do not hold: "
            + "; ".join(f"{o.expectation} (got {o.shown})" for o in failed))
