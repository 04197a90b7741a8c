"""Correctness: run a kernel on its cases and compare every output with its PyTorch reference.

`check_case` is the one function the CLI (`playground check`) and the tests both call. It
validates the case here (sizes, dtype, meta, the kernel's constraints: bad input raises UserError
before anything runs), then runs the kernel where it can run (a GPU here, or the interpreter
worker, see runner.py) and compares there, so only small plain-data results travel back.

The reference runs on fp64 copies of the very inputs the kernel saw. Each output is compared
element by element with the tolerance from tolerances.py; the result says how far off it was,
where, and why it failed, in words.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from . import runner, tolerances, worker
from ..errors import UserError
from ..core.spec import KernelSpec

FIRST = 5   # mismatching elements listed per output

DEFAULT_CASE_SECONDS = 600.0          # per case in the interpreter: generous, but not forever
# The most elements (all tensors together) a case the user did not ask for may have: 4M elements
# is about a second of interpreted elementwise work, and a 1024^2 GEMM's operands.
FALLBACK_MAX_ELEMENTS = 4 * 1024 * 1024
# Triton's interpreter keeps bf16 as raw uint16 bits and does arithmetic on the bits (loads,
# stores and casts are right; add, dot, sum are not). Its maintainers call bf16 unsupported there.
BF16_NOTE = ("bf16 cannot be checked in Triton's interpreter: it computes on bf16's raw bits "
             "(triton-lang/triton#11584); check it on a GPU")


@dataclass
class Mismatch:
    index: tuple
    got: float
    expected: float


@dataclass
class OutputCheck:
    """One output tensor compared with the reference."""
    name: str
    shape: tuple
    dtype: str
    atol: float
    rtol: float
    max_abs: float | None           # over elements finite in both; None when there are none
    max_rel: float | None           # over elements with |expected| > atol
    mismatches: int
    total: int
    first: list[Mismatch]
    nan_got: int
    inf_got: int
    nan_expected: int
    inf_expected: int
    expected_max: float             # largest finite |expected|
    worst: float | None             # largest |got - expected| / (atol + rtol*|expected|): 1 is the edge
    problems: list[str] = field(default_factory=list)   # why it fails; empty when it passes
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class CaseResult:
    kernel: str
    case: dict
    dtype: str
    mode: str                       # "interpreter (CPU)" or "CUDA NVIDIA H100 80GB HBM3"
    config: str                     # num_warps, num_stages and meta used
    status: str                     # "pass", "fail", "error" (crashed) or "skip"
    outputs: list[OutputCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # crash message, stray writes, skip reason
    traceback: str | None = None
    seconds: float = 0.0            # the launch alone

    @property
    def ok(self) -> bool:
        return self.status in ("pass", "skip")

    @property
    def label(self) -> str:
        return f"{self.kernel} [{runner.describe_case(self.case)}] {self.dtype}"

    def reasons(self) -> list[str]:
        return self.problems + [f"{o.name}: {p}" for o in self.outputs for p in o.problems]

    def summary(self) -> str:
        """A few lines saying what went wrong, for assertion messages and the CLI."""
        lines = [f"{self.status.upper()} {self.label} ({self.mode})"]
        lines += [f"  {r}" for r in self.reasons()]
        for o in self.outputs:
            lines += [f"  {_at(o.name, m.index)}: got {m.got:.6g}, expected {m.expected:.6g}" for m in o.first[:3]]
            lines += [f"  warning: {o.name}: {w}" for w in o.warnings]
        return "\n".join(lines)


@dataclass
class Report:
    mode: str
    results: list[CaseResult]
    seed: int = 0

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def counts(self) -> dict:
        out = {}
        for r in self.results:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    def as_dict(self) -> dict:
        return {"mode": self.mode, "seed": self.seed, "ok": self.ok, "counts": self.counts(),
                "results": [asdict(r) for r in self.results]}


# --- the comparison ---------------------------------------------------------------------------

def compare(name: str, got, expected, dtype: str, tol: tolerances.Tolerance, unwritten=None) -> OutputCheck:
    """Compare one output with its fp64 reference: errors, mismatches, NaN/Inf, and plain-words problems.

    `unwritten` (optional, bool like `got`) marks the elements the kernel never stored to.
    """
    import torch
    g, e = got.double(), expected.double().to(got.device)
    nan_g, nan_e, inf_g, inf_e = torch.isnan(g), torch.isnan(e), torch.isinf(g), torch.isinf(e)
    both_finite = torch.isfinite(g) & torch.isfinite(e)
    diff = (g - e).abs()
    close = diff <= tol.atol + tol.rtol * e.abs()
    close |= (nan_g & nan_e) | (inf_g & (g == e))        # the same NaN or the same infinity agrees
    bad = ~close
    mismatches = int(bad.sum())
    abs_e = torch.where(torch.isfinite(e), e.abs(), torch.zeros_like(e))
    max_abs = float(diff[both_finite].max()) if bool(both_finite.any()) else None
    relevant = both_finite & (e.abs() > tol.atol)
    max_rel = float((diff[relevant] / e.abs()[relevant]).max()) if bool(relevant.any()) else None
    allowed = tol.atol + tol.rtol * e.abs()
    ratio = diff[both_finite] / allowed[both_finite]
    worst = float(ratio.nan_to_num(posinf=math.inf).max()) if ratio.numel() else None
    first = [Mismatch(tuple(int(i) for i in idx), float(g[tuple(idx)]), float(e[tuple(idx)]))
             for idx in bad.nonzero()[:FIRST].tolist()]
    result = OutputCheck(name=name, shape=tuple(got.shape), dtype=dtype, atol=tol.atol, rtol=tol.rtol,
                         max_abs=max_abs, max_rel=max_rel, mismatches=mismatches, total=got.numel(),
                         first=first, nan_got=int(nan_g.sum()), inf_got=int(inf_g.sum()),
                         nan_expected=int(nan_e.sum()), inf_expected=int(inf_e.sum()),
                         expected_max=float(abs_e.max()) if e.numel() else 0.0, worst=worst)
    _explain(result, g, e, unwritten)
    return result


def _explain(r: OutputCheck, g, e, unwritten=None) -> None:
    """Fill in the problems and warnings, in words."""
    import torch
    if r.mismatches:
        r.problems.append(f"{r.mismatches} of {r.total} elements differ by more than atol + rtol*|expected| "
                          f"(atol={r.atol:.3g}, rtol={r.rtol:.3g})")
    never = int(unwritten.sum()) if unwritten is not None else 0
    if never:
        r.problems.append(f"{never} element(s) never written (they still hold the NaN the output was filled with)")
    computed_nan = torch.isnan(g) & ~torch.isnan(e)
    if unwritten is not None:
        computed_nan &= ~unwritten
    if int(computed_nan.sum()):
        r.problems.append(f"{int(computed_nan.sum())} NaN computed where the reference has none")
    stray_inf = int((torch.isinf(g) & ~torch.isinf(e)).sum())
    if stray_inf:
        r.problems.append(f"{stray_inf} Inf in the output where the reference has none")
    if r.total and bool((g == 0).all()) and bool((e.to(runner.torch_dtype(r.dtype)) != 0).any()):
        r.problems.append(f"wrote only zeros; the reference's largest |value| is {r.expected_max:.4g}")
    if r.nan_expected or r.inf_expected:
        r.warnings.append(f"the reference itself has {r.nan_expected} NaN and {r.inf_expected} Inf")
    if r.total and r.expected_max <= r.atol:
        r.warnings.append(f"the reference's largest |value| ({r.expected_max:.3g}) is within atol ({r.atol:.3g}) "
                          f"of zero: this case cannot tell a correct kernel from one that writes zeros")


def _at(name: str, index: tuple) -> str:
    return f"{name}[{', '.join(map(str, index))}]"


# --- one case ---------------------------------------------------------------------------------

def check_case(spec: KernelSpec, case: dict, dtype: str | None = None, meta: dict | None = None,
               num_warps: int | None = None, num_stages: int | None = None, seed: int = 0,
               interpreter: bool = False, explicit_dtype: bool = False,
               time_limit: float | None = DEFAULT_CASE_SECONDS) -> CaseResult:
    """Run `spec` on one case and compare with its reference. Bad input raises UserError.

    A case still running in the interpreter after `time_limit` seconds is stopped and fails alone.
    """
    from ..core.registry import ref
    from ..core.request import Request
    sizes, layout = runner.split_case(case)
    merged_meta = {**layout.get("meta", {}), **(meta or {})}
    # The config a launch of this case uses (spec.constraints checked); the kernel runs through its own JIT.
    config = Request.of(spec, "native", merged_meta, num_warps, num_stages, sizes, dtype).config
    run_mode = worker.mode(force_interpreter=interpreter)
    mode_label = worker.describe(run_mode)
    common = dict(kernel=spec.name, case=case, dtype=config.dtype, mode=mode_label, config=config.describe())
    dtypes_used = {spec.tensor_dtype(n, config.dtype) for n in spec.tensors}
    if run_mode == worker.INTERPRETER and "bf16" in dtypes_used:
        if explicit_dtype:
            raise UserError(BF16_NOTE)
        return CaseResult(**common, status="skip", problems=[BF16_NOTE])
    try:
        return worker.call(execute, run_mode, time_limit=time_limit, ref=ref(spec),
                           case=case, config=config, seed=seed, run_mode=run_mode, mode_label=mode_label)
    except worker.WorkerDied as e:
        return CaseResult(**common, status="error", problems=[str(e)])


def execute(ref: str, case: dict, config, seed: int, run_mode: str, mode_label: str) -> CaseResult:
    """Where kernels run: launch once, compare each output. Crashes become an "error" result."""
    from ..core.registry import load
    spec = load(ref)
    _, layout = runner.split_case(case)
    common = dict(kernel=spec.name, case=case, dtype=config.dtype, mode=mode_label, config=config.describe())
    device = "cuda" if run_mode == worker.CUDA else "cpu"
    try:
        run = runner.run(spec, spec.kernel, config.shape, layout, config.dtype, config, seed, device)
    except UserError:
        raise
    except Exception as e:
        import traceback
        return CaseResult(**common, status="error", problems=[runner.crash_message(e, spec, config)],
                          traceback=traceback.format_exc())
    length = config.shape.get(spec.reduction_dim, 1) if spec.reduction_dim else 1
    outputs = []
    for name in spec.outputs:
        out_dtype = spec.tensor_dtype(name, config.dtype)
        tol = tolerances.for_output(spec.name, out_dtype, length)
        got = run.got[name]
        outputs.append(compare(name, got, run.expected[name], out_dtype, tol, runner.unwritten(got, out_dtype)))
    failed = run.problems or any(not o.ok for o in outputs)
    return CaseResult(**common, status="fail" if failed else "pass", outputs=outputs, problems=run.problems,
                      seconds=run.seconds)


# --- many cases -------------------------------------------------------------------------------

def cases_for(spec: KernelSpec, quick: bool = False) -> list[dict]:
    """The spec's cases: the quick subset, or all of them (quick ones included).

    `--quick` on a spec with cases but no quick subset takes its smallest case. A spec with no
    cases at all falls back to its default shape only when that is small enough to interpret:
    default shapes are benchmark sizes (4096^3 for a GEMM), hours in the interpreter.
    """
    if quick and spec.quick_cases:
        return spec.quick_cases
    cases = spec.cases + [c for c in spec.quick_cases if c not in spec.cases]
    if quick and cases:
        return [min(cases, key=lambda c: case_elements(spec, c))]
    if cases:
        return cases
    default = dict(spec.default_shape)
    if case_elements(spec, default) > FALLBACK_MAX_ELEMENTS:
        dims = ", ".join(f"{k}={v}" for k, v in default.items())
        raise UserError(f"{spec.name} has no cases, and its default shape ({dims}) holds "
                        f"{case_elements(spec, default):,} elements, more than the {FALLBACK_MAX_ELEMENTS:,} "
                        f"the interpreter is given by default; pass --shape, or give the spec `cases=`")
    return [default]


def case_elements(spec: KernelSpec, case: dict) -> int:
    """Elements in all of a case's tensors: the size measure for picking the smallest case."""
    sizes, _ = runner.split_case(case)
    shape = {**spec.default_shape, **sizes}
    return sum(math.prod(t.dims(shape)) for t in spec.tensors.values())


