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

from dataclasses import asdict, dataclass, field, replace

from .. import compat
from ..core.registry import load, ref
from ..artefact.request import Request
from ..core.spec import KernelSpec
from ..errors import UserError
from ..core import tolerances
from ..core.closeness import OutputCheck, at, compare
from ..run import runner, worker
from ..run.cases import case_elements, describe_case, split_case
from . import margin, registry, variants

DEFAULT_CASE_SECONDS = 600.0          # per case in the interpreter: generous, but not forever
# The most elements (all tensors together) a case the user did not ask for may have: 4M elements
# is about a second of interpreted elementwise work, and a 1024^2 GEMM's operands.
FALLBACK_MAX_ELEMENTS = 4 * 1024 * 1024
# Without --quick, the autotune configs (variants.py) run on every case up to this size (all tensors
# together): a 4096 x 1024 softmax is seconds per run in the interpreter, and the bugs these runs
# expose show on small cases as well (they are in values, strides, tile edges and index arithmetic,
# not in the size).
EXTRA_CASE_ELEMENTS = 1024 * 1024
# The input classes, layouts and every config run on cases up to this size (the probe at least); the larger
# ones take only the configs with the largest tiles. Why, in variants.py's docstring. A 300 x 781 layer norm
# (470K elements) is a second a run interpreted, its 48 x 200 case (20K) 0.03 s.
SMALL_CASE_ELEMENTS = 128 * 1024


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
    kind: str = "values"            # what this run varies: "values", "layouts" or "configs" (variants.py)
    variant: str = "randn"          # the input generator, layout or config it runs with
    findings: list[str] = field(default_factory=list)   # the sanitizers' reports, each naming a kernel line
    wall: float = 0.0               # the whole run, worker round trip and sanitizer reruns included
    guards: dict = field(default_factory=dict)   # seconds of each sanitizer's own work (initcheck: its reruns too)
    same_as: str = ""               # the run whose result this one is (launch options alone differ, interpreted)

    @property
    def ok(self) -> bool:
        return self.status in ("pass", "skip")

    @property
    def label(self) -> str:
        extra = "" if self.variant == "randn" else f" {self.variant}"
        if self.kind == "configs":
            extra += f" ({self.config})"
        return f"{self.kernel} [{describe_case(self.case)}] {self.dtype}{extra}"

    @property
    def guards_fired(self) -> list[str]:
        """The guards (check/registry.py) this run fails, as `check --ref` names them: what the outputs missed, what
        the sanitizers saw, and the class, layout or config the run stands for."""
        if self.status != "fail":
            return []
        named = []
        for finding in self.findings:
            named.append("masked" if finding.startswith("initcheck") else "sanitizer")
        for o in self.outputs:
            for problem in o.problems:
                named.append("memory" if "never written" in problem else "nonfinite" if ("NaN" in problem or
                             "Inf" in problem) else "scale" if "wrote only zeros" in problem else "tolerance")
        named += ["inputs" if "input" in p else "sanitizer" for p in self.problems]
        if self.kind != "values" or self.variant != "randn":
            named.insert(0, self.kind)
        for name in named:
            registry.GUARDS[name]          # a name the registry lacks is a bug here, not the user's
        return list(dict.fromkeys(named))

    def reasons(self) -> list[str]:
        return self.findings + self.problems + [f"{o.name}: {p}" for o in self.outputs for p in o.problems]

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
    sanitizers: str = "off"         # whether memcheck, racecheck and initcheck watched the runs, in words
    wall: float = 0.0               # the whole check, start to end
    workers: int = 1                # interpreter workers that ran cases side by side
    start: float = 0.0              # seconds starting them (0 when they were running already)

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

    def seconds_by_variant(self) -> dict:
        """Wall seconds per input generator, and per layout and config class: what each costs."""
        out = {}
        for r in self.results:
            key = r.variant if r.kind == "values" else r.kind
            out[key] = out.get(key, 0.0) + r.wall
        return out

    def seconds_by_guard(self) -> dict:
        """Seconds each sanitizer's own bookkeeping took over every run (initcheck: its reruns as well): a part
        of seconds_by_part's launches (and of "other", for initcheck's reruns)."""
        out = {"memcheck": 0.0, "racecheck": 0.0, "initcheck": 0.0}
        for r in self.results:
            for guard, seconds in r.guards.items():
                out[guard] = out.get(guard, 0.0) + seconds
        return out

    def seconds_by_part(self) -> dict:
        """Where the check's time went: starting the workers (wall seconds), the launches (the kernels in the
        interpreter, the sanitizers' share included) and the rest of every run ("other": inputs, the fp64
        reference, the comparison, initcheck's reruns, the round trip to the worker). The runs' seconds add up
        over the workers: with several, more than the wall time."""
        return {"start": self.start, "launches": sum(r.seconds for r in self.results),
                "other": sum(max(r.wall - r.seconds, 0.0) for r in self.results)}

    def as_dict(self) -> dict:
        return {"mode": self.mode, "seed": self.seed, "ok": self.ok, "counts": self.counts(),
                "seconds_by_variant": self.seconds_by_variant(), "seconds_by_guard": self.seconds_by_guard(),
                "seconds_by_part": self.seconds_by_part(), "wall": self.wall, "workers": self.workers, "sanitizers": self.sanitizers,
                "results": [{**asdict(r), "guards_fired": r.guards_fired} for r in self.results]}


