"""The device tables: one per target, the architecture limits as the public tables state them, and
peaks that agree with the datasheets' own arithmetic."""
import pytest

from playground.core import devices, targets
from playground.errors import UserError

KB = 1024


def test_every_target_has_a_device():
    assert set(devices.DEVICES) == set(targets.TARGETS)
    for name, d in devices.DEVICES.items():
        assert d.target == name and d.name and d.num_sms > 0
        assert d.warp_size == targets.TARGETS[name].warp_size
        assert d.max_threads_per_sm == d.max_warps_per_sm * d.warp_size
        assert d.mem_bandwidth_gbs > 0 and d.l2_bytes > 0 and d.clock_ghz > 0
        assert "fp32" in d.peak_tflops and "fp16" in d.peak_tflops


# CUDA C++ Programming Guide, "Technical Specifications per Compute Capability":
# (max warps per SM, max blocks per SM, shared memory per SM, max per block opted in).
CUDA_GUIDE = {
    "sm_80": (64, 32, 164 * KB, 163 * KB),
    "sm_86": (48, 16, 100 * KB, 99 * KB),
    "sm_89": (48, 24, 100 * KB, 99 * KB),
    "sm_90": (64, 32, 228 * KB, 227 * KB),
    "sm_100": (64, 32, 228 * KB, 227 * KB),
    # Blocks per SM on 12.0: 24, from cuda_occupancy.h (CUDA 13.0), which the guide's table does not match.
    "sm_120": (48, 24, 100 * KB, 99 * KB),
}


@pytest.mark.parametrize("target", sorted(CUDA_GUIDE))
def test_nvidia_limits_match_the_cuda_guide(target):
    d = devices.get(target)
    assert (d.max_warps_per_sm, d.max_blocks_per_sm, d.shared_per_sm, d.shared_per_block_optin) == CUDA_GUIDE[target]
    # The same on every compute capability from 8.0: 64K registers per SM and per block, 255 per thread,
    # 1 KB reserved per block; allocation units from cuda_occupancy.h.
    assert (d.regs_per_sm, d.regs_per_block, d.max_regs_per_thread) == (65536, 65536, 255)
    assert (d.reg_alloc_unit, d.warp_alloc_granularity, d.shared_alloc_unit, d.shared_reserved_per_block) == \
        (256, 4, 128, 1024)
    assert d.max_threads_per_block == 1024


# FP32 FLOPs per clock per SM (CU; WGP on gfx1100): FP32 lanes x 2 for the FMA. A100 has 64 FP32 lanes
# per SM, later NVIDIA parts 128 (white papers); CDNA2 64 lanes per CU, CDNA3/4 128 (packed/dual
# issue), RDNA3 a WGP of two CUs with dual issue: 2 x 64 x 2 lanes.
FP32_FLOPS_PER_CLOCK = {"sm_80": 128, "sm_86": 256, "sm_89": 256, "sm_90": 256, "sm_100": 256, "sm_120": 256,
                        "gfx90a": 128, "gfx942": 256, "gfx950": 256, "gfx1100": 512}


@pytest.mark.parametrize("target", sorted(FP32_FLOPS_PER_CLOCK) + sorted(devices.VARIANTS))
def test_fp32_peak_is_sms_times_lanes_times_clock(target):
    d = devices.get(target)
    expected = d.num_sms * FP32_FLOPS_PER_CLOCK[d.target] * d.clock_ghz / 1000
    assert d.peak_tflops["fp32"] == pytest.approx(expected, rel=0.01)


def test_tensor_peaks_keep_the_datasheet_ratios():
    for d in [*devices.DEVICES.values(), *devices.VARIANTS.values()]:
        p = d.peak_tflops
        assert p["bf16"] == p["fp16"]
        if "fp8" in p:                        # fp8 runs at twice the fp16 rate on every part that has it
            # (the L40S datasheet's FP16 362.05 is 142 SMs x 1024 x 2490 MHz; its FP8 733 is at 2520 MHz)
            assert p["fp8"] == pytest.approx(2 * p["fp16"], rel=0.013 if d.name == "L40S" else 0.001)
        if "tf32" in p and d.target not in ("sm_86", "sm_89", "sm_120"):
            assert p["tf32"] == pytest.approx(p["fp16"] / 2, rel=0.001)   # datacenter parts: tf32 at half fp16
    assert "fp8" not in devices.get("sm_80").peak_tflops and "fp8" not in devices.get("gfx90a").peak_tflops


