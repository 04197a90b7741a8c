"""Correctness: run a kernel on its cases and compare every output with its PyTorch reference.

`check_case` is the one function the CLI (`playground check`) and the tests both call. It
validates the case here (sizes, dtype, meta, the kernel's constraints: bad input raises UserError
before anything runs), then runs the kernel where it can run (a GPU here, or the interpreter
worker, see worker.py) and compares there, so only small plain-data results travel back.

The reference runs on fp64 copies of the very inputs the kernel saw. Each output is compared
element by element with the tolerance from tolerances.py; the result says how far off it was,
where, and why it failed, in words.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ..core.registry import load, ref
from ..core.request import Request
from ..core.spec import KernelSpec
from ..errors import UserError
from . import runner, tolerances, worker
from .compare import OutputCheck, at, compare

DEFAULT_CASE_SECONDS = 600.0          # per case in the interpreter: generous, but not forever
# The most elements (all tensors together) a case the user did not ask for may have: 4M elements
# is about a second of interpreted elementwise work, and a 1024^2 GEMM's operands.
FALLBACK_MAX_ELEMENTS = 4 * 1024 * 1024
# Triton's interpreter keeps bf16 as raw uint16 bits and does arithmetic on the bits (loads,
# stores and casts are right; add, dot, sum are not). Its maintainers call bf16 unsupported there.
BF16_NOTE = ("bf16 cannot be checked in Triton's interpreter: it computes on bf16's raw bits "
             "(triton-lang/triton#11584); check it on a GPU")


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
            lines += [f"  {at(o.name, m.index)}: got {m.got:.6g}, expected {m.expected:.6g}" for m in o.first[:3]]
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


def check_case(spec: KernelSpec, case: dict, dtype: str | None = None, meta: dict | None = None,
               num_warps: int | None = None, num_stages: int | None = None, seed: int = 0,
               interpreter: bool = False, explicit_dtype: bool = False,
               time_limit: float | None = DEFAULT_CASE_SECONDS) -> CaseResult:
    """Run `spec` on one case and compare with its reference. Bad input raises UserError.

    A case still running in the interpreter after `time_limit` seconds is stopped and fails alone.
    """
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


def run_check(specs: list[KernelSpec], all_kernels: bool = False, quick: bool = False, shape: dict | None = None,
              dtype: str | None = None, meta: dict | None = None, num_warps: int | None = None,
              num_stages: int | None = None, seed: int = 0, interpreter: bool = False, progress=None,
              timeout: float | None = DEFAULT_CASE_SECONDS) -> Report:
    """What `playground check` does: pick the cases and dtypes of each spec, check each, collect a report.

    `all_kernels`: the specs are every kernel in kernels/ (`--all`), so a dtype one of them lacks
    skips it rather than failing. `progress(done, total, result)`, if given, is called after each
    case; `timeout` is the per-case limit in the interpreter, in seconds.
    """
    if timeout is not None and timeout <= 0:
        raise UserError(f"--timeout {timeout:g}: must be a positive number of seconds")
    runner.require_torch("check")
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