def check_case(spec: KernelSpec, case: dict, dtype: str | None = None, meta: dict | None = None,
               num_warps: int | None = None, num_stages: int | None = None, seed: int = 0,
               interpreter: bool = False,
               time_limit: float | None = DEFAULT_CASE_SECONDS, variant: variants.Variant = variants.PLAIN,
               sanitize: bool = True, slot: int = 0) -> CaseResult:
    """Run `spec` on one case and compare with its reference. Bad input raises UserError.

    `variant` says which inputs, layout or config (variants.py); `sanitize` watches the run in the
    interpreter (sanitize.py). A case still running in the interpreter after `time_limit` seconds
    is stopped and fails alone. `slot`: which interpreter worker runs it (worker.py).
    """
    import time
    started = time.perf_counter()
    case = {**case, **variant.layout}
    run_mode = worker.mode(force_interpreter=interpreter)
    mode_label = worker.describe(run_mode)
    labels = dict(kind=variant.kind, variant=variant.name)
    try:
        config = _resolve(spec, case, dtype, meta, num_warps, num_stages, variant)
    except UserError as e:
        if variant == variants.PLAIN:
            raise
        # a config of the autotune space (or a long reduction) the kernel's constraints refuse for this case
        return CaseResult(kernel=spec.name, case=case, dtype=dtype or spec.dtype, mode=mode_label,
                          config=str(variant.config or ""), status="skip", problems=[f"does not apply: {e}"],
                          **labels)
    common = dict(kernel=spec.name, case=case, dtype=config.dtype, mode=mode_label, config=config.describe(),
                  **labels)
    try:
        result = worker.call(execute, run_mode, time_limit=time_limit, slot=slot, ref=ref(spec), case=case,
                             config=config,
                             seed=seed, run_mode=run_mode, mode_label=mode_label, generator=variant.generator,
                             sanitize=sanitize, measured=variant.name not in margin.TABLE_ONLY_RUNS)
        result.kind, result.variant = labels["kind"], labels["variant"]
        if variant.kind == "layouts" and result.status == "error" and "16-byte aligned" in " ".join(result.problems):
            # a TMA descriptor's rule (cuTensorMapEncodeTiled: aligned base and row strides), which
            # Triton asserts: the kernel refuses this layout rather than computing it wrong
            result.status, result.traceback = "skip", None
            result.problems = [f"does not apply: the kernel needs 16-byte aligned tensors ({result.problems[0]})"]
    except worker.WorkerDied as e:
        result = CaseResult(**common, status="error", problems=[str(e)])
    result.wall = time.perf_counter() - started
    return result


