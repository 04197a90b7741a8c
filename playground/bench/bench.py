"""Throughput against PyTorch: measured on a GPU, modelled (roofline.py) everywhere else.

Measured: `triton.testing.do_bench` (L2 flushed before each run) or `do_bench_cudagraph` times the
Triton kernel and the spec's PyTorch baseline on the same inputs, after the output has been checked
against the spec's reference; the output is checked again after the timed runs. Every sample is
kept; we report the median and the 20th/80th percentiles (the quantiles Triton's own perf reports
use). Throughput uses the spec's FLOP and byte counts: TFLOP/s = FLOPs / median, GB/s = bytes / median.

Guards say when a number is not to be trusted: bandwidth or FLOP/s above the device's peak, a
speedup over PyTorch beyond 10x, and a time that an empty kernel launch nearly matches.

This module imports torch only inside the functions that run kernels.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
from dataclasses import dataclass, field

from ..errors import KernelFailure, UserError
from ..core import dtypes

QUANTILES = (0.2, 0.5, 0.8)
SPEEDUP_GUARD = 10.0          # a Triton kernel 10x faster than PyTorch's is usually a broken comparison
LAUNCH_GUARD = 2.0            # a kernel under twice an empty launch is mostly launch
NOISE_SPREADS = 3.0           # "within noise": the gap to an empty launch is under 3 x the spread (q80 - q20)


# ---- statistics --------------------------------------------------------------------------------

def quantile(samples: list[float], q: float) -> float:
    """Linear interpolation between order statistics: numpy's default, and triton.testing's `_quantile`."""
    if not samples:
        raise ValueError("no samples")
    if not 0 <= q <= 1:
        raise ValueError(f"quantile {q} outside [0, 1]")
    a = sorted(samples)
    point = q * (len(a) - 1)
    lo, hi = math.floor(point), math.ceil(point)
    return a[lo] + (a[hi] - a[lo]) * (point - lo)


@dataclass
class Timing:
    """Every sample of one timed function, in milliseconds, and the statistics we report."""
    samples_ms: list[float]

    def __post_init__(self):
        if not self.samples_ms:
            raise ValueError("a timing needs at least one sample")

    @property
    def n(self) -> int:
        return len(self.samples_ms)

    @property
    def median_ms(self) -> float:
        return quantile(self.samples_ms, 0.5)

    @property
    def q20_ms(self) -> float:
        return quantile(self.samples_ms, QUANTILES[0])

    @property
    def q80_ms(self) -> float:
        return quantile(self.samples_ms, QUANTILES[2])

    @property
    def spread_ms(self) -> float:
        return self.q80_ms - self.q20_ms

    @property
    def min_ms(self) -> float:
        return min(self.samples_ms)

    def as_dict(self) -> dict:
        return {"n": self.n, "median_ms": self.median_ms, "q20_ms": self.q20_ms, "q80_ms": self.q80_ms,
                "min_ms": self.min_ms}


def tflops(flops: int, ms: float) -> float:
    return flops / (ms * 1e-3) / 1e12


def gbs(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


# ---- a measured point --------------------------------------------------------------------------

@dataclass
class Measured:
    kernel: str
    target: str
    device: str                   # the GPU's own name
    shape: dict
    dtype: str
    config: str
    flops: int
    bytes: int
    triton: Timing
    torch: Timing | None          # None when the spec names no baseline
    empty_launch: Timing | None   # an empty Triton kernel, timed the same way: the launch floor
    baseline: str                 # the PyTorch call timed
    peak_tflops: float            # the roof that applies (tensor cores or not), for this GPU
    roof: str
    bandwidth_gbs: float
    l2_bytes: int
    method: str                   # "do_bench (L2 flushed)" or "do_bench_cudagraph"
    checked: str = ""             # what the correctness checks said
    warnings: list[str] = field(default_factory=list)
    kind: str = "measured"

    @property
    def tflops(self) -> float:
        return tflops(self.flops, self.triton.median_ms)

    @property
    def gbs(self) -> float:
        return gbs(self.bytes, self.triton.median_ms)

    @property
    def bound(self) -> str:
        """Which roof applies, from the intensity and the ridge point (roofline.py)."""
        ridge = self.peak_tflops * 1e12 / (self.bandwidth_gbs * 1e9)
        return "compute" if self.bytes and self.flops / self.bytes >= ridge else "memory"

    @property
    def percent_of_peak(self) -> float:
        if self.bound == "memory":
            return 100.0 * self.gbs / self.bandwidth_gbs
        return 100.0 * self.tflops / self.peak_tflops

    @property
    def speedup(self) -> float | None:
        return self.torch.median_ms / self.triton.median_ms if self.torch else None

    def as_dict(self) -> dict:
        d = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("triton", "torch", "empty_launch")}
        d.update(triton=self.triton.as_dict(), torch=self.torch.as_dict() if self.torch else None,
                 empty_launch=self.empty_launch.as_dict() if self.empty_launch else None,
                 time_us=self.triton.median_ms * 1e3, tflops=self.tflops, gbs=self.gbs,
                 percent_of_peak=self.percent_of_peak, bound=self.bound, speedup=self.speedup)
        if self.torch:
            d.update(torch_tflops=tflops(self.flops, self.torch.median_ms),
                     torch_gbs=gbs(self.bytes, self.torch.median_ms))
        return d


def guards(m: Measured) -> list[str]:
    """Warnings for numbers that cannot be right, or cannot be told apart from noise."""
    out = []
    sides = [("Triton", m.triton)] + ([("PyTorch", m.torch)] if m.torch else [])
    for who, t in sides:
        bw = gbs(m.bytes, t.median_ms)
        if bw > m.bandwidth_gbs:
            where = (f"the {m.bytes / 2**20:.3g} MiB fit in the {m.l2_bytes / 2**20:.3g} MiB L2, so runs can be "
                     f"served from it" if m.bytes <= m.l2_bytes else "the spec's byte count may be too high")
            flush = "; do_bench_cudagraph does not flush the L2 between runs" if "cudagraph" in m.method else ""
            out.append(f"{who}: {bw:.4g} GB/s is above the device's peak of {m.bandwidth_gbs:.4g} GB/s: "
                       f"{where}{flush}")
        tf = tflops(m.flops, t.median_ms)
        if tf > m.peak_tflops:
            out.append(f"{who}: {tf:.4g} TFLOP/s is above the peak of {m.peak_tflops:.4g} TFLOP/s ({m.roof}): "
                       f"the spec's FLOP count may be too high")
    if m.speedup is not None and m.speedup > SPEEDUP_GUARD:
        out.append(f"Triton is {m.speedup:.1f}x faster than {m.baseline}: beyond {SPEEDUP_GUARD:g}x, check that "
                   f"both compute the same thing at the same precision and size")
    if m.empty_launch:
        e, t = m.empty_launch, m.triton
        gap = t.median_ms - e.median_ms
        if t.median_ms < LAUNCH_GUARD * e.median_ms or gap <= NOISE_SPREADS * max(t.spread_ms, e.spread_ms):
            out.append(f"the kernel's {t.median_ms * 1e3:.3g} us is within noise of an empty launch "
                       f"({e.median_ms * 1e3:.3g} us): mostly launch overhead is measured; try a larger shape "
                       f"or --cuda-graph")
    return out


# ---- what bench returns ------------------------------------------------------------------------

@dataclass
class BenchResult:
    kind: str                          # "measured" or "modelled"
    kernel: str
    target: str
    device: str
    points: list                       # Measured or roofline.Model, one per shape
    sweep_dim: str | None = None
    reason: str = ""                   # why modelled (no GPU here, another target named)

    def as_dict(self) -> dict:
        d = {"kind": self.kind, "kernel": self.kernel, "target": self.target, "device": self.device,
             "sweep": self.sweep_dim, "reason": self.reason, "points": [p.as_dict() for p in self.points]}
        if self.kind == "modelled":
            from ..figures.roofline import MEASURE_HINT
            d["how_to_measure"] = MEASURE_HINT
        return d


def parse_sweep(text: str, spec) -> tuple[str, list[int]]:
    """`N=256..32768` -> ("N", [256, 512, ..., 32768]): doubling from LO up to HI, the range grammar
    `sweep -m` uses too (params.doubling). `N=100,1000,4096` lists the values instead."""
    from ..core.params import doubling
    dim, eq, values = text.partition("=")
    dim = dim.strip()
    if not eq or not dim or not values.strip():
        raise UserError(f"--sweep '{text}': expected DIM=LO..HI (doubling from LO) or DIM=A,B,C")
    if dim not in spec.default_shape:
        raise UserError(f"--sweep {dim}: {spec.name} has dimensions {', '.join(spec.default_shape)}")
    if ".." in values:
        return dim, doubling(values.strip(), f"--sweep {dim}")
    try:
        points = [int(v) for v in values.split(",")]
    except ValueError:
        raise UserError(f"--sweep '{text}': sizes are positive integers") from None
    if any(p < 1 for p in points):
        raise UserError(f"--sweep '{text}': sizes are positive integers")
    return dim, points


def measurable(target) -> str:
    """Why this target cannot be measured here, or "" when it can."""
    from ..core import targets
    native = targets.native()
    if native is None:
        return "no GPU on this machine"
    if native.name != target.name:
        return f"--target {target.name} is not this machine's GPU ({native.name})"
    try:
        import torch
    except ImportError:
        return "torch is not installed, and the measured path runs the kernel through it"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return ""


def run(request, sweep: str | None = None, cuda_graph: bool = False, num_sms: int | None = None,
        progress: bool = False) -> BenchResult:
    """Measure a request's kernel against PyTorch on the local GPU, or model it for its target: one
    shape, or a sweep of one dimension (`N=1024..65536`) over the request's shape."""
    from ..core import devices
    spec, tgt = request.spec, request.target
    dim, values = parse_sweep(sweep, spec) if sweep else (None, [None])
    reason = measurable(tgt)
    if num_sms is not None and not reason:
        reason = "--num-sms describes another GPU"
    if reason and cuda_graph:
        reason += " (--cuda-graph applies to measurements only)"
    device = devices.with_num_sms(devices.get(tgt.name), num_sms) if reason else None
    points = []
    with _progress(len(values), progress and len(values) > 1, f"{spec.name} {dim or ''}") as advance:
        for value in values:
            point = request.changed(shape={dim: value}) if dim else request
            if reason:
                from ..figures import roofline
                points.append(roofline.model(point.compile(), device))
            else:
                points.append(measure(point, cuda_graph=cuda_graph))
            advance()
    kind = "modelled" if reason else "measured"
    name = device.name if device else points[0].device
    return BenchResult(kind=kind, kernel=spec.name, target=tgt.name, device=name, points=points,
                       sweep_dim=dim, reason=reason)


