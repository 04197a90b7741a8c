"""bench: statistics, guards and formatting with fake timings; the modelled path and the CLI on CPU;
the measured path on a GPU (marked, skipped without one).
"""
import dataclasses
import json
import struct
from pathlib import Path

import pytest
from conftest import invoke

from playground.core.config import resolve_config
from playground.bench import breakdown as bench_breakdown
from playground.bench import measured, plot, throughput, timing
from playground.bench import text as bench_text
from playground.core import registry, targets
from playground.artefact.request import Request
from playground.errors import UserError
from playground.figures import roofline
from playground import report

ROOT = Path(__file__).resolve().parent.parent

HAS_GPU = targets.native() is not None
gpu = pytest.mark.gpu
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA device")
needs_no_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the answer on a machine without a GPU")


# ---- statistics --------------------------------------------------------------------------------

def test_quantiles_interpolate_like_numpy():
    # 1..10: the 20th percentile sits at position 0.2 * 9 = 1.8 between 2 and 3 -> 2.8; the median at 4.5 -> 5.5;
    # the 80th at 7.2 -> 8.2. numpy.quantile's default (linear) gives the same.
    t = timing.Timing([float(x) for x in (7, 3, 10, 1, 5, 2, 9, 4, 8, 6)])
    assert (t.q20_ms, t.median_ms, t.q80_ms) == pytest.approx((2.8, 5.5, 8.2))
    assert t.spread_ms == pytest.approx(5.4) and t.min_ms == 1.0 and t.n == 10
    import numpy as np
    assert timing.quantile(t.samples_ms, 0.37) == pytest.approx(np.quantile(t.samples_ms, 0.37))


def test_timing_needs_samples():
    with pytest.raises(ValueError):
        timing.Timing([])


def test_throughput_units():
    # 2e12 FLOP in 1 ms is 2000 TFLOP/s; 3e9 bytes in 2 ms is 1500 GB/s.
    assert timing.tflops(2 * 10**12, 1.0) == pytest.approx(2000.0)
    assert timing.gbs(3 * 10**9, 2.0) == pytest.approx(1500.0)


# ---- guards on fake measurements -----------------------------------------------------------------

def fake(triton_ms, torch_ms=None, empty_ms=(0.004,), *, flops=10**6, nbytes=12 * 10**6, method="do_bench",
         shape=None):
    """A vector-add-like point on an H100-like table: 66.9 TFLOP/s fp32, 3352 GB/s, 50 MiB L2."""
    m = measured.Measured(kernel="vector_add", target="sm_90", device="Fake H100", shape=shape or {"N": 10**6},
                       dtype="fp32", config="num_warps=4", flops=flops, bytes=nbytes,
                       triton=timing.Timing(list(triton_ms)), torch=timing.Timing(list(torch_ms)) if torch_ms else None,
                       empty_launch=timing.Timing(list(empty_ms)) if empty_ms else None, baseline="torch.add",
                       peak_tflops=66.9, roof="fp32, no tensor cores", bandwidth_gbs=3352.0, l2_bytes=50 * 2**20,
                       method=method)
    m.warnings = measured.guards(m)
    return m


def test_clean_measurement_has_no_warnings():
    # 12 MB in 5 us = 2400 GB/s (71.6% of 3352); PyTorch in 6 us -> 1.2x; an empty launch takes 2 us,
    # so 5 us is more than twice the launch floor and 3 us clear of it with no spread.
    m = fake([0.005] * 5, [0.006] * 5, empty_ms=[0.002] * 5)
    assert m.gbs == pytest.approx(2400.0) and m.percent_of_peak == pytest.approx(71.599, rel=1e-4)
    assert m.speedup == pytest.approx(1.2) and m.bound == "memory"
    assert m.warnings == []


def test_bandwidth_above_peak_is_flagged_with_the_l2_reason():
    # 12 MB in 3 us = 4000 GB/s > 3352; the 11.4 MiB fit in the 50 MiB L2.
    m = fake([0.003] * 5, empty_ms=[0.0005] * 5)
    assert len(m.warnings) == 1
    assert "4000 GB/s is above the device's peak of 3352 GB/s" in m.warnings[0] and "L2" in m.warnings[0]
    cg = fake([0.003] * 5, empty_ms=[0.0005] * 5, method="do_bench_cudagraph")
    assert "does not flush the L2" in cg.warnings[0]


def test_flops_above_peak_is_flagged():
    m = fake([1.0] * 3, flops=10**11, nbytes=10**6, empty_ms=None)   # 100 TFLOP/s > 66.9
    assert any("TFLOP/s is above the peak" in w for w in m.warnings)


def test_speedup_over_ten_is_flagged():
    m = fake([0.010] * 5, [0.120] * 5, empty_ms=[0.002] * 5)
    assert m.speedup == pytest.approx(12.0)
    assert any("12.0x faster than torch.add" in w for w in m.warnings)