def _resolve(spec: KernelSpec, case: dict, dtype, meta, num_warps, num_stages, variant: variants.Variant):
    """The config a launch of `case` (its layout merged in) uses, spec.constraints checked; UserError if refused.
    The kernel itself runs through its own JIT."""
    sizes, layout = split_case(case)
    merged_meta = {**layout.get("meta", {}), **(meta or {})}
    if variant.config is not None:
        from ..core.spec import split_config
        config_meta, num_warps, num_stages = split_config(variant.config)
        merged_meta = {**merged_meta, **config_meta}
    return Request.of(spec, "native", merged_meta, num_warps, num_stages, sizes, dtype).config


def _interpreted_alike(plan: list, meta, num_warps, num_stages) -> dict[int, int]:
    """Plan index of a config run -> the index of an earlier run the interpreter cannot tell from it: the same
    case, layout, dtype, inputs, kernel parameters and pre_hook, the config differing in launch options alone
    (num_warps, num_stages). An interpreted kernel never sees those (Triton's interpreter drops them), so the
    run would repeat the earlier one bit for bit: it is not run again. Gluon kernels, whose layouts are built
    from num_warps, always run."""
    from ..core.spec import config_hook
    seen, alike = {}, {}
    for i, (spec, case, dt, variant) in enumerate(plan):
        if variant.kind not in ("values", "configs") or "gluon" in type(spec.kernel).__module__:
            continue
        full = {**case, **variant.layout}
        try:
            config = _resolve(spec, full, dt, meta, num_warps, num_stages, variant)
        except UserError:
            continue
        key = (id(spec), repr(sorted(full.items(), key=lambda kv: kv[0])), config.dtype, variant.generator,
               repr(sorted(config.meta.items())), config_hook(spec, config))
        if key in seen and variant.kind == "configs":
            alike[i] = seen[key]
        else:
            seen.setdefault(key, i)
    return alike


def execute(ref: str, case: dict, config, seed: int, run_mode: str, mode_label: str, generator: str = "randn",
            sanitize: bool = False, measured: bool = True) -> CaseResult:
    """Where kernels run: launch once, compare each output. Crashes become an "error" result.

    In the interpreter with `sanitize`, the launch is watched (memcheck, racecheck) and the
    masked-out lanes of `other`-less loads read poison (sanitize._poison). Should the case then
    fail, it runs again reading zeros, as Triton's interpreter does: outputs that differ between
    the two runs are reached by undefined values (initcheck), and the report shows the zero run's
    comparison.
    """
    import time
    spec = load(ref)
    _, layout = split_case(case)
    common = dict(kernel=spec.name, case=case, dtype=config.dtype, mode=mode_label, config=config.describe())
    device = "cuda" if run_mode == worker.CUDA else "cpu"
    sanitizing = sanitize and run_mode == worker.INTERPRETER
    if run_mode == worker.INTERPRETER:
        from ..run import interpreter
        interpreter.install()            # bf16 math and grid dependency control as a GPU does them

    def launch(**options):
        return runner.run(spec, spec.kernel, config.shape, layout, config.dtype, config, seed, device, generator,
                          sanitize=options if sanitizing else None,
                          yardstick=measured and generator not in margin.TABLE_ONLY_CLASSES)

    guards = {}
    try:
        run = launch()
        scales = _output_scales(spec, config, seed, generator, run)
        outputs = _compare_outputs(spec, config, run, scales, run.native)
        findings = [str(f) for f in run.sanitizer.findings] if run.sanitizer else []
        guards = dict(run.sanitizer.spent) if run.sanitizer else {}
        failed = run.problems or any(not o.ok for o in outputs)
        if failed and run.sanitizer and run.sanitizer.uninitialised_sites:
            started = time.perf_counter()
            zero = launch(poison=False)
            changed = _changed(run.got, zero.got)
            if changed:
                lines = _initcheck_lines(launch, run.sanitizer, zero)
                findings.append(str(run.sanitizer.initcheck_finding(lines, list(changed), sum(changed.values()))))
                run, outputs = zero, _compare_outputs(spec, config, zero, scales, zero.native)
            guards["initcheck"] += time.perf_counter() - started
    except UserError:
        raise
    except Exception as e:
        import traceback
        return CaseResult(**common, status="error", problems=[runner.crash_message(e, spec, config)],
                          traceback=traceback.format_exc())
    failed = run.problems or findings or any(not o.ok for o in outputs)
    if any(not o.ok and o.dtype in ("fp16", "bf16") for o in outputs):
        _say_if_eager_misses_too(spec, config, seed, generator, run, outputs)
    return CaseResult(**common, status="fail" if failed else "pass", outputs=outputs, problems=run.problems,
                      seconds=run.seconds, findings=findings, guards=guards)