@contextlib.contextmanager
def _progress(total: int, enabled: bool, label: str):
    """A rich progress bar on stderr for sweeps, drawn only on a terminal."""
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(label.strip(), total=total)
        yield lambda: bar.advance(task)


# ---- the measured path (GPU only) --------------------------------------------------------------

def local_device(target):
    """The local GPU's table: the arch's per-SM rates from devices.py, this GPU's SMs, clock and bandwidth.

    SM count, boost clock, memory clock and bus width come from the driver (Triton's
    get_device_properties). Bandwidth = memory clock x bus width x 2 (double data rate), as
    triton.testing.get_dram_gbps computes it; compute peaks scale with SMs x clock, the datasheets'
    own arithmetic. On AMD the driver's memory clock does not give the datasheet bandwidth, so the
    table's bandwidth stays.
    """
    from triton.runtime import driver

    from ..core import devices
    table = devices.get(target.name)
    index = driver.active.get_device_interface().current_device()
    props = driver.active.utils.get_device_properties(index)
    device = devices.with_num_sms(table, props.get("multiprocessor_count") or table.num_sms)
    clock_ghz = (props.get("sm_clock_rate") or 0) / 1e6 or table.clock_ghz
    scale = clock_ghz / table.clock_ghz if table.clock_ghz else 1.0
    bandwidth = table.mem_bandwidth_gbs
    if table.is_nvidia and props.get("mem_clock_rate") and props.get("mem_bus_width"):
        bandwidth = props["mem_clock_rate"] * props["mem_bus_width"] * 2 / 1e6 / 8
    import torch
    return dataclasses.replace(device, name=torch.cuda.get_device_name(index), clock_ghz=clock_ghz,
                               mem_bandwidth_gbs=bandwidth,
                               peak_tflops={k: v * scale for k, v in device.peak_tflops.items()})


