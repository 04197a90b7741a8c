"""Every comparison a check makes, each a named guard, each with the cheat it stops. They run here, in the
checking process, on plain tensors loaded from the child's files (torch.load(weights_only=True): the child
cannot run code here), so nothing the subject patched in its own process reaches them.

- form: each output exactly the reference's shape, dtype and device, a plain tensor (a 0-d answer that
  broadcasts, an fp32 answer to an fp16 problem, a CPU tensor, a lazy subclass: each fails);
- memory: no output element holds the poison fresh memory was filled with (`torch.empty` returned unwritten, in
  the hope it holds someone's freed result, or a kernel that skips part of its output);
- nonfinite: NaN and Inf exactly where the reference has them (NaN as a wildcard that `(diff > tol).any()` lets
  through);
- tolerance: element by element within atol + rtol*|expected| (core/tolerances.py's table by dtype, atol scaled
  by the longest input dimension, the most a single reduction can sum; or --atol/--rtol);
- scale: the output at least SCALE_MARGIN times closer (relative L2 error) to the reference than the best
  trivial answer: zeros, the best constant, an input of the same shape, the reference at another seed. Zeros
  pass `allclose(atol=1e-2)` wherever the outputs are small (a softmax over a long row, KernelBench #165); they
  do not pass this, however loose atol is. A trivial answer that itself passes the dtype's own tolerance (an
  identity op's input) is not counted;
- inputs: the inputs bit for bit as they were (an in-place write that makes a reference run afterwards agree,
  KernelBench PR #82), unless --allow-inplace;
- sanitizer: no race, out-of-bounds access or uninitialised read reported by the interpreter's sanitizers, even
  when the numbers agree;
- work (with --require-triton): at least one Triton launch completed (not PyTorch alone, nor a fallback after a
  kernel raised);
- seeds, shapes, values, layouts: a case other than the baseline that fails is named for what it changed
  (cases.py): a cached, hard-coded, shape-specific or distribution-assuming answer.
"""
from __future__ import annotations

import math

from ...core import closeness, dtypes, tolerances
from .. import margin
from ..registry import VALUE_GUARDS, Finding  # noqa: F401 -- judge.py reads both here
from ...run.inputs import SCALING
from . import draws

SCALE_MARGIN = 10.0




def compare_case(case, ran: dict, saved: dict, expected, settings: dict, baseline_scale: dict,
                 others: dict) -> tuple[list[Finding], list]:
    """The findings for one case and its output comparisons (closeness.OutputCheck each)."""
    import torch
    findings: list[Finding] = []
    checks = []
    got = dict(saved.get("outputs") or [])
    described = {o["name"]: o for o in ran.get("outputs") or []}
    want = [(n, t) for n, t in expected.outputs if isinstance(t, torch.Tensor)]
    if sorted(got) != sorted(n for n, _ in want):
        findings.append(Finding("form", f"returned {_names(described) or 'nothing'}; the reference returns "
                                        f"{', '.join(n for n, _ in want) or 'nothing'}"))
    form = {f["name"]: f for f in expected.form or []}
    native = {n: t for n, t in expected.native if isinstance(t, torch.Tensor)}
    for name, e in want:
        g = got.get(name)
        if g is None:
            continue
        findings += _form(name, described.get(name, {}), g, e, form.get(name))
        if list(g.shape) != list(e.shape):
            continue
        check, more = _values(name, g, e, case, settings, baseline_scale, others.get(name, []),
                              native.get(name), expected.no_fp64 or expected.no_native)
        checks.append(check)
        findings += more
    findings += _backward(case, saved, expected, settings, baseline_scale)
    if not settings.get("allow_inplace"):
        findings += _inputs(case, saved)
    return findings, checks


def _names(described: dict) -> str:
    return ", ".join(f"{n} ({d['type']})" if d.get("type") != "Tensor" else n for n, d in described.items())


def _form(name: str, described: dict, g, e, form: dict | None) -> list[Finding]:
    out = []
    kind = described.get("type", "Tensor")
    if kind != "Tensor":
        out.append(Finding("form", f"{name} is a {kind}, not a plain tensor"))
    if list(g.shape) != list(e.shape):
        out.append(Finding("form", f"{name} has shape {list(g.shape)}; the reference's is {list(e.shape)}"))
    if form is not None and form["dtype"] != str(g.dtype).removeprefix("torch."):
        out.append(Finding("form", f"{name} is {str(g.dtype).removeprefix('torch.')}; the reference's is "
                                   f"{form['dtype']}"))
    device = described.get("device", "")
    if device and not device.startswith(("cuda", "hip")):
        out.append(Finding("form", f"{name} is on {device}; the inputs were on the GPU"))
    return out