def _say_if_eager_misses_too(spec: KernelSpec, config, seed: int, generator: str, run, outputs) -> None:
    """A 16-bit output that fails: would PyTorch itself, computing in that dtype, fail the same way?
    If so, say it. The kernel keeps 16-bit intermediates where fp32 ones rounded once would pass."""
    try:
        values = runner._input_values(spec, config.shape, config.dtype, seed, generator)
        eager = runner.reference_outputs(spec, values, config.shape, config.meta, widen=False)
    except Exception:          # a reference that cannot run in 16 bits on the CPU: nothing to say
        return
    for o in outputs:
        if o.ok or o.dtype not in ("fp16", "bf16") or o.name not in eager:
            continue
        mine = compare(o.name, eager[o.name].to(run.got[o.name].dtype), run.expected[o.name], o.dtype,
                       tolerances.Tolerance(o.atol, o.rtol))
        if mine.mismatches:
            o.warnings.append(f"eager PyTorch in {o.dtype} misses this tolerance too ({mine.mismatches} of "
                              f"{mine.total} elements): intermediates kept in {o.dtype} round at every step; "
                              f"fp32 intermediates rounded once at the store stay inside it")


def _output_scales(spec: KernelSpec, config, seed: int, generator: str, run) -> dict:
    """Output name -> how much larger its values are under a scaling generator (x100, near overflow)
    than under randn: the mean |reference| of each, the randn one from the same shape and seed.

    tolerances.py's atol is an absolute slack sized for N(0, 1) inputs; the rounding errors of a
    correct kernel grow with the magnitudes it handles (a GEMM's products are 10^4 times larger
    under x100), so the atol grows with the outputs. rtol needs no change. Never below 1."""
    from ..run import inputs
    if generator not in inputs.SCALING:
        return {}
    plain = runner.reference_outputs(spec, inputs.values(spec, config.shape, config.dtype, seed, "randn"),
                                     config.shape, config.meta)
    return {name: _magnitude(run.expected[name]) / max(_magnitude(plain[name]), 1e-300) for name in spec.outputs}


def _magnitude(t) -> float:
    finite = t[t.isfinite()] if t.is_floating_point() else t
    return float(finite.double().abs().mean()) if finite.numel() else 0.0