def measure(request, cuda_graph: bool = False) -> Measured:
    """Check, time Triton and PyTorch on the same inputs, check again."""
    import torch
    import triton.testing

    from ..figures import roofline
    spec, target, config = request.spec, request.target, request.config
    if spec.flops is None or spec.bytes is None:
        raise UserError(f"{spec.name}: its spec gives no FLOP or byte count, so there is no throughput to report")
    bench_fn = triton.testing.do_bench_cudagraph if cuda_graph else triton.testing.do_bench
    method = "do_bench_cudagraph" if cuda_graph else "do_bench (L2 flushed before each run)"
    launch, inputs, outputs, check = _prepare(spec, config)
    launch()
    torch.cuda.synchronize()
    check("before timing")
    triton_ms = Timing(bench_fn(launch, return_mode="all"))
    check("after timing")
    baseline = baseline_call(spec, inputs, {**config.meta, **config.shape})
    baseline_problem = ""
    if baseline:
        try:
            baseline_problem = _baseline_mismatch(spec, config, baseline(), check.expected)
        except Exception as e:   # a baseline that cannot run is reported, and not timed
            baseline_problem, baseline = f"it raises {type(e).__name__}: {e}", None
    torch_ms = Timing(bench_fn(baseline, return_mode="all")) if baseline else None
    empty_ms = Timing(bench_fn(_empty_launch(), return_mode="all"))
    device = local_device(target)
    compiled = request.compile()
    peak, roof = roofline.peak_for(device, roofline.matrix_precision(compiled))
    m = Measured(kernel=spec.name, target=target.name, device=device.name, shape=dict(config.shape),
                 dtype=config.dtype, config=config.describe(), flops=spec.flops(config.shape),
                 bytes=spec.bytes(config.shape, dtypes.size(config.dtype)), triton=triton_ms, torch=torch_ms,
                 empty_launch=empty_ms, baseline=spec.torch_baseline, peak_tflops=peak, roof=roof,
                 bandwidth_gbs=device.mem_bandwidth_gbs, l2_bytes=device.l2_bytes, method=method,
                 checked="output matched the reference before and after timing")
    m.warnings = guards(m)
    if baseline_problem:
        m.warnings.insert(0, f"the PyTorch baseline ({spec.torch_baseline}) does not compute the kernel's output, "
                             f"so the speedup compares different work: {baseline_problem}")
    return m