def _values(name: str, g, e, case, settings: dict, baseline_scale: dict, other_answers: list, native=None,
            no_yardstick: str | None = None):
    import torch
    findings = []
    stale = draws.poisoned(g)
    if stale is not None and bool(stale.any()):
        findings.append(Finding("memory", f"{name}: {int(stale.sum())} of {g.numel()} elements still hold the "
                                          f"poison fresh GPU memory was filled with: never written"))
    dtype = _dtype_name(g.dtype)
    told = settings.get("atol") is not None or settings.get("rtol") is not None
    usable = not told and margin.usable(g, e, native) and case.generator not in margin.TABLE_ONLY_CLASSES
    tol = tolerance(dtype, case, settings, e, baseline_scale.get(name), by_length=not usable)
    check = closeness.compare(name, g, e, dtype, tol, unwritten=stale)
    measured = margin.judge(check, g, e, native, dtype, tol, stale) if usable else None
    if measured is not None and not measured.ok:
        findings.append(Finding("tolerance", f"{name}: {measured.describe()}"))
    elif not usable and not told and g.dtype.is_floating_point and case.generator not in margin.TABLE_ONLY_CLASSES:
        check.warnings.append(f"judged by the table alone ({tol.describe()}, atol by the longest dimension): "
                              f"{no_yardstick or 'no PyTorch run in this dtype to measure against'}")
    stored = closeness._as_stored(e.double(), g.dtype)
    g64 = g.double()
    nan_wrong = int((torch.isnan(g64) != torch.isnan(stored)).sum())
    inf_wrong = int(((torch.isinf(g64) | torch.isinf(stored)) & (g64 != stored) & ~torch.isnan(g64)
                     & ~torch.isnan(stored)).sum())
    if nan_wrong or inf_wrong:
        findings.append(Finding("nonfinite", f"{name}: NaN or Inf where the reference differs: {nan_wrong} NaN, "
                                             f"{inf_wrong} Inf out of place"))
    if check.mismatches:
        findings.append(Finding("tolerance", f"{name}: {check.mismatches} of {check.total} elements differ by more "
                                             f"than atol={check.atol:.3g}, rtol={check.rtol:.3g} (largest |error| "
                                             f"{_fmt(check.max_abs)})"))
    findings += _scale(name, g64, stored, case, dtype, other_answers)
    return check, findings


def tolerance(dtype: str, case, settings: dict, expected, baseline_max: float | None,
              by_length: bool = True) -> tolerances.Tolerance:
    """--atol/--rtol when given; else the dtype's row of core/tolerances.py and, under the input classes that scale
    values, atol scaled by how much larger the outputs are than at the baseline. With `by_length` (no PyTorch run
    in the dtype to measure against, check/margin.py) atol is also scaled by the longest input dimension (a
    callable's reduction length is not known; no single reduction sums more)."""
    import torch
    base = tolerances.TABLE.get(dtype, tolerances.TABLE["fp32"])
    longest = max([max(v.shape, default=1) for _, v in case.args if isinstance(v, torch.Tensor)] or [1])
    atol, rtol = base.atol * (longest if by_length else 1), base.rtol
    if case.generator in SCALING and baseline_max:
        finite = expected[torch.isfinite(expected)]
        largest = float(finite.abs().max()) if finite.numel() else 0.0
        atol *= max(1.0, largest / baseline_max)
    if settings.get("atol") is not None:
        atol = settings["atol"]
    if settings.get("rtol") is not None:
        rtol = settings["rtol"]
    return tolerances.Tolerance(atol=atol, rtol=rtol)


def _scale(name: str, g, e, case, dtype: str, other_answers: list) -> list[Finding]:
    """The scale guard: the answer against the best trivial answer, in relative L2 error over finite elements."""
    import torch
    finite = torch.isfinite(e) & torch.isfinite(g)
    if not bool(finite.any()):
        return []
    ref = e[finite]
    norm = float(ref.norm())
    if norm == 0:
        return []
    error = float((g[finite] - ref).norm()) / norm
    own = tolerances.TABLE.get(dtype, tolerances.TABLE["fp32"])
    trivial = {"zeros": torch.zeros_like(e)}
    if e.numel() > 1:
        trivial["the best constant"] = torch.full_like(e, float(ref.mean()))
    for arg, value in case.args:
        if isinstance(value, torch.Tensor) and list(value.shape) == list(e.shape):
            trivial[f"the input {arg}"] = value.double()
    for label, other in other_answers:
        if list(other.shape) == list(e.shape):
            trivial[f"the reference at {label}"] = other.double()
    best, best_error = None, math.inf
    for label, answer in trivial.items():
        both = finite & torch.isfinite(answer)
        if not bool(both.any()):
            continue
        passes_own = bool((((answer - e).abs() <= own.atol + own.rtol * e.abs()) | ~torch.isfinite(e)).all())
        if passes_own:                # this "trivial" answer is a right one here (an identity's input)
            continue
        err = float((answer[both] - e[both]).norm()) / max(float(e[both].norm()), 1e-300)
        if err < best_error:
            best, best_error = label, err
    if best is None or error * SCALE_MARGIN <= best_error:
        return []
    return [Finding("scale", f"{name}: relative error {error:.3g}, not {SCALE_MARGIN:g}x below that of {best} "
                             f"({best_error:.3g})")]