def run_check(kernel: str | None = None, all_kernels: bool = False, quick: bool = False, shape: dict | None = None,
              dtype: str | None = None, meta: dict | None = None, num_warps: int | None = None,
              num_stages: int | None = None, seed: int = 0, interpreter: bool = False, progress=None,
              timeout: float | None = DEFAULT_CASE_SECONDS) -> Report:
    """What `playground check` does: pick the kernels, cases and dtypes, check each, collect a report.

    `progress(done, total, result)`, if given, is called after each case; `timeout` is the
    per-case limit in the interpreter, in seconds.
    """
    from ..core import registry
    if timeout is not None and timeout <= 0:
        raise UserError(f"--timeout {timeout:g}: must be a positive number of seconds")
    if all_kernels == bool(kernel):
        raise UserError("name one kernel (see `playground list`) or pass --all, not both" if kernel
                        else "name one kernel (see `playground list`) or pass --all")
    runner.require_torch("check")
    specs = registry.load_all() if all_kernels else [registry.load(kernel)]
    if shape and all_kernels:
        raise UserError("--shape needs one kernel, not --all")
    plan = []
    for spec in specs:
        if dtype is not None and dtype not in spec.dtypes:
            if all_kernels:
                continue
            raise UserError(f"--dtype {dtype}: {spec.name} supports {', '.join(spec.dtypes)}")
        cases = [dict(shape)] if shape else cases_for(spec, quick)
        for case in cases:
            for dt in ([dtype] if dtype else list(spec.dtypes)):
                plan.append((spec, case, dt))
    if not plan:
        raise UserError(f"no kernel supports --dtype {dtype}")
    results = []
    for spec, case, dt in plan:
        results.append(check_case(spec, case, dt, meta, num_warps, num_stages, seed, interpreter,
                                  explicit_dtype=dtype is not None, time_limit=timeout))
        if progress:
            progress(len(results), len(plan), results[-1])
    mode = results[0].mode if results else worker.describe(worker.mode(interpreter))
    return Report(mode=mode, results=results, seed=seed)