def _baseline_mismatch(spec, config, out, expected: dict) -> str:
    """Whether the baseline computes what the kernel does: its result(s) against the reference's outputs."""
    results = out if isinstance(out, (tuple, list)) else (out,)
    got = dict(zip(spec.outputs, results))
    for name, value in got.items():
        want = tuple(expected[name].shape)
        if tuple(getattr(value, "shape", ())) != want:
            return f"{name} has shape {tuple(getattr(value, 'shape', ()))}, the kernel's has {want}"
    return _mismatch(spec, config, got, {n: expected[n] for n in got})


def _prepare(spec, config, device: str = "cuda"):
    """Inputs on the GPU, outputs allocated, a zero-argument launch, and a check against the reference.

    Tensors come from runner.allocate (seeded inputs, the same the check command uses); the launch
    is runner.run's, without its one-off timing and stray-write scan.
    """
    from ..run import runner
    buffers = runner.allocate(spec, config.shape, {}, config.dtype, seed=0, device=device)
    views = {n: b.view for n, b in buffers.items()}
    inputs = {n: views[n] for n in spec.inputs}
    outputs = {n: views[n] for n in spec.outputs}
    args = spec.args(**views, **config.shape)
    grid = spec.grid(config.shape, config.meta)
    kernel = spec.kernel[grid]

    def launch():
        kernel(*args, **config.meta, num_warps=config.num_warps, num_stages=config.num_stages)

    def check(when: str):
        if check.expected is None:
            check.expected = runner.reference_outputs(spec, inputs, config.shape, config.meta)
        problem = _mismatch(spec, config, outputs, check.expected)
        if problem:
            raise KernelFailure(f"{spec.name}: output does not match the reference {when}: {problem}")
    check.expected = None          # the fp64 reference, computed once, kept for the baseline's check too
    return launch, inputs, outputs, check


