"""`check`'s report as text, `lines(report)`: one line per case, the mismatches of a failing one, a summary.

The lines are rich's rendering for standard output (`Console.capture`): a table sized to the terminal, and
colours only where standard output takes them; the command prints them as they are (`click.echo(...,
color=True)`), so nothing is stripped or added on the way."""
from __future__ import annotations

import math

from ..core.closeness import OutputCheck, at
from ..run.cases import describe_case
from .kernel import Report

_STYLE = {"pass": "green", "fail": "bold red", "error": "bold red", "skip": "yellow"}


def lines(report: Report, debug: bool = False) -> list[str]:
    """A table, one row per case and output; then what went wrong, case by case (with `debug`, each crash's
    traceback); then the counts. Skipped cases get no rows: one line per reason says how many were skipped and why.
    """
    from rich.console import Console
    console = Console(width=None if _is_terminal() else 160, highlight=False)
    with console.capture() as captured:
        _print(report, debug, console)
    return captured.get().removesuffix("\n").split("\n")


def _print(report: Report, debug: bool, console) -> None:
    from rich.table import Table
    from rich.text import Text
    shown = [r for r in report.results if r.status != "skip"]
    several = len({r.kernel for r in shown}) > 1
    multi_out = any(len(r.outputs) > 1 for r in shown)
    table = Table(title=f"checked against PyTorch (fp64) on {report.mode}, seed {report.seed}",
                  title_justify="left", header_style="bold")
    if several:
        table.add_column("kernel", no_wrap=True)
    table.add_column("case")
    table.add_column("dtype", no_wrap=True)
    table.add_column("inputs, layout or config")
    if multi_out:
        table.add_column("output", no_wrap=True)
    for title in ("max abs err", "x PyTorch", "max rel err", "worst err/tol", "mismatches", "NaN/Inf", "atol, rtol"):
        table.add_column(title, justify="right", no_wrap=True)
    table.add_column("result", no_wrap=True)
    for r in shown:
        for i, o in enumerate(r.outputs or [None]):
            cells = ([r.kernel if i == 0 else ""] if several else []) + \
                    [describe_case(r.case) if i == 0 else "", r.dtype if i == 0 else "",
                     r.variant if i == 0 else ""]
            if multi_out:
                cells.append(o.name if o else "")
            if o is None:
                cells += ["", "", "", "", "", "", ""]
            else:
                cells += [_num(o.max_abs), _multiple(o), _num(o.max_rel), _ratio(o.worst), f"{o.mismatches}/{o.total}",
                          _specials(o), f"{o.atol:.2g}, {o.rtol:.2g}"]
            status = r.status if o is None or i == 0 else ("pass" if o.ok and not r.problems else "fail")
            flagged = sorted({f.split(":")[0] for f in r.findings}) if i == 0 else []
            cells.append(Text(" ".join([status.upper()] + flagged), style=_STYLE[status]))
            table.add_row(*cells)
    if shown:
        console.print(table)
    said = set()           # a finding or a crash repeats in every run of the probe case: say it once
    for r in shown:
        if r.status == "pass" and not any(o.warnings for o in r.outputs):
            continue
        console.print(Text(f"{r.status.upper()} {r.label}" + (f"  [{', '.join(r.guards_fired)}]" if r.guards_fired else ""),
                           style=_STYLE[r.status]))
        for reason in r.reasons():
            if reason in said:
                reason = ": ".join(reason.split(": ")[:2]) + ": as above"
            elif reason in r.findings or (r.status == "error" and reason in r.problems):
                said.add(reason)
            console.print(f"  {reason}", markup=False, soft_wrap=True)
        for o in r.outputs:
            for m in o.first:
                console.print(f"    {at(o.name, m.index)}: got {m.got:.6g}, expected {m.expected:.6g}",
                              markup=False)
            for w in o.warnings:
                console.print(Text(f"  warning: {o.name}: {w}", style="yellow"), soft_wrap=True)
        if debug and r.traceback:
            console.print(r.traceback, markup=False, soft_wrap=True)
    skipped = {}
    for r in report.results:
        if r.status == "skip":
            skipped.setdefault(r.problems[0] if r.problems else "", []).append(r)
    for reason, rs in skipped.items():
        console.print(Text(f"SKIP {len(rs)} case(s): {reason}", style=_STYLE["skip"]), soft_wrap=True)
    shared = [r for r in report.results if r.same_as]
    if shared:
        console.print(f"{len(shared)} config run(s) differ from another run of their case in num_warps or num_stages "
                      f"alone, which an interpreted kernel never sees: each is that run's result, not run again",
                      markup=False, soft_wrap=True)
    if report.sanitizers.startswith("off on a GPU") or not report.sanitizers.startswith("off"):
        console.print(f"sanitizers: {report.sanitizers}", markup=False, soft_wrap=True)
    spent = report.seconds_by_variant()
    if len(spent) > 1:
        console.print("time: " + ", ".join(f"{k} {v:.2f} s" for k, v in spent.items()), soft_wrap=True,
                      markup=False)
    where = _where_the_time_went(report)
    if where:
        console.print(where, soft_wrap=True, markup=False)
    counts = report.counts()
    line = ", ".join(f"{counts[s]} {w}" for s, w in (("pass", "passed"), ("fail", "failed"),
                                                     ("error", "crashed"), ("skip", "skipped")) if s in counts)
    console.print(Text(line, style="green" if report.ok else "bold red"))