def test_time_near_an_empty_launch_is_flagged():
    # 5 us against a 4 us empty launch: under twice the launch floor.
    m = fake([0.005] * 5, empty_ms=[0.004] * 5)
    assert any("within noise of an empty launch" in w for w in m.warnings)
    # 20 us with a spread of 12 us (samples 10..30) against 4 us: the 16 us gap is under 3 x the spread.
    noisy = fake([0.010, 0.015, 0.020, 0.025, 0.030], empty_ms=[0.004] * 5)
    assert any("within noise" in w for w in noisy.warnings)
    steady = fake([0.020] * 5, empty_ms=[0.004] * 5)
    assert not any("within noise" in w for w in steady.warnings)


# ---- formatting -----------------------------------------------------------------------------------

def sweep_result(points, kind="measured"):
    return throughput.BenchResult(kind=kind, kernel="vector_add", target="sm_90", device="Fake H100", points=points,
                             sweep_dim="N")


def test_measured_lines():
    m = fake([0.005, 0.005, 0.006], [0.006] * 3, empty_ms=[0.002] * 3)
    text = "\n".join(bench_text.measured_lines(m))
    assert text.startswith("measured    vector_add on Fake H100")
    assert "triton      5 us [5 us - 5.6 us]" in text and "2400 GB/s" in text and "71.6% of peak bandwidth" in text
    assert "speedup     1.20x over PyTorch" in text and "modelled" not in text


def test_csv_and_json_of_a_measured_sweep():
    points = [fake([t] * 3, [2 * t] * 3, empty_ms=[0.001] * 3, shape={"N": n})
              for n, t in ((1024, 0.01), (2048, 0.02))]
    result = sweep_result(points)
    lines = bench_text.csv(result).splitlines()
    assert lines[0].split(",")[:9] == ["kernel", "target", "device", "kind", "N", "dtype", "triton_us",
                                       "triton_q20_us", "triton_q80_us"]
    assert lines[1].startswith("vector_add,sm_90,Fake H100,measured,1024,fp32,10.0,")
    assert len(lines) == 3
    data = json.loads(report.to_json(result))
    assert data["kind"] == "measured" and [p["speedup"] for p in data["points"]] == [2.0, 2.0]
    table = bench_text.table_lines(result)
    assert table[0].startswith("measured") and "2.00x" in table[2]


# ---- sweeps --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("N=256..32768", ("N", [256, 512, 1024, 2048, 4096, 8192, 16384, 32768])),
    ("N=100..1000", ("N", [100, 200, 400, 800])),   # the grammar of sweep -m: doubling from LO
    ("N=1..1", ("N", [1])),
    ("N=781,1024", ("N", [781, 1024])),
])
def test_parse_sweep(text, expected):
    assert throughput.parse_sweep(text, registry.load("softmax")) == expected


def test_bench_and_sweep_read_a_range_alike():
    from playground.sweep import space
    assert throughput.parse_sweep("N=100..800", registry.load("softmax"))[1] == \
        space.parse_ranges("BLOCK_SIZE=100..800")["BLOCK_SIZE"] == [100, 200, 400, 800]


@pytest.mark.parametrize("text, message", [
    ("Q=1..4", "softmax has dimensions M, N"),
    ("N=10..5", "up to B >= A"),
    ("N=abc", "positive integers"),
    ("N=5..x", "a range is two integers"),
    ("N", "expected DIM=LO..HI"),
])
def test_parse_sweep_errors(text, message):
    with pytest.raises(UserError, match=message):
        throughput.parse_sweep(text, registry.load("softmax"))


# ---- the modelled path ---------------------------------------------------------------------------

@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(throughput, "measurable", lambda target: "no GPU on this machine")


def test_run_models_a_sweep_without_a_gpu(no_gpu):
    result = throughput.run(Request.of("softmax", "sm_90", shape={"M": 1024}), sweep="N=256..1024")
    assert result.kind == "modelled" and result.reason == "no GPU on this machine"
    assert [p.shape["N"] for p in result.points] == [256, 512, 1024]
    assert all(isinstance(p, roofline.Model) and p.kind == "modelled" for p in result.points)
    # bytes = 2 * M * N * 4: doubling N doubles the traffic
    assert [p.estimate.bytes for p in result.points] == [2 * 1024 * n * 4 for n in (256, 512, 1024)]
    table = bench_text.table_lines(result)
    assert all("measured" not in line for line in table) and "modelled" in table[-1]
    rows = bench_text.csv(result).splitlines()
    assert rows[0].startswith("kernel,target,device,kind,M,N,dtype,time_us") and ",modelled,1024,256," in rows[1]


def test_another_target_is_modelled_even_with_a_gpu(monkeypatch):
    monkeypatch.setattr(targets, "native", lambda: targets.TARGETS["sm_80"])
    assert throughput.measurable(targets.resolve("sm_90")) == "--target sm_90 is not this machine's GPU (sm_80)"