def _mismatch(spec, config, got: dict, expected: dict) -> str:
    """The check command's comparison (check.compare, tolerances.for_output); "" when all outputs pass."""
    from ..run import check, tolerances
    length = config.shape.get(spec.reduction_dim, 1) if spec.reduction_dim else 1
    problems = []
    for name in spec.outputs:
        dtype = spec.tensor_dtype(name, config.dtype)
        result = check.compare(name, got[name], expected[name], dtype,
                               tolerances.for_output(spec.name, dtype, length))
        problems += [f"{name}: {p}" for p in result.problems]
    return "; ".join(problems)


def baseline_call(spec, inputs: dict, names: dict | None = None):
    """The spec's PyTorch baseline as a zero-argument call on the same input tensors.

    `torch_baseline` is either an expression over the input names, the problem sizes and the meta-
    parameters ("torch.softmax(x, dim=1)", "F.layer_norm(x, (N,), w, b)",
    "F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)"), or a function name called with the
    inputs in order ("torch.matmul").
    """
    import torch
    text = (spec.torch_baseline or "").strip()
    if not text:
        return None
    scope = {"torch": torch, "F": torch.nn.functional}
    names = {**(names or {}), **inputs}
    try:
        if "(" in text:
            code = compile(text, f"<{spec.name} torch_baseline>", "eval")
            return lambda: eval(code, scope, names)  # noqa: S307 - the spec's own expression
        fn = eval(text, scope)  # noqa: S307 - a dotted name from the spec
    except (SyntaxError, NameError, AttributeError) as e:
        raise UserError(f"{spec.name}: torch_baseline {text!r} is not a PyTorch expression: {e}") from None
    args = tuple(inputs.values())
    return lambda: fn(*args)


_EMPTY = None


def _empty_launch():
    """An empty Triton kernel with one program: what launching alone costs, timed like the kernel."""
    global _EMPTY
    import torch
    import triton
    import triton.language as tl

    if _EMPTY is None:
        @triton.jit
        def empty_kernel(x_ptr, BLOCK: tl.constexpr):
            pass
        _EMPTY = empty_kernel
    x = torch.empty(1, device="cuda")
    return lambda: _EMPTY[(1,)](x, BLOCK=1)


# ---- breakdown: where one call's time goes (GPU only) ------------------------------------------

@dataclass
class Breakdown:
    kernel: str
    device: str
    shape: dict
    dtype: str
    rows: list[tuple[str, Timing, str]]   # (component, timing, how it was measured)
    total: Timing                          # one whole call, end to end, measured on its own
    kind: str = "measured"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "kernel": self.kernel, "device": self.device, "shape": self.shape,
                "dtype": self.dtype, "total": self.total.as_dict(),
                "rows": [{"component": c, "how": how, **t.as_dict()} for c, t, how in self.rows]}


def breakdown(request, reps: int = 20) -> Breakdown:
    """One call from host data to host result, in parts: copy in, launch, kernel, copy out, sync."""
    why = measurable(request.target)
    if why:
        raise UserError(f"--breakdown measures on the GPU and needs a CUDA device: {why}")
    return _breakdown(request.spec, request.config, reps)


