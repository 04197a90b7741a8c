"""The roofline model against numbers worked out by hand, then wired to compiled kernels and devices.py.

The H100 SXM5 row of devices.py is used throughout: 132 SMs, 3352 GB/s, fp32 66.9 TFLOP/s,
fp16 tensor cores 989.4 TFLOP/s.
"""
import pytest

from playground.core import devices, registry
from playground.artefact.request import Request
from playground.figures import roofline, roofline_text

H100 = devices.get("sm_90")


def test_vector_add_is_memory_bound():
    # N = 2^20 fp32: 1 add per element -> 1,048,576 FLOP; read x, y and write out -> 3 * 4 * 2^20 = 12,582,912 B.
    # intensity = 1/12 = 0.0833 FLOP/B; ridge = 66.9e12 / 3352e9 = 19.96 FLOP/B -> memory-bound.
    # time = 12,582,912 / 3352e9 = 3.7538 us; at that time, 1,048,576 FLOP is 0.2793 TFLOP/s.
    e = roofline.estimate(2**20, 12_582_912, 66.9, 3352.0)
    assert e.bound == "memory"
    assert e.intensity == pytest.approx(1 / 12)
    assert e.ridge == pytest.approx(19.958, abs=1e-3)
    assert e.seconds == pytest.approx(3.7538e-6, rel=1e-4)
    assert e.compute_seconds == pytest.approx(2**20 / 66.9e12)
    assert e.gbs == pytest.approx(3352.0) and e.percent_of_peak == pytest.approx(100.0)
    assert e.tflops == pytest.approx(0.2793, rel=1e-3)


def test_gemm_is_compute_bound():
    # M = N = K = 4096 fp16: 2 * 4096^3 = 137,438,953,472 FLOP; A, B, C once: 3 * 4096^2 * 2 = 100,663,296 B.
    # intensity = 1365.3 FLOP/B; ridge = 989.4e12 / 3352e9 = 295.2 -> compute-bound.
    # time = 137,438,953,472 / 989.4e12 = 138.911 us; memory alone would take 100,663,296 / 3352e9 = 30.031 us.
    e = roofline.estimate(2 * 4096**3, 3 * 4096**2 * 2, 989.4, 3352.0)
    assert e.bound == "compute"
    assert e.intensity == pytest.approx(1365.333, rel=1e-6)
    assert e.ridge == pytest.approx(295.167, rel=1e-5)
    assert e.seconds == pytest.approx(138.911e-6, rel=1e-5)
    assert e.memory_seconds == pytest.approx(30.031e-6, rel=1e-4)
    assert e.tflops == pytest.approx(989.4) and e.percent_of_peak == pytest.approx(100.0)


def test_wave_quantised_grid():
    # The same gemm in 128x128 tiles: 32 * 32 = 1024 CTAs, 1 CTA per SM on 132 SMs -> 132 per wave.
    # waves = ceil(1024 / 132) = 8 (7 full waves hold 924); fill = 1024 / (8 * 132) = 1024 / 1056 = 0.969697.
    # time = 138.911 us / 0.969697 = 143.252 us; 96.97% of peak compute.
    e = roofline.estimate(2 * 4096**3, 3 * 4096**2 * 2, 989.4, 3352.0, ctas=1024, ctas_per_wave=132)
    assert (e.waves, e.ctas_per_wave) == (8, 132)
    assert e.wave_fill == pytest.approx(1024 / 1056)
    assert e.seconds == pytest.approx(143.252e-6, rel=1e-5)
    assert e.percent_of_peak == pytest.approx(96.9697, rel=1e-5)


def test_one_cta_past_a_full_wave_nearly_doubles_the_time():
    # 133 CTAs on 132 slots: 2 waves, fill = 133 / 264 = 0.50379 -> 1.9850x the roofline time.
    e = roofline.estimate(10**12, 10**6, 100.0, 1000.0, ctas=133, ctas_per_wave=132)
    assert e.waves == 2
    assert e.seconds / e.roofline_seconds == pytest.approx(264 / 133)