def test_a_named_gpu_is_measured_only_on_that_gpu(monkeypatch):
    """--target l40s on an RTX 4090 (both sm_89) would time the 4090 and show the L40S's peaks beside it."""
    import torch
    monkeypatch.setattr(targets, "native", lambda: targets.TARGETS["sm_89"])
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA GeForce RTX 4090")
    assert throughput.measurable(targets.resolve("l40s")) == \
        "--target l40s names the L40S; this machine's GPU is the NVIDIA GeForce RTX 4090"
    assert throughput.measurable(targets.resolve("sm_89")) == ""
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA L40S")
    assert throughput.measurable(targets.resolve("l40s")) == ""


def test_breakdown_needs_a_gpu(no_gpu):
    with pytest.raises(UserError, match="needs a CUDA device: no GPU on this machine"):
        bench_breakdown.breakdown(Request.of("vector_add"))


def test_baseline_call_evaluates_the_specs_expression():
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 8)
    call = measured.baseline_call(registry.load("softmax"), {"x": x}, {"M": 4, "N": 8})
    assert torch.allclose(call(), torch.softmax(x, dim=1))
    a, b = torch.randn(3, 5), torch.randn(5, 2)
    assert torch.allclose(measured.baseline_call(registry.load("gemm"), {"a": a, "b": b})(), a @ b)
    assert torch.allclose(measured.baseline_call(registry.load("relu_matmul"), {"a": a, "b": b})(), (a @ b).relu())


def test_mismatch_uses_the_check_commands_comparison():
    torch = pytest.importorskip("torch")
    spec = registry.load("vector_add")
    config = resolve_config(spec, shape={"N": 64})
    x, y = torch.randn(64), torch.randn(64)
    expected = {"out": (x.double() + y.double())}
    assert measured._mismatch(spec, config, {"out": x + y}, expected) == ""
    wrong = (x + y).clone()
    wrong[7] += 1.0
    assert "1 of 64 elements differ" in measured._mismatch(spec, config, {"out": wrong}, expected)


# ---- the plot -------------------------------------------------------------------------------------