def test_amd_tables_match_llvm():
    for name in ("gfx90a", "gfx942", "gfx950"):
        d = devices.get(name)
        assert (d.max_waves_per_simd, d.simds_per_cu, d.vgprs_per_simd, d.vgpr_alloc_granule) == (8, 4, 512, 8)
        assert d.unified_agprs and d.sgpr_limits_waves and d.max_workgroups_per_cu == 16
    assert devices.get("gfx950").lds_per_cu == 160 * KB and devices.get("gfx942").lds_per_cu == 64 * KB
    rdna = devices.get("gfx1100")
    assert (rdna.max_waves_per_simd, rdna.vgprs_per_simd, rdna.vgpr_alloc_granule) == (16, 1536, 24)
    assert (rdna.lds_per_cu, rdna.lds_per_workgroup, rdna.sgpr_limits_waves) == (128 * KB, 64 * KB, False)


def test_with_num_sms_scales_compute_not_memory():
    h100 = devices.get("sm_90")
    pcie = devices.with_num_sms(h100, 114)
    assert pcie.num_sms == 114 and "114 SMs" in pcie.name
    assert pcie.peak_tflops["fp16"] == pytest.approx(989.4 * 114 / 132, abs=0.05)
    assert (pcie.mem_bandwidth_gbs, pcie.l2_bytes, pcie.max_warps_per_sm) == \
        (h100.mem_bandwidth_gbs, h100.l2_bytes, h100.max_warps_per_sm)
    assert devices.with_num_sms(h100, None) is h100 and devices.with_num_sms(h100, 132) is h100
    assert "CUs" in devices.with_num_sms(devices.get("gfx942"), 228).name


def test_with_num_sms_takes_the_l2s_of_the_chiplets_it_needs():
    """On CDNA3/4 each XCD has its own L2: fewer CUs are fewer XCDs, each with its 4 MB; NVIDIA's one L2 stays."""
    mi300x = devices.get("gfx942")
    mi300a = devices.with_num_sms(mi300x, 228)         # 6 XCDs of 38 CUs (CDNA3 white paper)
    assert (mi300a.l2_partitions, mi300a.l2_bytes) == (6, 24 * 2**20)
    assert (mi300a.infinity_cache_bytes, mi300a.mem_bandwidth_gbs) == (mi300x.infinity_cache_bytes,
                                                                       mi300x.mem_bandwidth_gbs)
    odd = devices.with_num_sms(mi300x, 200)             # no XCD holds more than 38: 6 of them
    assert (odd.l2_partitions, odd.l2_bytes) == (6, 24 * 2**20)
    assert devices.with_num_sms(devices.get("gfx950"), 64).l2_partitions == 2   # 32 CUs an XCD
    assert devices.with_num_sms(devices.get("sm_90"), 66).l2_partitions == 1


@pytest.mark.parametrize("bad", [0, -3])
def test_with_num_sms_rejects_nonsense(bad):
    with pytest.raises(UserError, match="^num_sms"):
        devices.with_num_sms(devices.get("sm_90"), bad)


def test_unknown_target():
    with pytest.raises(UserError, match="known: sm_80"):
        devices.get("sm_75")
    assert devices.get(targets.resolve("sm90")) is devices.get("sm_90")


def test_each_device_is_a_target_as_triton_names_it():
    from playground.core import targets
    assert list(targets.TARGETS) == list(devices.DEVICES)
    assert [(t.backend, t.arch, t.warp_size) for t in targets.TARGETS.values()] == [
        ("cuda", 80, 32), ("cuda", 86, 32), ("cuda", 89, 32), ("cuda", 90, 32), ("cuda", 100, 32), ("cuda", 120, 32),
        ("hip", "gfx90a", 64), ("hip", "gfx942", 64), ("hip", "gfx950", 64), ("hip", "gfx1100", 32)]
    assert [d.sm_unit for d in devices.DEVICES.values()] == ["SM"] * 6 + ["CU"] * 3 + ["WGP"]


# ---- other GPUs of an architecture, by name ---------------------------------------------------------------

PER_ARCHITECTURE = ("target", "vendor", "warp_size", "max_threads_per_block", "max_threads_per_sm", "max_warps_per_sm",
                    "max_blocks_per_sm", "regs_per_sm", "regs_per_block", "max_regs_per_thread", "shared_per_sm",
                    "shared_per_block_optin", "simds_per_cu", "vgprs_per_simd", "lds_per_cu", "sm_unit")