def test_memory_bound_partial_wave_loses_only_what_too_few_sms_cannot_take_in():
    # Memory-bound (intensity 0.001 << ridge 100): 16 slots per SM on 132 SMs = 2112 per wave. An H100 SM
    # takes in at most 128 B per clock at 1.98 GHz, 253 GB/s; 3352 GB/s needs 13.2 of them.
    h100 = devices.get("sm_90")
    assert roofline.sms_to_fill_dram(h100) == pytest.approx(3352e9 / (128 * 1.98e9)) == pytest.approx(13.226, abs=1e-3)
    assert roofline.sms_to_fill_dram(devices.get("sm_80")) == pytest.approx(2039e9 / (128 * 1.41e9))
    dram_sms = roofline.sms_to_fill_dram(h100)
    # 2200 CTAs: one full wave (2112) + 88 more, on 88 SMs: more than 13.2, so DRAM stays full: no loss
    e = roofline.estimate(10**6, 10**9, 100.0, 1000.0, ctas=2200, ctas_per_wave=2112, dram_sms=dram_sms)
    assert e.bound == "memory" and e.wave_fill == 1.0 and e.seconds == e.roofline_seconds
    # 2117 CTAs: the last 5 sit on 5 SMs, which take in 5 / 13.2 of the bandwidth: they cost 13.2 CTA-times
    e = roofline.estimate(10**6, 10**9, 100.0, 1000.0, ctas=2117, ctas_per_wave=2112, dram_sms=dram_sms)
    assert e.wave_fill == pytest.approx(2117 / (2112 + dram_sms))
    # the earlier even-share rule (dram_sms = all 132 SMs) would have cost the 88 CTAs a whole SM-wave
    e = roofline.estimate(10**6, 10**9, 100.0, 1000.0, ctas=2200, ctas_per_wave=2112, dram_sms=132)
    assert e.wave_fill == pytest.approx(2200 / 2244)
    # A compute-bound kernel keeps NVIDIA's rule: the same 2200 CTAs fill 2200 / 4224 of two waves.
    e = roofline.estimate(10**12, 10**6, 100.0, 1000.0, ctas=2200, ctas_per_wave=2112, dram_sms=dram_sms)
    assert e.bound == "compute" and e.wave_fill == pytest.approx(2200 / 4224)


def test_no_grid_means_no_quantisation():
    e = roofline.estimate(10**9, 10**6, 100.0, 1000.0)
    assert e.waves is None and e.wave_fill == 1.0 and e.seconds == e.roofline_seconds


@pytest.mark.parametrize("target, matrix, expected", [
    ("sm_90", "fp16", (989.4, "fp16 tensor cores")),
    ("sm_90", "tf32", (494.7, "tf32 tensor cores")),
    ("sm_90", None, (66.9, "fp32, no tensor cores")),
    ("gfx942", "fp8", (2614.9, "fp8 matrix cores")),
    ("gfx90a", "fp8", (23.95, "fp32, no tensor cores")),   # CDNA2 has no fp8 matrix instructions
])
def test_peak_for_picks_the_roof_the_code_uses(target, matrix, expected):
    assert roofline.peak_for(devices.get(target), matrix) == expected


# ---- wired to compiled kernels -----------------------------------------------------------------

def _compile(kernel, target, **kw):
    spec = registry.load(kernel)
    return Request.of(spec, target, **kw).compile()


def test_model_of_gemm_uses_tensor_cores_and_waves(gemm_sm90, monkeypatch):
    # Tensor cores read from the SASS (HGMMA) -> the fp16 tensor roof. With 1 CTA per SM (pinned here,
    # occupancy.py's job in real use): the wave numbers of test_wave_quantised_grid.
    monkeypatch.setattr(roofline, "active_blocks", lambda c: (1, ""))
    m = roofline.model(gemm_sm90)
    assert m.roof == "fp16 tensor cores" and m.peak_tflops == 989.4
    assert (m.estimate.ctas, m.estimate.waves) == (1024, 8)
    assert m.estimate.seconds == pytest.approx(143.252e-6, rel=1e-5)
    assert m.device == "H100 SXM5 80GB" and m.kind == "modelled"


def test_model_lines_say_modelled_on_every_line(gemm_sm90, monkeypatch):
    monkeypatch.setattr(roofline, "active_blocks", lambda c: (1, ""))
    out = roofline_text.lines(roofline.model(gemm_sm90), "no GPU on this machine")
    assert all("modelled" in line for line in out)
    assert not any("measured" in line for line in out)
    assert "run on a machine with a CUDA GPU" in out[-1]
    assert any("1024 CTAs, 132 per wave (1 x 132 SMs): 8 waves, last wave 100 of 132 (75.8%); the model keeps "
               "97.0% of peak compute" in line for line in out)


def test_model_of_vector_add_is_memory_bound_on_the_plain_fp32_roof(monkeypatch):
    # N = 98432 fp32: 3 * 4 * 98432 = 1,181,184 B; 98432 / 1024 = 96.1 -> 97 CTAs. With 16 CTAs per SM
    # (pinned): 16 * 132 = 2112 per wave, 1 wave. Memory-bound: 97 CTAs on 97 SMs take in far more than
    # the 13.2 SMs' worth DRAM can give, so the ceiling is the roofline itself.
    monkeypatch.setattr(roofline, "active_blocks", lambda c: (16, ""))
    m = roofline.model(_compile("vector_add", "sm_90"))
    e = m.estimate
    assert m.roof == "fp32, no tensor cores" and e.bound == "memory"
    assert e.bytes == 1_181_184 and e.ctas == 97 and e.ctas_per_wave == 2112
    assert e.wave_fill == 1.0
    assert e.seconds == pytest.approx(1_181_184 / 3352e9)
    assert any("L2" in n for n in m.notes)      # 1.13 MiB fit in the 50 MiB L2
    assert m.dram_sms == pytest.approx(13.226, abs=1e-3)
    (waves,) = [line for line in roofline_text.lines(m) if line.startswith("modelled  waves")]
    assert waves.endswith("the model keeps 100.0% of peak bandwidth: each SM takes in at most 128 bytes a clock, "
                          "so a partial wave on 13.2 SMs or more draws all of it")
    # 4 CTAs (N = 4096): 4 SMs take in 4 x 253 GB/s, 4 / 13.2 of DRAM's rate
    m = roofline.model(_compile("vector_add", "sm_90", shape={"N": 4096}))
    assert m.estimate.ctas == 4
    assert m.estimate.wave_fill == pytest.approx(4 / (3352e9 / (128 * 1.98e9)))