def _backward(case, saved: dict, expected, settings: dict, baseline_scale: dict) -> list[Finding]:
    import torch
    if not settings.get("backward"):
        return []
    got = dict(saved.get("grads") or [])
    findings = []
    for name, e in expected.grads:
        g = got.get(name)
        if g is None:
            findings.append(Finding("backward", f"no gradient for {name.removeprefix('grad ')}; the reference has one"))
            continue
        if list(g.shape) != list(e.shape):
            findings.append(Finding("backward", f"{name} has shape {list(g.shape)}; the reference's is "
                                                f"{list(e.shape)}"))
            continue
        _, more = _values(name, g, e, case, settings, baseline_scale, [])
        findings += [Finding("backward", f"{f.guard}: {f.message}") for f in more]
    return findings


def _inputs(case, saved: dict) -> list[Finding]:
    import torch
    forward = dict(saved.get("inputs_after_forward") or saved.get("inputs_after") or [])
    after = dict(saved.get("inputs_after") or [])
    out = []
    for name, before in case.args:
        if not isinstance(before, torch.Tensor) or name not in after:
            continue
        when = "the call" if not _same(forward.get(name, after[name]), before) else \
            ("the backward pass" if not _same(after[name], before) else None)
        if when:
            now = forward[name] if when == "the call" else after[name]
            changed = int((_bits(now) != _bits(before)).sum()) if now.shape == before.shape else now.numel()
            out.append(Finding("inputs", f"{when} changed its input {name} ({changed} of {before.numel()} "
                                         f"elements); --allow-inplace allows it"))
    return out


def _same(now, before) -> bool:
    return now.shape == before.shape and now.dtype == before.dtype and bool((_bits(now) == _bits(before)).all())


def unrun(launches: list[dict]) -> list[Finding]:
    """The `interpreter` finding of a case: a launch that Triton's interpreter could not run (capture.py records
    its error, the exception's first line, and leaves its outputs unwritten). It is not a guard: the case's outputs
    hold what the kernel never wrote, so no comparison of values (VALUE_GUARDS) says anything about the code, and
    the case is not judged on them."""
    failed = [r for r in launches if r.get("error")]
    if not failed:
        return []
    more = len({r["error"] for r in failed}) - 1
    return [Finding("interpreter", failed[0]["error"] + (f" (and {more} other error{'s' if more > 1 else ''})"
                                                        if more else ""))]


def masked(launches: list[dict], findings: list) -> list:
    """The masked guard: a case whose values are wrong, from launches that loaded masked-out lanes with no `other=`.
    Those lanes are undefined on a GPU; here they held poison (NaN, then +-the largest value, run/sanitize.py), so
    a result that depends on them misses the reference. Said only where a value guard fired: an `other`-less load
    whose lanes never reach an output (an elementwise kernel's) is no bug."""
    if not any(f.guard in ("tolerance", "nonfinite", "scale") for f in findings):
        return []
    sites: dict = {}
    for r in launches:
        for line, lanes in (r.get("masked_loads") or {}).items():
            sites[line] = sites.get(line, 0) + lanes
    if not sites:
        return []
    where = ", ".join(f"{line} ({lanes} lanes)" for line, lanes in list(sites.items())[:3])
    return [Finding("masked", f"loads with a mask and no other= read masked-out lanes at {where}; a GPU leaves "
                              f"them undefined, so they held poison here, and the outputs miss the reference: give "
                              f"each load an other= its computation tolerates (0 for a sum, +inf for a min)")]




def launch_findings(launches: list[dict], require_triton: bool) -> list[Finding]:
    completed = [r for r in launches if r.get("executed") and not r.get("error")]
    out = []
    for r in launches:
        for finding in r.get("findings") or []:
            out.append(Finding("sanitizer", f"{r.get('kernel')}: {finding}"))
    if require_triton and not completed and not any(r.get("error") for r in launches):    # else: unrun's
        out.append(Finding("work", "--require-triton: no Triton launch completed; it launched no Triton kernel: "
                                   "PyTorch alone answered"))
    return out


def _bits(t):
    import torch
    size = t.element_size()
    view = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    if t.dtype == torch.bool:
        return t.to(torch.uint8)
    return t.contiguous().view(view)


def _dtype_name(dtype) -> str:
    try:
        return dtypes.canonical(str(dtype).removeprefix("torch."))
    except Exception:       # noqa: BLE001 -- a dtype the table lacks: compared as fp32
        return "fp32"


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.3g}"