def png_size(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_plot_of_a_measured_sweep_has_triton_and_pytorch(tmp_path):
    points = [fake([t] * 3, [1.5 * t] * 3, shape={"N": n}) for n, t in ((256, 0.01), (512, 0.02), (1024, 0.04))]
    path = tmp_path / "sweep.png"
    labels = plot.save(sweep_result(points), str(path))
    assert labels == ["Triton", "PyTorch (torch.add)"]
    assert png_size(path) == (700, 450)
    title, ylabel, xs, series = plot.series(sweep_result(points))
    assert ylabel == "GB/s" and xs == [256, 512, 1024]
    # the fake points all move 12 MB: in 10, 20, 40 us (Triton) and 1.5x that (PyTorch)
    assert series["Triton"] == pytest.approx([1200.0, 600.0, 300.0])
    assert series["PyTorch (torch.add)"] == pytest.approx([800.0, 400.0, 200.0])


def test_plot_of_a_modelled_sweep(tmp_path, no_gpu):
    result = throughput.run(Request.of("softmax", "sm_90", shape={"M": 256}), sweep="N=256..512")
    path = tmp_path / "model.png"
    labels = plot.save(result, str(path))
    assert labels == ["Triton kernel (modelled)", "roofline bound (modelled)"]
    assert png_size(path) == (700, 450)
    assert "modelled" in plot.series(result)[0]


def test_plot_refuses_a_single_point_or_another_format():
    with pytest.raises(UserError, match="add `sweep`"):
        plot.check("x.png", None)
    with pytest.raises(UserError, match="PNG"):
        plot.check("x.jpg", "N=1..2")


# ---- the CLI ---------------------------------------------------------------------------------------



@pytest.mark.parametrize("command", ["bench", "inspect"])
def test_help(command):
    r = invoke(command, "--help")
    assert r.exit_code == 0 and "playground " + command in r.output


@needs_no_gpu
def test_cli_bench_models_without_a_gpu():
    r = invoke("bench", "gemm", "--shape", "M=4096,N=4096,K=4096", "--dtype", "fp16")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert all(line.startswith("modelled") for line in lines)
    assert "fp16 tensor cores" in r.output and "run on a machine with a CUDA GPU" in r.output


def test_cli_bench_json_for_another_target():
    r = invoke("bench", "gemm", "--target", "gfx942", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["kind"] == "modelled" and data["device"] == "Instinct MI300X"
    assert data["points"][0]["roof"] == "fp16 matrix cores" and "how_to_measure" in data


def test_cli_sweep_writes_a_plot(tmp_path):
    path = tmp_path / "softmax.png"
    r = invoke("bench", "softmax", "--target", "sm_80", "--shape", "M=512", "--sweep", "N=256..1024",
               "--plot", str(path))
    assert r.exit_code == 0, r.output
    assert path.exists() and png_size(path)[0] > 0


@needs_no_gpu
def test_cli_breakdown_without_a_gpu_is_one_line_and_exit_2():
    r = invoke("bench", "vector_add", "--breakdown")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: --breakdown measures on the GPU and needs a CUDA device: no GPU on this machine"]


@pytest.mark.parametrize("args, message", [
    (["--json", "--csv"], "pick one"),
    (["--plot", "out.jpg", "--sweep", "N=1..4"], "PNG"),
    (["--plot", "out.png"], "add --sweep"),
    (["--sweep", "N=9..5"], "up to B >= A"),
    (["--breakdown", "--sweep", "N=1..4"], "drop --sweep"),
])
def test_cli_bench_bad_input_exits_2(args, message):
    r = invoke("bench", "vector_add", "--target", "sm_90", *args)
    assert r.exit_code == 2 and message in r.output and len(r.output.strip().splitlines()) == 1


def test_cli_inspect():
    r = invoke("inspect", "gemm", "--target", "sm_90")
    assert r.exit_code == 0, r.output
    assert "wgmma: HGMMA.64x128x16.F32" in r.output and "software-pipelined" in r.output
    j = invoke("inspect", "vector_add", "--target", "gfx942", "--json")
    assert json.loads(j.output)["mix"]["global_load.128"] > 0


def test_cli_bench_and_inspect_of_a_gpu_by_name():
    """The H100 PCIe: sm_90's binary, with its own 114 SMs and 2000 GB/s in the roofline and the model, so a
    stream from DRAM takes longer than on the SXM part's 3352 GB/s; every figure says which GPU it is."""
    named, sxm = (json.loads(invoke("bench", "vector_add", "--target", t, "--shape", "N=67108864", "--json").stdout)
                  for t in ("h100-pcie", "sm_90"))
    point = named["points"][0]
    assert (named["target"], named["device"], point["target"], point["device"]) == \
        ("h100-pcie", "H100 PCIe", "h100-pcie", "H100 PCIe")
    assert (point["explained"]["target"], point["explained"]["device"]) == ("h100-pcie", "H100 PCIe")
    assert (point["num_sms"], point["bandwidth_gbs"], point["peak_tflops"]) == (114, 2000.0, 51.2)
    assert point["time_us"] / sxm["points"][0]["time_us"] == pytest.approx(3352 / 2000, rel=0.05)
    assert json.loads(invoke("inspect", "gemm", "--target", "l40s", "--json").stdout)["target"] == "l40s"


def test_cli_inspect_unknown_kernel_exits_2():
    r = invoke("inspect", "gemmm")
    assert r.exit_code == 2 and "did you mean 'gemm'" in r.output


# ---- on a GPU ----------------------------------------------------------------------------------------

@gpu
@needs_gpu
def test_measured_vector_add_on_the_gpu():
    result = throughput.run(Request.of("vector_add", shape={"N": 1 << 24}))
    m = result.points[0]
    assert result.kind == "measured" and m.kind == "measured"
    assert m.triton.n > 1 and m.torch is not None and m.empty_launch is not None
    assert 0 < m.gbs < 1.2 * m.bandwidth_gbs
    assert "before and after" in m.checked


@gpu
@needs_gpu
def test_breakdown_on_the_gpu():
    b = bench_breakdown.breakdown(Request.of("vector_add", shape={"N": 1 << 20}), reps=5)
    assert [r[0] for r in b.rows] == ["host-to-device copy", "launch overhead", "kernel", "device-to-host copy",
                                      "synchronisation"]
    assert all(t.median_ms > 0 for _, t, _ in b.rows) and b.total.median_ms > 0


@gpu
@needs_gpu
def test_config_all_on_the_gpu_records_every_config_with_the_clocks_it_ran_at(tmp_path):
    """Every config of vector_add timed on this GPU: the JSON is the schema's, each recorded row passes the
    validation set's format check, and NVML read the clocks while it was timed."""
    import csv

    from playground.bench import record
    path = tmp_path / "rows.csv"
    out = invoke("bench", "vector_add", "--config", "all", "--shape", "N=1048576", "--record", path, "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["kind"] == "measured" and data["sweep"] == "config" and len(data["points"]) == 15
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(report.schema("bench")).validate(data)
    rows = list(csv.DictReader(open(path)))
    assert [r["implementation"] for r in rows].count("triton") == 15 and [r["implementation"] for r in rows][1] == "torch"
    assert all(record.check_row(r) == [] for r in rows)
    assert all(r["clocks"].startswith("SM ") for r in rows), rows[0]["clocks"]
    assert all(p["baseline_shared"] for p in data["points"][1:]) and not data["points"][0]["baseline_shared"]


def test_baseline_that_computes_something_else_is_caught():
    torch = pytest.importorskip("torch")
    spec = registry.load("vector_add")
    config = resolve_config(spec, shape={"N": 64})
    x, y = torch.randn(64), torch.randn(64)
    expected = {"out": x.double() + y.double()}
    assert measured._baseline_mismatch(spec, config, torch.add(x, y), expected) == ""
    assert "elements differ" in measured._baseline_mismatch(spec, config, x - y, expected)
    assert measured._baseline_mismatch(spec, config, x[:32], expected) == "out has shape (32,), the kernel's has (64,)"


def test_baseline_scope_has_sizes_and_meta():
    torch = pytest.importorskip("torch")
    spec = registry.load("softmax")
    spec_copy = dataclasses.replace(spec, torch_baseline="torch.softmax(x, dim=1) * N * BLOCK_SIZE")
    x = torch.randn(2, 8)
    got = measured.baseline_call(spec_copy, {"x": x}, {"N": 8, "BLOCK_SIZE": 2})()
    assert torch.allclose(got, torch.softmax(x, dim=1) * 16)
    bad = dataclasses.replace(spec, torch_baseline="torch.softmax(x, dim=1")
    with pytest.raises(UserError, match="not a PyTorch expression"):
        measured.baseline_call(bad, {"x": x})


MEASURE_WIRING = r'''
import functools, json, sys
import torch, triton.testing
from playground.core.config import Config
from playground.bench import breakdown as bench_breakdown
from playground.bench import text as bench_text
from playground.bench import measured, throughput
from playground.core import devices, registry, targets
from playground.figures import roofline
from playground import report
from playground.errors import KernelFailure
from playground.artefact.request import Request


class Uncompiled(Request):           # the timing path asks for the binary only for its roofline's precision
    def compile(self, warn=None):
        return None


calls = []
def fake_bench(fn, return_mode="all", **_):
    for _ in range(3):
        fn()
    calls.append(fn)
    return [0.010, 0.011, 0.012] if len(calls) == 1 else [0.020, 0.021, 0.022] if len(calls) == 2 else [0.002] * 3

triton.testing.do_bench = fake_bench
torch.cuda.synchronize = lambda: None
measured._prepare = functools.partial(measured._prepare, device="cpu")
measured._empty_launch = lambda: (lambda: None)
roofline.matrix_precision = lambda c: None
measured.local_device = lambda t: devices.get("sm_90")


class FakeEvent:                     # CUDA events on the CPU: 1 ms between any two
    def __init__(self, enable_timing=False):
        pass

    def record(self):
        pass

    def elapsed_time(self, end):
        return 1.0


torch.cuda.Event = FakeEvent
torch.cuda._sleep = lambda cycles: None
torch.cuda.get_device_name = lambda *a: "Fake GPU"

kept = []
for ref in sys.argv[1:]:
    calls.clear()
    spec = registry.load(ref)
    # resolve_config reads the JIT's parameters, which an interpreted kernel lacks: the config by hand
    config = Config(meta=dict(spec.meta), num_warps=4, num_stages=3, shape={"N": 1000}, dtype="fp32")
    try:
        m = measured.measure(Uncompiled(spec, targets.resolve("sm_90"), config))
    except KernelFailure as e:
        print(json.dumps({"failure": str(e)}))
    else:
        kept.append(m)
        print(json.dumps({"triton": m.triton.median_ms, "torch": m.torch.median_ms, "speedup": m.speedup,
                          "checked": m.checked, "warnings": m.warnings, "bytes": m.bytes}))
b = bench_breakdown._breakdown(registry.load("vector_add"), config, reps=2)
print(json.dumps({"rows": [[c, t.n, t.median_ms] for c, t, _ in b.rows], "total": b.total.n,
                  "lines": bench_text.lines(b)}))
# what `bench --json` prints for each, as a GPU would print it: checked against the schema
result = throughput.BenchResult(kind="measured", kernel="vector_add", target="sm_90", device="Fake GPU", points=kept)
print(report.to_json(result).replace("\n", " "))
print(report.to_json(b).replace("\n", " "))
'''


@pytest.fixture(scope="module")
def measured_in_interpreter(tmp_path_factory):
    """measured.measure on vector_add and on a copy that subtracts, in one interpreter process."""
    pytest.importorskip("torch")
    import os
    import subprocess
    import sys
    root = ROOT
    tmp = tmp_path_factory.mktemp("wiring")
    wrong = tmp / "wrong_add.py"
    wrong.write_text((root / "kernels" / "vector_add.py").read_text()
                     .replace("x + y, mask=mask)", "x - y, mask=mask)").replace('name="vector_add"', 'name="wrong_add"'))
    script = tmp / "wiring.py"
    script.write_text(MEASURE_WIRING)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, str(script), "vector_add", str(wrong)], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.strip().splitlines()[-5:]]


def test_measured_json_matches_the_bench_schema(measured_in_interpreter):
    # What `bench --json` prints on a GPU (the measured result and --breakdown), from real objects.
    jsonschema = pytest.importorskip("jsonschema")
    measured, breakdown = measured_in_interpreter[3], measured_in_interpreter[4]
    assert measured["kind"] == measured["points"][0]["kind"] == "measured" and breakdown["rows"]
    validator = jsonschema.Draft202012Validator(report.schema("bench"))
    validator.validate(measured)
    validator.validate(breakdown)
    modelled_point = json.loads(report.to_json(throughput.run(Request.of("softmax", "sm_90"))))["points"][0]
    with pytest.raises(jsonschema.ValidationError):   # a modelled point does not pass as a measured one
        validator.validate({**measured, "points": [modelled_point]})


def test_measured_path_wiring_with_fake_timings(measured_in_interpreter):
    # The kernel really runs (Triton's interpreter, CPU tensors) and is checked before and after; only
    # the timer is fake: Triton 11 us median, PyTorch 21 us -> 1.909x; 12,000 bytes in 11 us = 1.09 GB/s.
    out = measured_in_interpreter[0]
    assert out["triton"] == pytest.approx(0.011) and out["torch"] == pytest.approx(0.021)
    assert out["speedup"] == pytest.approx(0.021 / 0.011)
    assert out["checked"] == "output matched the reference before and after timing"
    assert out["bytes"] == 12_000 and out["warnings"] == []


def test_breakdown_wiring_with_fake_events(measured_in_interpreter):
    # Every CUDA-event interval reads 1 ms here; the host-timed rows are real (and small).
    out = measured_in_interpreter[2]
    assert [r[0] for r in out["rows"]] == ["host-to-device copy", "launch overhead", "kernel",
                                           "device-to-host copy", "synchronisation"]
    assert all(n == 2 for _, n, _ in out["rows"]) and out["total"] == 2
    assert [r[2] for r in out["rows"] if r[0] in ("host-to-device copy", "kernel", "device-to-host copy")] == [1.0] * 3
    assert out["lines"][0].startswith("measured    vector_add on Fake GPU, N=1000, fp32: one call, median of 2")
    assert out["lines"][-1].startswith("total (end to end)")


def test_measured_path_refuses_a_wrong_kernel(measured_in_interpreter):
    out = measured_in_interpreter[1]
    assert out["failure"].startswith("wrong_add: output does not match the reference before timing: out: ")


def test_cli_bench_refuses_a_shape_the_kernel_does_not_support():
    r = invoke("bench", "flash_attention", "--target", "sm_90", "--shape", "D=48")
    assert r.exit_code == 2 and "head dimension D=48 is not supported" in r.output


# ---- the model beside a measurement, and --record ------------------------------------------------

def test_the_model_is_printed_beside_a_measurement_and_says_where_the_measurement_lies():
    from playground.model import explain
    m = fake([0.005] * 5, [0.006] * 5, empty_ms=[0.002] * 5)
    m.modelled = explain.explain(Request.of("vector_add", "sm_90", shape={"N": 10**6}).compile())
    text = "\n".join(bench_text.measured_lines(m))
    pct = 100 * (m.modelled.seconds - 5e-6) / 5e-6
    assert f"{pct:+.0f}% against the measurement" in text and "(MODELLED, not measured)" in text
    inside = m.modelled.low <= 5e-6 <= m.modelled.high
    assert ("lies inside the band" if inside else "lies outside the band") in text
    assert report.to_json(m) and json.loads(report.to_json(m))["modelled"]["kind"] == "modelled"


def test_record_appends_measured_rows_in_the_validation_sets_format(tmp_path):
    import csv

    from playground.bench import record
    result = throughput.BenchResult(kind="measured", kernel="vector_add", target="sm_90", device="Fake H100",
                                    points=[fake([0.005] * 5, [0.006] * 5)])
    path = tmp_path / "mine.csv"
    assert record.append(path, result) == 2
    assert record.append(path, result) == 2           # appended, not overwritten
    rows = list(csv.DictReader(open(path)))
    assert [r["implementation"] for r in rows] == ["triton", "torch", "triton", "torch"]
    assert rows[0]["time_us"] == "5" and rows[1]["time_us"] == "6" and rows[0]["N"] == str(10**6)
    assert rows[0]["gpu"] == "Fake H100" and rows[0]["source"].startswith("playground bench --record")
    header = open(path).readline().strip().split(",")
    assert tuple(header) == record.FIELDS
    # the validation set's own header: the same columns
    data = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "measured.csv"
    if data.exists():
        assert tuple(open(data).readline().strip().split(",")) == record.FIELDS


def test_record_refuses_a_modelled_run_and_a_foreign_file_unchanged(tmp_path, no_gpu):
    from playground.bench import record
    foreign = tmp_path / "notes.csv"
    foreign.write_text("a,b\n1,2\n")
    result = throughput.BenchResult(kind="measured", kernel="vector_add", target="sm_90", device="Fake H100",
                                    points=[fake([0.005] * 5)])
    with pytest.raises(UserError, match="header is not the validation set's"):
        record.append(foreign, result)
    assert foreign.read_text() == "a,b\n1,2\n"
    out = invoke("bench", "vector_add", "--record", tmp_path / "new.csv")
    assert out.exit_code == 2 and "--record keeps measurements only" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and not (tmp_path / "new.csv").exists()


def test_a_measured_launch_is_sized_by_the_gpu_its_request_names(monkeypatch):
    """A grid that asks for the device (a persistent kernel: one program per SM) is launched for the request's GPU,
    the one the model beside the measurement describes: 114 programs for --target h100-pcie, not the SXM's 132."""
    pytest.importorskip("torch")
    from playground.core import devices
    from playground.figures import grid

    class Launched(Exception):
        pass

    def prepare(spec, config, device="cuda", row=None):
        raise Launched(spec.grid_for(config.shape, config.meta, row))

    monkeypatch.setattr(measured, "_prepare", prepare)
    shape = {"M": 4096, "N": 4096, "K": 256}
    request = Request.of("gemm_persistent", "h100-pcie", shape=shape, dtype="fp16")
    with pytest.raises(Launched) as launched:
        measured.measure(request)
    assert launched.value.args[0] == (114,) == (grid.ctas(request.compile()),)
    assert request.spec.grid_for(shape, request.config.meta, devices.get("sm_90")) == (132,)


# ---- every config at one shape (--config all), and what a row says it ran on ------------------------

def test_config_all_models_every_config_and_leaves_out_the_one_that_cannot_launch(no_gpu):
    """gemm's autotune space at 2048^3 on sm_90: 16 configs, of which 128x256x64 with 5 stages needs 240 KB of
    shared memory (sm_90 allows 227 KB) and is left out with that reason; the others are modelled, in order."""
    out = invoke("bench", "gemm", "--config", "all", "-t", "sm_90", "-s", "M=2048,N=2048,K=2048", "--dtype", "fp16",
                 "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["sweep"] == "config" and data["kind"] == "modelled" and len(data["points"]) == 15
    assert [p["config"] for p in data["points"]][0].startswith("num_warps=8, num_stages=2, BLOCK_SIZE_M=128")
    [(left_out)] = data["skipped"]
    assert left_out["config"]["num_stages"] == 5 and "needs 240 KB of shared memory" in left_out["why"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(report.schema("bench")).validate(data)
    text = invoke("bench", "gemm", "--config", "all", "-t", "sm_90", "-s", "M=2048,N=2048,K=2048", "--dtype", "fp16")
    lines = text.stdout.splitlines()
    assert "15 configs at M=2048, N=2048, K=2048, fp16; all with GROUP_SIZE_M=8" in lines[0]
    assert lines[1].split()[:5] == ["BM", "BN", "BK", "warps", "stages"]
    assert any(line.startswith("left out  BLOCK_SIZE_M=128, BLOCK_SIZE_N=256") for line in lines)


def test_config_n_is_that_config_and_config_conflicts_are_refused(no_gpu):
    one = json.loads(invoke("bench", "vector_add", "--config", "4", "-t", "sm_90", "--json").stdout)
    assert one["sweep"] is None and one["points"][0]["config"] == "num_warps=4, num_stages=3, BLOCK_SIZE=512"
    out = invoke("bench", "vector_add", "--config", "all", "-t", "sm_90", "--breakdown")
    assert out.exit_code == 2 and "--config and --breakdown" in out.stderr and len(out.stderr.splitlines()) == 1
    out = invoke("bench", "vector_add", "--config", "99", "-t", "sm_90")
    assert out.exit_code == 2 and "--config 99: expected `list` or 0..14" in out.stderr


def test_config_all_over_a_sweep_is_every_config_at_each_size(no_gpu):
    """softmax's 5 configs at N = 1024 and 4096: 10 points, each with its shape and config, in that order."""
    out = invoke("bench", "softmax", "--config", "all", "-t", "sm_90", "-s", "M=4096", "--sweep", "N=1024,4096",
                 "--dtype", "fp32", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert (data["sweep"], data["over"], len(data["points"])) == ("config", "N", 10)
    assert [p["shape"]["N"] for p in data["points"]] == [1024] * 5 + [4096] * 5
    assert [c["num_warps"] for c in data["configs"]] == [1, 2, 4, 8, 16] * 2
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(report.schema("bench")).validate(data)
    text = invoke("bench", "softmax", "--config", "all", "-t", "sm_90", "-s", "M=4096", "--sweep", "N=1024,4096",
                  "--dtype", "fp32").stdout.splitlines()
    assert "10 configs at M=4096, over N, fp32" in text[0] and text[1].split()[:2] == ["N", "warps"]


CONFIGS_WIRING = r'''
import json, sys, functools
import torch, triton.testing
from playground.bench import measured, record, throughput
from playground.core import devices
from playground.artefact.request import Request

timed = []
def fake_bench(fn, return_mode="all", **_):
    fn()
    timed.append(fn)
    return [0.001 * len(timed)] * 3       # each timed call 1 us slower than the one before

real_prepare = measured._prepare
def prepare(spec, config, device="cuda", row=None):
    launch, inputs, outputs, check = real_prepare(spec, config, device="cpu", row=row)
    def add():            # what the kernel computes, in torch: the configs' wiring is under test here, not Triton
        outputs["out"].copy_(inputs["x"] + inputs["y"])
    return add, inputs, outputs, check

triton.testing.do_bench = fake_bench
torch.cuda.synchronize = lambda: None
measured._prepare = prepare
measured._empty_launch = lambda: (lambda: None)
measured.local_device = lambda t: devices.get("sm_90")
throughput.measurable = lambda target: ""          # as on a GPU: measured
configs = [{"BLOCK_SIZE": 256, "num_warps": 2}, {"BLOCK_SIZE": 512, "num_warps": 4},
           {"BLOCK_SIZE": 1024, "num_warps": 4}]
result = throughput.run(Request.of("vector_add", "sm_90", shape={"N": 1000}, dtype="fp32"), configs=configs)
record.append(sys.argv[1], result)
print(json.dumps({"timed": len(timed), "kind": result.kind, "sweep": result.sweep_dim,
                  "triton_us": [p.triton.median_ms * 1e3 for p in result.points],
                  "torch_us": [p.torch.median_ms * 1e3 for p in result.points],
                  "shared": [p.baseline_shared for p in result.points], "clocks": result.points[0].clocks}))
'''


def test_config_all_on_a_gpu_times_each_config_and_the_baseline_once(tmp_path):
    """The measured path with a fake timer and torch's add in the kernel's place (the kernel itself is run and
    checked by the wiring test above): three configs are timed, PyTorch and the empty launch once with the first;
    the record has three Triton rows, each with its config, and one PyTorch row, each saying what it ran on."""
    pytest.importorskip("torch")
    import csv
    import os
    import subprocess
    import sys
    root = ROOT
    script = tmp_path / "configs.py"
    script.write_text(CONFIGS_WIRING)
    rows_path = tmp_path / "rows.csv"
    done = subprocess.run([sys.executable, str(script), str(rows_path)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(root)), cwd=root, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # 5 timed calls: config 1, its baseline and empty launch, then configs 2 and 3 alone
    assert out["timed"] == 5 and (out["kind"], out["sweep"]) == ("measured", "config")
    assert out["triton_us"] == pytest.approx([1, 4, 5]) and out["torch_us"] == pytest.approx([2, 2, 2])
    assert out["shared"] == [False, True, True]
    assert out["clocks"].startswith("not read (")           # no NVML here: said, not guessed
    rows = list(csv.DictReader(open(rows_path)))
    assert [(r["implementation"], r["config"]) for r in rows] == [
        ("triton", "num_warps=2;num_stages=3;BLOCK_SIZE=256"), ("torch", ""),
        ("triton", "num_warps=4;num_stages=3;BLOCK_SIZE=512"), ("triton", "num_warps=4;num_stages=3;BLOCK_SIZE=1024")]
    assert len({r["source"] for r in rows}) == 1 and rows[0]["source"].startswith("playground bench --record, 20")
    assert all(r["software"].startswith("triton ") and "; torch " in r["software"] and r["clocks"] for r in rows)


class FakeNVML:
    """pynvml as nvidia-ml-py has it, answering from lists: the SM clock climbs as the timed runs go on."""
    NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2

    def __init__(self, sm):
        self.sm = list(sm)

    def nvmlInit(self):
        pass

    def nvmlDeviceGetHandleByIndex(self, index):
        return index

    def nvmlDeviceGetClockInfo(self, handle, which):
        if which == self.NVML_CLOCK_MEM:
            return 2619
        return self.sm.pop(0) if len(self.sm) > 1 else self.sm[0]

    def nvmlSystemGetDriverVersion(self):
        return b"580.159.04"

    def nvmlSystemGetCudaDriverVersion(self):
        return 13000


def test_clocks_are_sampled_while_timed_and_the_driver_read_through_nvml(monkeypatch):
    import sys
    import time
    torch = pytest.importorskip("torch")
    from playground.bench import environment
    monkeypatch.setitem(sys.modules, "pynvml", FakeNVML([1755, 1890, 1980]))
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    with environment.ClockWatch() as watch:
        time.sleep(5 * environment.SAMPLE_S)
    assert watch.phrase().startswith("SM 1755-1980 MHz, memory 2619 MHz (NVML, ")
    assert environment.driver().startswith("NVIDIA 580.159.04, CUDA 13.0 driver API")
    monkeypatch.setitem(sys.modules, "pynvml", None)              # not installed: said so
    with environment.ClockWatch() as watch:
        pass
    assert watch.phrase() == "not read (nvidia-ml-py (pynvml) is not installed)"