def _compare_outputs(spec: KernelSpec, config, run, scales: dict | None = None,
                     native: dict | None = None) -> list[OutputCheck]:
    """Each output against its fp64 reference: by check/margin.py's rule where PyTorch's own output in the kernel's
    dtype (`native`) measures it, with the table beside it unscaled by the reduction length; by the table alone,
    its atol scaled by that length, where it does not."""
    length = config.shape.get(spec.reduction_dim, 1) if spec.reduction_dim else 1
    outputs = []
    for name in spec.outputs:
        out_dtype = spec.tensor_dtype(name, config.dtype)
        got = run.got[name]
        yardstick = (native or {}).get(name)
        measurable = margin.usable(got, run.expected[name], yardstick)
        tol = tolerances.for_output(spec.name, out_dtype, 1 if measurable else length)
        scale = max((scales or {}).get(name, 1.0), 1.0)
        if scale > 1:
            tol = tolerances.Tolerance(atol=tol.atol * scale, rtol=tol.rtol)
        unwritten = runner.unwritten(got, out_dtype)
        result = compare(name, got, run.expected[name], out_dtype, tol, unwritten)
        if measurable:
            margin.judge(result, got, run.expected[name], yardstick, out_dtype, tol, unwritten)
        outputs.append(result)
    return outputs


def _changed(one: dict, other: dict) -> dict:
    """Output name -> elements whose bits differ between two runs (only the outputs that differ)."""
    out = {}
    for name, t in one.items():
        count = int((runner._bits(t) != runner._bits(other[name])).sum())
        if count:
            out[name] = count
    return out


MAX_INITCHECK_RERUNS = 4


def _initcheck_lines(launch, sanitizer, zero) -> list[str]:
    """Which of the `other`-less loads reach an output: each poisoned alone (a few at most)."""
    sites = list(sanitizer.uninitialised_sites)
    if len(sites) == 1:
        return sites
    culprits = [line for line in sites[:MAX_INITCHECK_RERUNS]
                if _changed(launch(poison_sites={line}).got, zero.got)]
    return culprits or sites


def _warm() -> None:
    """What a worker's first run would import: torch, Triton's interpreter, the check itself (this module)."""
    import torch  # noqa: F401
    compat.reach("interpreter")
    from ..run import sanitize  # noqa: F401


def _run_plan(plan: list, one, slots: int, progress=None) -> list[CaseResult]:
    """Every run of the plan, its results in the plan's order; on `slots` interpreter workers at once.

    Several workers take the largest cases first (by elements), so that the small ones fill in at the end;
    `progress` hears of each result as it comes. An error stops the runs not yet started; an interrupt
    (Ctrl-C, a signal) kills the workers, so no case runs on after it."""
    if slots <= 1:
        results = []
        for item in plan:
            results.append(one(item, 0))
            if progress:
                progress(len(results), len(plan), results[-1])
        return results
    import queue
    from concurrent.futures import ThreadPoolExecutor, as_completed
    free = queue.SimpleQueue()
    for slot in range(slots):
        free.put(slot)

    def on_a_free_worker(item):
        slot = free.get()
        try:
            return one(item, slot)
        finally:
            free.put(slot)

    order = sorted(range(len(plan)), key=lambda i: -case_elements(plan[i][0], plan[i][1]))
    results: list = [None] * len(plan)
    pool = ThreadPoolExecutor(slots, thread_name_prefix="check")
    futures = {}
    try:
        futures = {pool.submit(on_a_free_worker, plan[i]): i for i in order}
        for done, future in enumerate(as_completed(futures), 1):
            results[futures[future]] = future.result()
            if progress:
                progress(done, len(plan), results[futures[future]])
    except Exception:
        for future in futures:
            future.cancel()
        raise
    except BaseException:
        for future in futures:
            future.cancel()
        worker.stop_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results


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
                        f"the interpreter is given by default; pass `shape`, or give the spec `cases=`")
    return [default]


