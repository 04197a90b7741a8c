"""A check of real code in words: one line a case, the guards that fired with what they saw, the launches that
did the work, the protections in force; for many solutions, one row each."""
from __future__ import annotations

import os
import sys

from ... import text as painting
from .. import margin
from .verdict import Verdict, Verdicts

def paint(text: str, style: str) -> str:
    """Colour only where standard output is a terminal that takes it (the command prints the lines as they are)."""
    return painting.paint(text, style, sys.stdout.isatty() and os.environ.get("TERM") != "dumb")


MARK = {"pass": ("PASS", "green"), "fail": ("FAIL", "red"), "error": ("ERROR", "red"), "skip": ("skip", "yellow")}


def lines(result, debug: bool = False) -> list[str]:
    if isinstance(result, Verdicts):
        return _rows(result)
    return _one(result, debug)


def _one(v: Verdict, debug: bool) -> list[str]:
    out = [f"{v.subject} ({v.kind or 'not loaded'}) against {v.reference}", f"  on {v.mode}" if v.mode else ""]
    for f in v.findings:         # the interpreter's failure, when there is one, comes first (judge._judge)
        out.append(paint(f"  {f.guard}: {f.message}", "red"))
    said = [f.message for f in v.findings if f.guard == "interpreter"]
    for c in v.cases:
        word, colour = MARK[c.status]
        launched = _launches(c.launches)
        out.append(f"  {paint(word, colour):<6} {c.label}" + (f"  [{', '.join(c.guards)}]" if c.guards else "") +
                   _multiple(c.outputs) + (f"  {launched}" if launched else ""))
        for f in [f for f in c.findings if not any(m.startswith(f.message) for m in said)][:6]:
            out.append(f"         {f.guard}: {f.message}")
        for warning in dict.fromkeys(w for o in c.outputs for w in o.warnings):
            out.append(paint(f"         warning: {warning}", "yellow"))
        if c.note:
            out.append(f"         {c.note}")
    mapping = next((c.parameters for c in v.cases if c.parameters), None)
    if mapping and mapping["by"] != "none":
        renamed = [f"{k} <- {r}" for k, r in mapping["pairs"].items() if k != r]
        out.append(f"  parameters: the reference's, matched by {mapping['by']}" +
                   (f" ({', '.join(renamed[:6])}{' ...' if len(renamed) > 6 else ''})" if renamed else "") +
                   (f"; the subject's own, kept as built: {', '.join(mapping['unmatched_subject'])}"
                    if mapping["unmatched_subject"] and not mapping["unmatched_reference"] else ""))
    sizes = {tuple(sorted(s["sizes"].items())) for s in v.sizes}
    if sizes:
        out.append("  sizes checked: " + "; ".join(", ".join(f"{k}={val}" for k, val in s) for s in sorted(sizes)))
    out.append(f"  launches: {v.launches} made, {v.completed} completed in the interpreter" +
               (f"; kernels: {', '.join(v.kernels)}" if v.kernels else "; no Triton kernel ran"))
    for var in v.variants:
        told = ", ".join([f"{k}={v}" for k, v in (var.get("constexprs") or {}).items()] +
                         [f"num_warps={var.get('num_warps')}", f"num_stages={var.get('num_stages')}"] +
                         ([f"{var['registers']} registers"] if var.get("registers") else []) +
                         list(var.get("specialised") or []))
        out.append(f"    variant {var.get('id')}: {var.get('kernel')} {told}")
    if v.variants:
        out.append("    (--trace FILE keeps them; `playground compile FILE#N` opens variant N)")
    out.append("  protections: " + "; ".join(v.protections.get("in_force", [])))
    for missing in v.protections.get("not_in_force", []):
        out.append(paint(f"  not in force: {missing}", "yellow"))
    if v.seconds:
        out.append("  time: " + ", ".join(f"{k} {s:.1f} s" for k, s in v.seconds.items()))
    passed = sum(c.status == "pass" for c in v.cases)
    verdict = "PASS" if v.ok else "FAIL"
    fired = [g for g in v.guards if g != "interpreter"]
    fired = ("; not judged: a launch could not run in Triton's interpreter" if "interpreter" in v.guards else "") + \
        (f"; guards fired: {', '.join(fired)}" if fired else "")
    out.append(paint(f"{verdict}: {passed} of {len(v.cases)} cases pass{fired}", "green" if v.ok else "red"))
    return [line for line in out if line]


def _multiple(outputs: list) -> str:
    """The case's largest error as a multiple of PyTorch's own in the same dtype (check/margin.py)."""
    measured = [o.margin for o in outputs if o.margin and o.margin.get("multiple") is not None]
    if not measured:
        exact = [o.margin for o in outputs if o.margin]
        return f"  error within {margin.FLOOR_ULPS:g} ulps (PyTorch exact)" if exact and all(m["ok"] for m in exact) else ""
    worst = max(measured, key=lambda m: m["multiple"])["multiple"]
    return f"  error {worst:.0f}x PyTorch's" if worst >= 10 else f"  error {worst:.2g}x PyTorch's"


def _launches(launches: list[dict]) -> str:
    if not launches:
        return ""
    names = list(dict.fromkeys(f"{r.get('kernel')}{tuple(r.get('grid') or ())}" for r in launches))
    return f"{len(launches)} launch{'es' if len(launches) > 1 else ''}: {', '.join(names[:3])}" + \
        (" ..." if len(names) > 3 else "")


def _rows(result: Verdicts) -> list[str]:
    out = []
    width = max((len(v.subject) for v in result.verdicts), default=8)
    for v in result.verdicts:
        word = paint("PASS", "green") if v.ok else paint("FAIL", "red")
        passed = sum(c.status == "pass" for c in v.cases)
        why = ", ".join(v.guards) or ""
        first = next((f.message for f in v.findings), None) or next(
            (f.message for c in v.cases for f in c.findings), None) or next(
            (c.note for c in v.cases if c.status == "error"), "")
        out.append(f"{word}  {v.subject:<{width}}  {passed}/{len(v.cases)} cases" + (f"  [{why}]" if why else "") +
                   (f"  {first[:120]}" if first and not v.ok else ""))
    out.append(f"{sum(v.ok for v in result.verdicts)} of {len(result.verdicts)} solutions pass")
    return out