def test_model_for_another_gpu_by_sm_count(gemm_sm90, monkeypatch):
    # --num-sms 66: half the SMs, half the compute peak (494.7), bandwidth unchanged.
    monkeypatch.setattr(roofline, "active_blocks", lambda c: (1, ""))
    m = roofline.model(gemm_sm90, devices.with_num_sms(H100, 66))
    assert m.peak_tflops == pytest.approx(494.7) and m.estimate.ctas_per_wave == 66
    # 1024 / 66 -> 16 waves (15 hold 990), fill 1024 / 1056 again
    assert m.estimate.waves == 16


def test_model_without_occupancy_says_why(gemm_sm90, monkeypatch):
    monkeypatch.setattr(roofline, "active_blocks", lambda c: (None, "occupancy not computed (test)"))
    m = roofline.model(gemm_sm90)
    assert m.estimate.waves is None and "occupancy not computed (test)" in m.notes


def test_model_takes_ctas_per_sm_from_the_occupancy_calculator(gemm_sm90):
    from playground.figures import occupancy
    blocks = occupancy.of(gemm_sm90).active_blocks_per_sm
    m = roofline.model(gemm_sm90)
    assert blocks > 0 and m.active_blocks_per_sm == blocks
    assert m.estimate.ctas_per_wave == blocks * 132
    assert m.estimate.waves == -(-1024 // (blocks * 132))


@pytest.mark.parametrize("kernel", ["vector_add", "gemm"])
def test_bench_and_the_compile_header_describe_the_waves_alike(kernel):
    """One wording of the waves: the header's line is inside bench's, which adds the model's fill."""
    from playground.report import render
    c = _compile(kernel, "sm_90")
    (header,) = [line[len("waves"):].strip() for line in render.header_lines(c) if line.startswith("waves")]
    (modelled,) = [line for line in roofline_text.lines(roofline.model(c), "") if line.startswith("modelled  waves")]
    assert modelled.startswith(f"modelled  waves     {header}; the model keeps ")


@pytest.mark.parametrize("kernel, target, dtype, expected", [
    ("gemm", "sm_80", "fp16", "fp16"),           # mma.sync -> HMMA
    ("gemm", "sm_90", "bf16", "bf16"),           # wgmma.mma_async -> HGMMA
    ("gemm", "sm_100", "fp16", "fp16"),          # tcgen05.mma -> UTCHMMA
    ("tf32_dot", "sm_80", None, "tf32"),         # fp32 inputs through the tensor cores as tf32
    ("tf32_dot", "sm_90", None, "tf32"),
    ("tf32_dot", "sm_120", None, "tf32"),
    ("fp32_dot", "sm_90", None, None),           # input_precision="ieee": FFMA, no matrix instruction
    ("vector_add", "sm_90", None, None),         # no tl.dot at all
])
def test_matrix_precision_from_the_ptx_is_the_sass_precision(kernel, target, dtype, expected):
    """The roofline reads the tensor-core precision from the PTX (no disassembly); the SASS ptxas made
    from it runs the same precision."""
    from pathlib import Path

    from playground.artefact import codeinspect
    data = Path(__file__).parent / "data" / "fp32_dot.py"
    ref = f"{data}:{kernel}" if kernel.endswith("32_dot") else kernel
    c = _compile(ref, target, **({"dtype": dtype} if dtype else {}))
    assert roofline.matrix_precision(c) == expected
    sass = codeinspect.read(c)                  # the SASS's own matrix instructions
    assert bool(sass.mix.get("mma")) == (expected is not None)
    if expected == "tf32":
        assert all("TF32" in op.upper() for op in sass.mma_opcodes), sass.mma_opcodes
    elif expected in ("fp16", "bf16"):
        assert not any("TF32" in op.upper() for op in sass.mma_opcodes), sass.mma_opcodes


def test_an_amd_waves_line_counts_cus_not_sms():
    c = Request.of("gemm", "gfx942").compile()
    waves = next(line for line in roofline_text.lines(roofline.model(c)) if "waves" in line.split()[1])
    assert "(1 x 304 CUs)" in waves and "SMs" not in waves
    # and the ridge: 1307.4 TFLOP/s over 5300 GB/s, the MI300X datasheet's figures
    roofs = next(line for line in roofline_text.lines(roofline.model(c)) if " roofs " in line)
    assert "ridge at 247 FLOP/byte" in roofs