def _breakdown(spec, config, reps: int) -> Breakdown:
    import time

    import torch

    launch, inputs, out_gpu, check = _prepare(spec, config)
    device = next(iter(inputs.values())).device
    host = {k: v.cpu() for k, v in inputs.items()}
    launch()                       # compile and warm up outside the timings
    torch.cuda.synchronize()
    check("before timing")
    samples = {k: [] for k in ("h2d", "launch", "kernel", "d2h", "sync", "total")}
    for _ in range(reps):
        # host -> device: pageable host memory, as a user's tensors usually are
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        copies = {k: v.to(device) for k, v in host.items()}
        end.record()
        torch.cuda.synchronize()
        samples["h2d"].append(start.elapsed_time(end))
        del copies
        # launch: host time until the launch call returns (argument binding, cache lookup, driver call)
        t0 = time.perf_counter()
        launch()
        samples["launch"].append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        # kernel: GPU time alone; a sleep keeps the GPU busy while the host enqueues, so the
        # start event fires right before the kernel, not when the host began launching
        torch.cuda._sleep(1_000_000)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        samples["kernel"].append(start.elapsed_time(end))
        # device -> host
        start.record()
        for v in out_gpu.values():
            v.to("cpu")
        end.record()
        torch.cuda.synchronize()
        samples["d2h"].append(start.elapsed_time(end))
        # sync: what torch.cuda.synchronize() costs when nothing is left to wait for
        t0 = time.perf_counter()
        torch.cuda.synchronize()
        samples["sync"].append((time.perf_counter() - t0) * 1e3)
        # the whole call, end to end, on its own
        t0 = time.perf_counter()
        for k, v in host.items():
            inputs[k].copy_(v)
        launch()
        torch.cuda.synchronize()
        for v in out_gpu.values():
            v.to("cpu")
        samples["total"].append((time.perf_counter() - t0) * 1e3)
    check("after timing")
    labels = [("host-to-device copy", "h2d", "CUDA events around the input copies (pageable memory)"),
              ("launch overhead", "launch", "host wall time of the launch call"),
              ("kernel", "kernel", "CUDA events, GPU kept busy while the host enqueues"),
              ("device-to-host copy", "d2h", "CUDA events around the output copies"),
              ("synchronisation", "sync", "host wall time of torch.cuda.synchronize() on an idle GPU")]
    return Breakdown(kernel=spec.name, device=torch.cuda.get_device_name(), shape=dict(config.shape),
                     dtype=config.dtype, rows=[(label, Timing(samples[k]), how) for label, k, how in labels],
                     total=Timing(samples["total"]))


def breakdown_lines(b: Breakdown) -> list[str]:
    shape = ", ".join(f"{k}={v}" for k, v in b.shape.items())
    total = b.total.median_ms
    out = [f"measured    {b.kernel} on {b.device}, {shape}, {b.dtype}: one call, median of {b.total.n}",
           f"{'component':<22}{'time (us)':>12}{'share':>9}  how"]
    for label, t, how in b.rows:
        out.append(f"{label:<22}{t.median_ms * 1e3:>12.4g}{100 * t.median_ms / total:>8.1f}%  {how}")
    parts = sum(t.median_ms for _, t, _ in b.rows)
    out.append(f"{'total (end to end)':<22}{total * 1e3:>12.4g}{100.0:>8.1f}%  measured on its own; the parts "
               f"add to {parts * 1e3:.4g} us")
    return out


# ---- rendering ---------------------------------------------------------------------------------

def lines(result: BenchResult) -> list[str]:
    """One point in detail, or a sweep as a table."""
    from ..figures import roofline
    if result.sweep_dim:
        return table_lines(result)
    p = result.points[0]
    if result.kind == "modelled":
        return roofline.lines(p, result.reason)
    return measured_lines(p)


def measured_lines(m: Measured) -> list[str]:
    shape = ", ".join(f"{k}={v}" for k, v in m.shape.items())
    t = m.triton
    out = [f"measured    {m.kernel} on {m.device} ({m.target}), {shape}, {m.dtype}",
           f"config      {m.config}",
           f"method      {m.method}; median of {t.n} runs, 20th-80th percentile in brackets",
           f"check       {m.checked}",
           f"triton      {_us(t.median_ms)} [{_us(t.q20_ms)} - {_us(t.q80_ms)}]  {m.tflops:.4g} TFLOP/s  "
           f"{m.gbs:.4g} GB/s  {m.percent_of_peak:.1f}% of peak {'bandwidth' if m.bound == 'memory' else 'compute'}"]
    if m.torch:
        tt = m.torch
        out.append(f"pytorch     {_us(tt.median_ms)} [{_us(tt.q20_ms)} - {_us(tt.q80_ms)}]  "
                   f"{tflops(m.flops, tt.median_ms):.4g} TFLOP/s  {gbs(m.bytes, tt.median_ms):.4g} GB/s  "
                   f"({m.baseline})")
        out.append(f"speedup     {m.speedup:.2f}x over PyTorch")
    if m.empty_launch:
        out.append(f"launch      an empty kernel takes {_us(m.empty_launch.median_ms)}")
    out.append(f"peaks       {m.peak_tflops:.4g} TFLOP/s ({m.roof}), {m.bandwidth_gbs:.4g} GB/s -> {m.bound}-bound")
    out += [f"warning     {w}" for w in m.warnings]
    return out