def _where_the_time_went(report: Report) -> str:
    """'time went to: starting 2 workers 2.4 s; launches 30.1 s (memcheck 1.2 s, racecheck 0.8 s, initcheck 0.1 s
    of it), the rest of the runs 4.0 s; 20.3 s wall': the guards' own work beside the launches they watch. The
    runs' seconds add up over the workers, so with several they exceed the wall time."""
    if not report.results or report.wall <= 0:
        return ""
    part, guard = report.seconds_by_part(), report.seconds_by_guard()
    guards = [f"{g} {guard[g]:.2f} s" for g in ("memcheck", "racecheck", "initcheck") if g in guard]
    workers = f"{report.workers} workers" if report.workers > 1 else "the worker"
    started = f"starting {workers} {part['start']:.2f} s; " if part["start"] else ""
    launches = f"launches {part['launches']:.2f} s" + (f" ({', '.join(guards)} of it)" if any(guard.values()) else "")
    return (f"time went to: {started}{launches}, the rest of the runs (reference, comparison) {part['other']:.2f} s; "
            f"{report.wall:.2f} s wall" + (f" on {report.workers} workers" if report.workers > 1 else ""))


def _num(x) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.2e}" if (abs(x) < 1e-3 or abs(x) >= 1e4) and math.isfinite(x) else f"{x:.4g}"


def _multiple(o: OutputCheck) -> str:
    """The error as a multiple of PyTorch's own in the same dtype (check/margin.py); "exact" where PyTorch's error
    is 0 (the floor judges), "-" where it was not measured (the table alone)."""
    if not o.margin:
        return "-"
    if o.margin.get("multiple") is None:
        return "exact"
    m = o.margin["multiple"]
    return f"{m:.0f}x" if m >= 10 else f"{m:.2g}x"


def _specials(o: OutputCheck) -> str:
    """NaN and Inf counts in the output and in the reference: 'none', or e.g. 'got 3 NaN; ref 1 Inf'."""
    def part(nan, inf):
        return " ".join(f"{n} {w}" for n, w in ((nan, "NaN"), (inf, "Inf")) if n)
    got, ref = part(o.nan_got, o.inf_got), part(o.nan_expected, o.inf_expected)
    return "; ".join(f"{who} {what}" for who, what in (("got", got), ("ref", ref)) if what) or "none"


def _ratio(x) -> str:
    return "-" if x is None else "inf" if math.isinf(x) else f"{x:.2f}"


def _is_terminal() -> bool:
    import sys
    return sys.stdout.isatty()