@pytest.mark.parametrize("gpu", sorted(devices.VARIANTS))
def test_another_gpu_keeps_its_architectures_limits_and_has_its_own_numbers(gpu):
    d, arch = devices.VARIANTS[gpu], devices.DEVICES[devices.VARIANTS[gpu].target]
    assert all(getattr(d, f) == getattr(arch, f) for f in PER_ARCHITECTURE)
    assert d.name != arch.name and d.memory_bytes > 0


def test_a_gpu_by_name_is_its_architectures_target_with_its_own_row():
    for spelling in ("l40s", "L40S", "l40-s", "L40_S"):
        t = targets.resolve(spelling)
        assert (t.name, t.arch, t.gpu, t.label) == ("sm_89", 89, "l40s", "l40s")
        assert t.gpu_target() == targets.TARGETS["sm_89"].gpu_target()      # Triton compiles sm_89's binary
    assert (devices.get(targets.resolve("H100_PCIe")).num_sms, devices.get("h100-pcie").mem_bandwidth_gbs) == (114, 2000.0)
    assert devices.get(targets.resolve("sm_89")).name == "GeForce RTX 4090"   # the target alone: its own row
    # the part a target's row describes, by its name: that target, nothing replaced
    assert targets.resolve("H100") is targets.TARGETS["sm_90"] and targets.resolve("mi300x") is targets.TARGETS["gfx942"]
    assert all(devices.get(arch).target == arch for arch in targets.REPRESENTED.values())
    with pytest.raises(UserError, match="unknown target 'l40'; known targets: native, sm_80.*GPUs: a100, .*l40s"):
        targets.resolve("l40")


def test_the_driver_names_a_gpu_by_its_words_and_memory():
    """On a GPU, the measured path starts from the row of the part the driver names (an L40S's per-SM tensor rate
    is twice an RTX 4090's, both sm_89); a memory size in the name must be the part's."""
    assert devices.same_gpu("a100-40gb", "NVIDIA A100-SXM4-40GB") and devices.same_gpu("h100-pcie", "NVIDIA H100 PCIe")
    assert devices.same_gpu("a100-pcie", "NVIDIA A100 80GB PCIe") and not devices.same_gpu("a100-pcie", "NVIDIA A100-PCIE-40GB")
    assert not devices.same_gpu("h100-pcie", "NVIDIA H100 80GB HBM3")
    # a form factor both names state must agree: the H800 row is the SXM5 part, 132 SMs; the PCIe one has 114
    assert devices.same_gpu("h800", "NVIDIA H800") and not devices.same_gpu("h800", "NVIDIA H800 PCIe")
    assert devices.same_gpu("h100-nvl", "NVIDIA H100 NVL")
    rows = {name: devices.for_driver_name(targets.resolve(arch), name).name for arch, name in (
        ("sm_89", "NVIDIA L40S"), ("sm_89", "NVIDIA GeForce RTX 4090"), ("sm_80", "NVIDIA A100-PCIE-40GB"),
        ("sm_90", "NVIDIA H100 80GB HBM3"), ("gfx942", "AMD Instinct MI325X"))}
    assert rows == {"NVIDIA L40S": "L40S", "NVIDIA GeForce RTX 4090": "GeForce RTX 4090",
                    "NVIDIA A100-PCIE-40GB": "A100 40GB", "NVIDIA H100 80GB HBM3": "H100 SXM5 80GB",
                    "AMD Instinct MI325X": "Instinct MI325X"}
    assert devices.for_driver_name(targets.resolve("l40s"), "anything").name == "L40S"    # named: that row


def test_native_is_the_part_the_driver_names_or_the_architecture(monkeypatch):
    """On a GPU machine `--target native` is the part its driver names (an H200 has its own bandwidth and L2), and
    the architecture's representative where the name is not one of devices.VARIANTS (an H100 SXM5)."""
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver

    from playground.core import targets

    class Driver:
        def __init__(self, name):
            self.name = name

        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

        def get_device_interface(self):
            return type("Interface", (), {"get_device_name": lambda _self, index: self.name})()

        def get_current_device(self):
            return 0

    monkeypatch.setattr(targets, "has_gpu", lambda: True)
    monkeypatch.setattr(driver, "_active", Driver("NVIDIA H200"))       # restored after the test
    h200 = targets.native()
    assert (h200.name, h200.label) == ("sm_90", "h200") and devices.get(h200).mem_bandwidth_gbs == 4800.0
    monkeypatch.setattr(driver, "_active", Driver("NVIDIA H100 80GB HBM3"))
    assert targets.native() == targets.TARGETS["sm_90"]
    monkeypatch.setattr(driver, "_active", Driver("NVIDIA H100 PCIe"))
    assert devices.get(targets.native()).num_sms == 114