def run_check(specs: list[KernelSpec], all_kernels: bool = False, quick: bool = False, shape: dict | None = None,
              dtype: str | None = None, meta: dict | None = None, num_warps: int | None = None,
              num_stages: int | None = None, seed: int = 0, interpreter: bool = False, progress=None,
              timeout: float | None = DEFAULT_CASE_SECONDS, kinds: tuple = variants.KINDS) -> Report:
    """What `playground check` does: pick the cases and dtypes of each spec, check each, collect a report.

    `all_kernels`: the specs are every kernel in kernels/ (`--all`), so a dtype one of them lacks
    skips it rather than failing. `progress(done, total, result)`, if given, is called after each
    case; `timeout` is the per-case limit in the interpreter, in seconds. `kinds`: which of
    variants.KINDS run besides the plain cases (values, layouts, configs) and whether the
    sanitizers watch the interpreter ("sanitizers"); () is the plain check alone.
    """
    if timeout is not None and timeout <= 0:
        raise UserError(f"timeout {timeout:g}: must be a positive number of seconds", param="timeout")
    runner.require_torch("check")
    if shape and all_kernels:
        raise UserError("shape needs one kernel, not `all`", param="shape")
    import time
    started = time.perf_counter()
    interpreting = worker.mode(interpreter) == worker.INTERPRETER
    fixed_config = bool(meta) or num_warps is not None or num_stages is not None
    plan = []
    for spec in specs:
        if dtype is not None and dtype not in spec.dtypes:
            if all_kernels:
                continue
            raise UserError(f"dtype {dtype}: {spec.name} supports {', '.join(spec.dtypes)}", param="dtype")
        cases = [dict(shape)] if shape else cases_for(spec, quick)
        dts = [dtype] if dtype else list(spec.dtypes)
        plan += [(spec, case, dt, variants.PLAIN) for case in cases for dt in dts]
        probe = variants.probe_case(spec, cases)
        extra_cases = [probe] if quick and not shape else \
            [c for c in cases if case_elements(spec, c) <= EXTRA_CASE_ELEMENTS] or [probe]
        small = [c for c in extra_cases if case_elements(spec, c) <= SMALL_CASE_ELEMENTS]
        small = small if probe in small or any(split_case(c)[0] == probe for c in small) else [probe] + small
        plan += [(spec, case, dt, v) for case, dt, v in
                 variants.extra(spec, probe, dts, set(kinds), fixed_config, quick, seed, extra_cases, small)]
    if not plan:
        raise UserError(f"no kernel supports `dtype` {dtype}")
    def one(item, slot: int) -> CaseResult:
        spec, case, dt, variant = item
        return check_case(spec, case, dt, meta, num_warps, num_stages, seed, interpreter, time_limit=timeout,
                          variant=variant, sanitize="sanitizers" in kinds, slot=slot)

    alike = _interpreted_alike(plan, meta, num_warps, num_stages) if interpreting else {}
    runs = [item for i, item in enumerate(plan) if i not in alike]
    slots = worker.parallel_slots(worker.mode(interpreter), len(runs),
                                  sum(case_elements(spec, case) for spec, case, _, _ in runs))
    start = worker.start(worker.mode(interpreter), slots, _warm)     # before any run, so no run's time holds it
    told = (lambda count, _, result: progress(count, len(plan), result)) if progress else None
    done = iter(_run_plan(runs, one, slots, told))
    results = []
    for i, (spec, case, dt, variant) in enumerate(plan):
        if i in alike:
            same = results[alike[i]]
            config = _resolve(spec, {**case, **variant.layout}, dt, meta, num_warps, num_stages, variant)
            results.append(replace(same, kind=variant.kind, variant=variant.name, config=config.describe(),
                                   seconds=0.0, wall=0.0, guards={}, same_as=same.label))
        else:
            results.append(next(done))
    if progress and alike:
        progress(len(plan), len(plan), results[-1])
    mode = results[0].mode if results else worker.describe(worker.mode(interpreter))
    if "sanitizers" not in kinds:
        sanitizers = "off (--no-sanitize)"
    elif interpreting:
        sanitizers = "memcheck, racecheck and initcheck watched every run"
    else:
        sanitizers = "off on a GPU: they watch Triton's interpreter (add --interpreter)"
    return Report(mode=mode, results=results, seed=seed, sanitizers=sanitizers,
                  wall=time.perf_counter() - started, workers=slots, start=start)