def _us(ms: float) -> str:
    return f"{ms * 1e3:.4g} us"


def columns(result: BenchResult) -> list[str]:
    dims = list(result.points[0].shape)
    if result.kind == "modelled":
        return ["kernel", "target", "device", "kind", *dims, "dtype", "time_us", "tflops", "gbs",
                "percent_of_peak", "bound", "intensity", "waves", "wave_fill"]
    return ["kernel", "target", "device", "kind", *dims, "dtype", "triton_us", "triton_q20_us", "triton_q80_us",
            "tflops", "gbs", "percent_of_peak", "torch_us", "torch_tflops", "torch_gbs", "speedup", "warnings"]


def rows(result: BenchResult) -> list[dict]:
    out = []
    for p in result.points:
        row = {"kernel": p.kernel, "target": p.target, "device": p.device, "kind": p.kind, **p.shape,
               "dtype": p.dtype}
        if result.kind == "modelled":
            e = p.estimate
            row.update(time_us=e.seconds * 1e6, tflops=e.tflops, gbs=e.gbs, percent_of_peak=e.percent_of_peak,
                       bound=e.bound, intensity=e.intensity, waves=e.waves, wave_fill=e.wave_fill)
        else:
            row.update(triton_us=p.triton.median_ms * 1e3, triton_q20_us=p.triton.q20_ms * 1e3,
                       triton_q80_us=p.triton.q80_ms * 1e3, tflops=p.tflops, gbs=p.gbs,
                       percent_of_peak=p.percent_of_peak,
                       torch_us=p.torch.median_ms * 1e3 if p.torch else None,
                       torch_tflops=tflops(p.flops, p.torch.median_ms) if p.torch else None,
                       torch_gbs=gbs(p.bytes, p.torch.median_ms) if p.torch else None,
                       speedup=p.speedup, warnings=" | ".join(p.warnings))
        out.append(row)
    return out


def table_lines(result: BenchResult) -> list[str]:
    dim = result.sweep_dim
    head = (f"{result.kind}    {result.kernel} on {result.target} ({result.device}), sweep over {dim}"
            + (f"; {result.reason}" if result.reason else ""))
    from ..report.report import table
    out = [head]
    if result.kind == "modelled":
        body = [[str(r[dim]), f"{r['time_us']:.4g}", f"{r['tflops']:.4g}", f"{r['gbs']:.4g}",
                 f"{r['percent_of_peak']:.1f}", r["bound"], str(r["waves"] or "-")] for r in rows(result)]
        out += table([dim, "time (us)", "TFLOP/s", "GB/s", "% peak", "bound", "waves"], body, "r" * 7)
        from ..figures.roofline import MEASURE_HINT
        out.append(f"modelled: every row is a roofline with wave quantisation; {MEASURE_HINT}")
        return out
    body = []
    for r in rows(result):
        torch_us = f"{r['torch_us']:.4g}" if r["torch_us"] is not None else "-"
        speedup = f"{r['speedup']:.2f}x" if r["speedup"] is not None else "-"
        body.append([str(r[dim]), f"{r['triton_us']:.4g}", f"{r['triton_q20_us']:.4g}-{r['triton_q80_us']:.4g}",
                     f"{r['tflops']:.4g}", f"{r['gbs']:.4g}", f"{r['percent_of_peak']:.1f}", torch_us, speedup])
    out += table([dim, "triton us", "q20-q80 us", "TFLOP/s", "GB/s", "% peak", "torch us", "speedup"], body, "r" * 8)
    out += [f"warning at {dim}={point.shape.get(dim)}: {w}" for point in result.points for w in point.warnings]
    return out


def to_csv(result: BenchResult) -> str:
    import csv
    import io
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns(result), lineterminator="\n")
    writer.writeheader()
    for r in rows(result):
        writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return buf.getvalue()

