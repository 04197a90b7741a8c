"""The measured path (a CUDA GPU): check, time Triton and the PyTorch baseline on the same inputs, check again.

`triton.testing.do_bench` (L2 flushed before each run) or `do_bench_cudagraph` times the Triton
kernel and the spec's PyTorch baseline on the same inputs, after the output has been checked
against the spec's reference; the output is checked again after the timed runs.

Guards say when a number is not to be trusted: bandwidth or FLOP/s above the device's peak, a
speedup over PyTorch beyond 10x, and a time that an empty kernel launch nearly matches.

torch is imported only inside the functions that run kernels.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .. import compat
from ..core import devices, dtypes
from ..errors import KernelFailure, UserError
from ..figures import roofline
from ..core import closeness, tolerances
from ..run import runner
from .timing import Timing, gbs, tflops

SPEEDUP_GUARD = 10.0          # a Triton kernel 10x faster than PyTorch's is usually a broken comparison
LAUNCH_GUARD = 2.0            # a kernel under twice an empty launch is mostly launch
NOISE_SPREADS = 3.0           # "within noise": the gap to an empty launch is under 3 x the spread (q80 - q20)


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
    clocks: str = ""              # the clocks NVML reported while Triton's runs were timed (environment.py)
    baseline_shared: bool = False  # torch and empty_launch are an earlier config's, at the same shape and inputs
    warnings: list[str] = field(default_factory=list)
    kind: str = "measured"
    modelled: object = None       # the performance model for this GPU (model/explain.Explanation), beside it

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
        d = {k: v for k, v in dataclasses.asdict(self).items()
             if k not in ("triton", "torch", "empty_launch", "modelled")}
        d["modelled"] = self.modelled.as_dict() if self.modelled else None
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


def local_device(target):
    """The local GPU's table: the per-SM rates of its row in devices.py (the named GPU's where the driver's name is
    one of devices.VARIANTS, an L40S say; else the architecture's), this GPU's SMs, clock and bandwidth.

    SM count, boost clock, memory clock and bus width come from the driver (Triton's
    get_device_properties). Bandwidth = memory clock x bus width x 2 (double data rate), as
    triton.testing.get_dram_gbps computes it; compute peaks scale with SMs x clock, the datasheets'
    own arithmetic. On NVIDIA the L2's size is the driver's too (torch's L2_cache_size), which no
    datasheet gives for some parts. On AMD the driver's memory clock does not give the datasheet
    bandwidth, and its L2 is one XCD's, so the table's bandwidth and L2 stay.
    """
    import torch
    driver = compat.reach("driver")
    index = driver.active.get_device_interface().current_device()
    table = devices.for_driver_name(target, torch.cuda.get_device_name(index))
    props = driver.active.utils.get_device_properties(index)
    device = devices.with_num_sms(table, props.get("multiprocessor_count") or table.num_sms)
    clock_ghz = (props.get("sm_clock_rate") or 0) / 1e6 or table.clock_ghz
    scale = clock_ghz / table.clock_ghz if table.clock_ghz else 1.0
    bandwidth, l2_bytes = table.mem_bandwidth_gbs, table.l2_bytes
    if table.is_nvidia and props.get("mem_clock_rate") and props.get("mem_bus_width"):
        bandwidth = props["mem_clock_rate"] * props["mem_bus_width"] * 2 / 1e6 / 8
    if table.is_nvidia:
        l2_bytes = getattr(torch.cuda.get_device_properties(index), "L2_cache_size", 0) or l2_bytes
    return dataclasses.replace(device, name=torch.cuda.get_device_name(index), clock_ghz=clock_ghz,
                               mem_bandwidth_gbs=bandwidth, l2_bytes=l2_bytes,
                               peak_tflops={k: v * scale for k, v in device.peak_tflops.items()})


def measure(request, cuda_graph: bool = False, shared: Measured | None = None) -> Measured:
    """Check, time Triton and PyTorch on the same inputs, check again.

    `shared`: an earlier config's point at the same shape and dtype, whose PyTorch baseline and empty launch
    are the same calls on the same seeded inputs: they are taken from it rather than timed again (`bench
    --config all`), and the point says so (`baseline_shared`).
    """
    import torch
    import triton.testing

    from .environment import ClockWatch

    spec, target, config = request.spec, request.target, request.config
    if spec.flops is None or spec.bytes is None:
        raise UserError(f"{spec.name}: no throughput to report: no FLOP or byte count is known for it (only a KernelSpec gives them)")
    if spec.reference is None:
        # a bare kernel or a trace's variant: its stand-in arguments hold no data to run on or check
        raise UserError(f"{spec.name}: only a kernel with a KernelSpec (inputs and a reference) is measured here; "
                        f"`target` models it, and `playground run` times the script that launches it")
    bench_fn = triton.testing.do_bench_cudagraph if cuda_graph else triton.testing.do_bench
    method = "do_bench_cudagraph" if cuda_graph else "do_bench (L2 flushed before each run)"
    launch, inputs, outputs, check = _prepare(spec, config, row=devices.get(target))
    launch()
    torch.cuda.synchronize()
    check("before timing")
    baseline_problem = ""
    with ClockWatch() as clocks:       # every timed run of this point: Triton's, and PyTorch's where timed here
        triton_ms = Timing(bench_fn(launch, return_mode="all"))
        check("after timing")
        if shared is not None:
            torch_ms, empty_ms = shared.torch, shared.empty_launch
        else:
            baseline = baseline_call(spec, inputs, {**config.meta, **config.shape})
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
    m = Measured(kernel=spec.name, target=target.label, device=device.name, shape=dict(config.shape),
                 dtype=config.dtype, config=config.describe(), flops=spec.flops(config.shape),
                 bytes=spec.bytes(config.shape, dtypes.size(config.dtype)), triton=triton_ms, torch=torch_ms,
                 empty_launch=empty_ms, baseline=spec.torch_baseline, peak_tflops=peak, roof=roof,
                 bandwidth_gbs=device.mem_bandwidth_gbs, l2_bytes=device.l2_bytes, method=method,
                 checked="output matched the reference before and after timing", clocks=clocks.phrase(),
                 baseline_shared=shared is not None)
    m.warnings = guards(m)
    if compiled is not None:
        from ..model import explain
        try:
            m.modelled = explain.explain(compiled, device)
        except UserError:                # a kernel the model cannot place is measured all the same
            pass
    if shared is not None:
        m.warnings += [w for w in shared.warnings if w.startswith("the PyTorch baseline")]
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


def _prepare(spec, config, device: str = "cuda", row=None):
    """Inputs on the GPU, outputs allocated, a zero-argument launch, and a check against the reference.

    Tensors come from runner.allocate (seeded inputs, the same the check command uses); the launch
    is runner.run's, without its one-off timing and stray-write scan. `row`: the device row an args or grid
    function that asks for one is given (the request's target's, so that the launch timed is the one modelled
    beside it: a persistent kernel's 114 programs on an H100 PCIe, not the SXM's 132); this machine's by default.
    """
    buffers = runner.allocate(spec, config.shape, {}, config.dtype, seed=0, device=device)
    views = {n: b.view for n, b in buffers.items()}
    inputs = {n: views[n] for n in spec.inputs}
    outputs = {n: views[n] for n in spec.outputs}
    args = spec.args_for(views, config.shape, row)
    grid = spec.grid_for(config.shape, config.meta, row)
    kernel = spec.kernel[grid]

    def launch():
        kernel(*args, **{**config.meta, "num_warps": config.num_warps, "num_stages": config.num_stages})

    def check(when: str):
        if check.expected is None:
            check.expected = runner.reference_outputs(spec, inputs, config.shape, config.meta)
        problem = _mismatch(spec, config, outputs, check.expected)
        if problem:
            raise KernelFailure(f"{spec.name}: output does not match the reference {when}: {problem}")
    check.expected = None          # the fp64 reference, computed once, kept for the baseline's check too
    return launch, inputs, outputs, check


def _mismatch(spec, config, got: dict, expected: dict) -> str:
    """The check command's comparison (core/closeness.py, tolerances.for_output); "" when all outputs pass."""
    length = config.shape.get(spec.reduction_dim, 1) if spec.reduction_dim else 1
    problems = []
    for name in spec.outputs:
        dtype = spec.tensor_dtype(name, config.dtype)
        result = closeness.compare(name, got[name], expected[name], dtype,
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