# --- the report -------------------------------------------------------------------------------

_STYLE = {"pass": "green", "fail": "bold red", "error": "bold red", "skip": "yellow"}


def render(report: Report, debug: bool = False, console=None) -> None:
    """A table, one row per case and output; then what went wrong, case by case; then the counts.

    Skipped cases get no rows: one line per reason says how many were skipped and why.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    console = console or Console(width=None if _is_terminal() else 160, highlight=False)
    shown = [r for r in report.results if r.status != "skip"]
    several = len({r.kernel for r in shown}) > 1
    multi_out = any(len(r.outputs) > 1 for r in shown)
    table = Table(title=f"checked against PyTorch (fp64) on {report.mode}, seed {report.seed}",
                  title_justify="left", header_style="bold")
    if several:
        table.add_column("kernel", no_wrap=True)
    table.add_column("case")
    table.add_column("dtype", no_wrap=True)
    if multi_out:
        table.add_column("output", no_wrap=True)
    for title in ("max abs err", "max rel err", "worst err/tol", "mismatches", "NaN/Inf", "atol, rtol"):
        table.add_column(title, justify="right", no_wrap=True)
    table.add_column("result", no_wrap=True)
    for r in shown:
        for i, o in enumerate(r.outputs or [None]):
            cells = ([r.kernel if i == 0 else ""] if several else []) + \
                    [runner.describe_case(r.case) if i == 0 else "", r.dtype if i == 0 else ""]
            if multi_out:
                cells.append(o.name if o else "")
            if o is None:
                cells += ["", "", "", "", "", ""]
            else:
                cells += [_num(o.max_abs), _num(o.max_rel), _ratio(o.worst), f"{o.mismatches}/{o.total}",
                          _specials(o), f"{o.atol:.2g}, {o.rtol:.2g}"]
            status = r.status if o is None or i == 0 else ("pass" if o.ok and not r.problems else "fail")
            cells.append(Text(status.upper(), style=_STYLE[status]))
            table.add_row(*cells)
    if shown:
        console.print(table)
    for r in shown:
        if r.status == "pass" and not any(o.warnings for o in r.outputs):
            continue
        console.print(Text(f"{r.status.upper()} {r.label}", style=_STYLE[r.status]))
        for reason in r.reasons():
            console.print(f"  {reason}", markup=False, soft_wrap=True)
        for o in r.outputs:
            for m in o.first:
                console.print(f"    {_at(o.name, m.index)}: got {m.got:.6g}, expected {m.expected:.6g}",
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
    counts = report.counts()
    line = ", ".join(f"{counts[s]} {w}" for s, w in (("pass", "passed"), ("fail", "failed"),
                                                     ("error", "crashed"), ("skip", "skipped")) if s in counts)
    console.print(Text(line, style="green" if report.ok else "bold red"))


def _num(x) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.2e}" if (abs(x) < 1e-3 or abs(x) >= 1e4) and math.isfinite(x) else f"{x:.4g}"


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
