"""Device tables: one representative GPU per target, with the limits occupancy needs and the peaks a roofline needs.

Two kinds of number live here, and they have different sources:
- per-architecture limits (threads, warps, blocks, registers, shared memory per SM or CU), the same
  for every GPU of a compute capability or gfx target. NVIDIA: the CUDA C++ Programming Guide,
  "Technical Specifications per Compute Capability" (below: "CUDA Guide table"), and the allocation
  granularities of cuda_occupancy.h, the header behind cudaOccupancyMaxActiveBlocksPerMultiprocessor
  (below: "cuda_occupancy.h"). AMD: the LLVM AMDGPU backend's subtarget tables (AMDGPUBaseInfo.cpp,
  GCNSubtarget; below: "LLVM AMDGPU"), which is what produces the compiler's own `; Occupancy:`
  comment, and AMD's ISA and CDNA/RDNA white papers.
- per-product numbers (SM/CU count, clock, peak TFLOPS, bandwidth, L2) of the named GPU, from its
  datasheet or white paper. Another GPU of the same architecture differs only in these: VARIANTS holds the
  parts with a datasheet here (--target l40s, h100-pcie, ...), and `--num-sms` takes any other by SM count
  (see `with_num_sms`).

Peak TFLOPS are dense (no 2:4 sparsity), tensor-core/matrix-core numbers for tf32/fp16/bf16/fp8 with
fp32 accumulation (what `tl.dot` does), and plain fp32 FMA throughput (no tensor cores) for "fp32".
A dtype missing from `peak_tflops` has no matrix instruction on that target.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

from ..errors import UserError

KB = 1024
MB = 1024 * 1024


@dataclass(frozen=True)
class Device:
    target: str                    # "sm_90", "gfx942"
    name: str                      # the representative GPU the per-product numbers describe
    vendor: str                    # "nvidia" or "amd"
    num_sms: int                   # SMs (NVIDIA), CUs (CDNA) or WGPs (RDNA, see gfx1100)
    warp_size: int                 # threads per warp / wavefront lanes, as Triton compiles for the target
    max_threads_per_block: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    # --- NVIDIA registers: 32-bit registers, allocated per warp ---
    regs_per_sm: int = 0
    regs_per_block: int = 0
    max_regs_per_thread: int = 0
    reg_alloc_unit: int = 0        # a warp's registers are allocated in multiples of this
    warp_alloc_granularity: int = 0  # sub-partitions: the per-block register check rounds warps up to this
    # --- NVIDIA shared memory, bytes ---
    shared_per_sm: int = 0
    shared_per_block: int = 0      # without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize)
    shared_per_block_optin: int = 0  # the most a block may have once it opts in, as Triton's launcher does
    shared_reserved_per_block: int = 0  # the driver's own per-block reservation (sm_80 and later)
    shared_alloc_unit: int = 0
    # --- AMD: per SIMD (EU) and per CU ---
    simds_per_cu: int = 0
    max_waves_per_simd: int = 0
    vgprs_per_simd: int = 0        # VGPRs per lane a SIMD has for all its waves (arch + acc when unified)
    vgpr_alloc_granule: int = 0
    max_vgprs_per_wave: int = 0    # arch VGPRs + AGPRs one wave can address
    unified_agprs: bool = False    # gfx90a+: AGPRs come out of the same file as VGPRs
    sgprs_per_simd: int = 0
    max_sgprs_per_wave: int = 0
    sgpr_limits_waves: bool = False  # gfx9: SGPR use can limit waves; gfx10+: it cannot
    lds_per_cu: int = 0
    lds_per_workgroup: int = 0
    lds_alloc_unit: int = 0
    max_workgroups_per_cu: int = 0   # barrier resources: the cap for workgroups of more than one wave
    # --- roofline ---
    peak_tflops: dict = field(default_factory=dict)   # dtype -> dense TFLOPS
    mem_bandwidth_gbs: float = 0.0   # DRAM/HBM, GB/s (1e9 bytes)
    l2_bytes: int = 0
    infinity_cache_bytes: int = 0    # AMD's memory-side cache between L2 and DRAM (0: none)
    infinity_cache_gbs: float = 0.0  # its peak bandwidth to the L2s, GB/s, where published (0: not timed)
    l2_partitions: int = 1           # L2s that each serve their own SMs (CDNA3/4: one per XCD), l2_bytes split evenly
    clock_ghz: float = 0.0           # boost clock the peaks assume
    matrix_clock_ghz: dict = field(default_factory=dict)  # precision -> the vendor's measured median clock under
                                     # dense matrix multiply, where one is published (the model runs matrix code
                                     # at it: model/explain.clock_share)
    memory_bytes: int = 0            # DRAM/HBM capacity (datasheet, decimal GB)

    sm_unit: str = "SM"              # what num_sms counts: "SM", "CU" or "WGP"
    host_link: str = ""              # how the part reaches the host ("PCIe 5.0 x16"; HOST_LINKS); "" where not known

    @property
    def is_nvidia(self) -> bool:
        return self.vendor == "nvidia"


def _nvidia(target, name, num_sms, *, threads_per_sm, blocks_per_sm, shared_per_sm_kb, optin_kb,
            peak_tflops, mem_bandwidth_gbs, l2_bytes, clock_ghz, memory_gb) -> Device:
    """The fields every sm_80+ part shares, plus the ones the compute capability sets."""
    return Device(
        target=target, name=name, vendor="nvidia", num_sms=num_sms,
        warp_size=32,                        # CUDA Guide table: warp size 32
        max_threads_per_block=1024,          # CUDA Guide table: max threads per block 1024
        max_threads_per_sm=threads_per_sm,
        max_warps_per_sm=threads_per_sm // 32,
        max_blocks_per_sm=blocks_per_sm,
        regs_per_sm=64 * KB,                 # CUDA Guide table: 64K 32-bit registers per SM
        regs_per_block=64 * KB,              # CUDA Guide table: 64K registers per thread block
        max_regs_per_thread=255,             # CUDA Guide table: 255 registers per thread
        reg_alloc_unit=256,                  # cuda_occupancy.h cudaOccRegAllocationGranularity: 256 per warp
        warp_alloc_granularity=4,            # cuda_occupancy.h cudaOccSubPartitionsPerMultiprocessor: 4
        shared_per_sm=shared_per_sm_kb * KB,
        shared_per_block=48 * KB,            # CUDA Guide: 48 KB per block unless the kernel opts in
        shared_per_block_optin=optin_kb * KB,
        shared_reserved_per_block=1 * KB,    # CUDA Guide table: "shared memory reserved by CUDA per block 1 KB" (8.0+)
        shared_alloc_unit=128,               # cuda_occupancy.h cudaOccSMemAllocationGranularity: 128 B (8.x+)
        peak_tflops=peak_tflops, mem_bandwidth_gbs=mem_bandwidth_gbs, l2_bytes=l2_bytes, clock_ghz=clock_ghz,
        memory_bytes=memory_gb * GB)


GB = 1000 ** 3      # memory capacities are sold in decimal gigabytes
DEVICES = {
    # Memory capacities, per GPU, from the same datasheets as the peaks: A100 SXM4 80 GB, RTX 3090 24 GB,
    # RTX 4090 24 GB, H100 SXM5 80 GB, HGX B200 180 GB per GPU (1,440 GB / 8), RTX 5090 32 GB;
    # MI250X 128 GB (64 GB per GCD), MI300X 192 GB, MI355X 288 GB, RX 7900 XTX 24 GB.
    # Compute capability 8.0 (CUDA Guide table): 2048 threads and 32 blocks per SM; 164 KB shared per SM,
    # 163 KB per block opted in.
    # NVIDIA A100 datasheet (SXM4 80GB) and Ampere GA100 white paper: 108 SMs, 1410 MHz boost, 2039 GB/s,
    # 40 MB L2; FP32 19.5, TF32 156, FP16/BF16 312 TFLOPS dense. No FP8.
    "sm_80": _nvidia("sm_80", "A100 SXM4 80GB", 108, threads_per_sm=2048, blocks_per_sm=32,
                     shared_per_sm_kb=164, optin_kb=163,
                     peak_tflops={"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0},
                     mem_bandwidth_gbs=2039.0, l2_bytes=40 * MB, clock_ghz=1.41, memory_gb=80),
    # Compute capability 8.6 (CUDA Guide table): 1536 threads and 16 blocks per SM; 100 KB shared per SM,
    # 99 KB per block.
    # NVIDIA Ampere GA102 white paper, appendix table (GeForce RTX 3090): 82 SMs, 1695 MHz boost, 936 GB/s,
    # 6 MB L2; FP32 35.6; tensor with FP32 accumulate: TF32 35.6, FP16 71, BF16 71 TFLOPS dense.
    # (An A10 is --num-sms 72, though its tensor rate per SM is twice a GeForce part's.)
    "sm_86": _nvidia("sm_86", "GeForce RTX 3090", 82, threads_per_sm=1536, blocks_per_sm=16,
                     shared_per_sm_kb=100, optin_kb=99,
                     peak_tflops={"fp32": 35.6, "tf32": 35.6, "fp16": 71.0, "bf16": 71.0},
                     mem_bandwidth_gbs=936.0, l2_bytes=6 * MB, clock_ghz=1.695, memory_gb=24),
    # Compute capability 8.9 (CUDA Guide table): 1536 threads and 24 blocks per SM; 100 KB shared per SM,
    # 99 KB per block.
    # NVIDIA Ada GPU Architecture white paper, appendix table (GeForce RTX 4090): 128 SMs, 2520 MHz boost,
    # 1008 GB/s, 72 MB L2; FP32 82.6; tensor with FP32 accumulate: TF32 82.6, FP16/BF16 165.2, FP8 330.3
    # TFLOPS dense. (An L4 is --num-sms 58.)
    "sm_89": _nvidia("sm_89", "GeForce RTX 4090", 128, threads_per_sm=1536, blocks_per_sm=24,
                     shared_per_sm_kb=100, optin_kb=99,
                     peak_tflops={"fp32": 82.6, "tf32": 82.6, "fp16": 165.2, "bf16": 165.2, "fp8": 330.3},
                     mem_bandwidth_gbs=1008.0, l2_bytes=72 * MB, clock_ghz=2.52, memory_gb=24),
    # Compute capability 9.0 (CUDA Guide table): 2048 threads and 32 blocks per SM; 228 KB shared per SM,
    # 227 KB per block.
    # NVIDIA H100 datasheet (SXM5 80GB; the datasheet quotes sparse tensor numbers, halved here) and Hopper
    # white paper: 132 SMs, 1980 MHz boost, 3352 GB/s, 50 MB L2; FP32 66.9, TF32 494.7, FP16/BF16 989.4,
    # FP8 1978.9 TFLOPS dense.
    "sm_90": _nvidia("sm_90", "H100 SXM5 80GB", 132, threads_per_sm=2048, blocks_per_sm=32,
                     shared_per_sm_kb=228, optin_kb=227,
                     peak_tflops={"fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9},
                     mem_bandwidth_gbs=3352.0, l2_bytes=50 * MB, clock_ghz=1.98, memory_gb=80),
    # Compute capability 10.0 (CUDA Guide table): 2048 threads and 32 blocks per SM; 228 KB shared per SM,
    # 227 KB per block.
    # NVIDIA HGX B200 datasheet, per GPU (the 8-GPU figures / 8, sparse tensor figures halved): FP32 75,
    # TF32 1125, FP16/BF16 2250, FP8 4500 TFLOPS dense; 8 TB/s HBM3e. 148 SMs and 126 MB L2 as the CUDA
    # runtime reports them (Chips and Cheese, "Nvidia's B200"); the clock is the one the FP32 figure
    # implies: 75 TFLOPS / (148 SMs x 128 FMA x 2).
    "sm_100": _nvidia("sm_100", "B200", 148, threads_per_sm=2048, blocks_per_sm=32,
                      shared_per_sm_kb=228, optin_kb=227,
                      peak_tflops={"fp32": 75.0, "tf32": 1125.0, "fp16": 2250.0, "bf16": 2250.0, "fp8": 4500.0},
                      mem_bandwidth_gbs=8000.0, l2_bytes=126 * MB, clock_ghz=1.98, memory_gb=180),
    # Compute capability 12.0 (CUDA Guide table): 1536 threads per SM; 100 KB shared per SM, 99 KB per block.
    # Blocks per SM: 24, as cuda_occupancy.h (CUDA 13.0, cudaOccMaxBlocksPerMultiprocessor, `case 12`)
    # says; the occupancy API is what a launch is held to, so it wins over a table that says 32.
    # NVIDIA RTX Blackwell GPU Architecture white paper, appendix table (GeForce RTX 5090): 170 SMs, 2407 MHz
    # boost, 1792 GB/s, 96 MB L2; FP32 104.8; tensor with FP32 accumulate: TF32 104.8, FP16/BF16 209.5,
    # FP8 419 TFLOPS dense.
    "sm_120": _nvidia("sm_120", "GeForce RTX 5090", 170, threads_per_sm=1536, blocks_per_sm=24,
                      shared_per_sm_kb=100, optin_kb=99,
                      peak_tflops={"fp32": 104.8, "tf32": 104.8, "fp16": 209.5, "bf16": 209.5, "fp8": 419.0},
                      mem_bandwidth_gbs=1792.0, l2_bytes=96 * MB, clock_ghz=2.407, memory_gb=32),
}


def _cdna(target, name, num_sms, *, lds_per_cu, peak_tflops, mem_bandwidth_gbs, l2_bytes, clock_ghz,
          memory_gb, infinity_cache_bytes=0, infinity_cache_gbs=0.0, l2_partitions=1, matrix_clock_ghz=None) -> Device:
    """CDNA2/3/4 (gfx90a, gfx942, gfx950): 4 SIMDs a CU, wave64, a unified 512-entry VGPR+AGPR file."""
    return Device(
        target=target, name=name, vendor="amd", num_sms=num_sms, sm_unit="CU",
        warp_size=64,                        # CDNA ISA: wavefronts of 64 work-items
        max_threads_per_block=1024,          # HIP: max work-group size 1024
        max_threads_per_sm=8 * 4 * 64,       # 8 waves x 4 SIMDs x 64 lanes
        max_warps_per_sm=8 * 4,
        max_blocks_per_sm=16,                # LLVM AMDGPU getMaxWorkGroupsPerCU: 16 barriers per CU (gfx9)
        simds_per_cu=4,                      # CDNA3 ISA / white paper: 4 SIMD units per CU
        max_waves_per_simd=8,                # LLVM AMDGPU getMaxWavesPerEU: 8 on gfx90a and later (CDNA3 ISA: 8 waves/SIMD)
        vgprs_per_simd=512,                  # LLVM AMDGPU getTotalNumVGPRs: 512 with GFX90A insts (256 arch + 256 acc)
        vgpr_alloc_granule=8,                # LLVM AMDGPU getVGPRAllocGranule: 8 with GFX90A insts
        max_vgprs_per_wave=512,              # CDNA3 ISA: up to 512 VGPRs per wave (arch + AGPRs)
        unified_agprs=True,                  # CDNA2+ ISA: AGPRs share the VGPR file, allocated after arch VGPRs
        sgprs_per_simd=800,                  # GCN/CDNA ISA: 800 SGPRs per SIMD
        max_sgprs_per_wave=102,              # CDNA3 ISA: 102 user SGPRs (plus VCC)
        sgpr_limits_waves=True,              # LLVM AMDGPU getOccupancyWithNumSGPRs: SGPRs limit waves before gfx10
        lds_per_cu=lds_per_cu,
        lds_per_workgroup=lds_per_cu,        # a workgroup may take a CU's whole LDS
        lds_alloc_unit=512,                  # LLVM AMDGPUUsage, COMPUTE_PGM_RSRC2.LDS_SIZE: GFX7+ in 128-dword blocks
        max_workgroups_per_cu=16,
        peak_tflops=peak_tflops, mem_bandwidth_gbs=mem_bandwidth_gbs, l2_bytes=l2_bytes, clock_ghz=clock_ghz,
        memory_bytes=memory_gb * GB, infinity_cache_bytes=infinity_cache_bytes, infinity_cache_gbs=infinity_cache_gbs,
        l2_partitions=l2_partitions, matrix_clock_ghz=matrix_clock_ghz or {})


DEVICES.update({
    # AMD Instinct MI250X datasheet: 220 CUs in two GCDs at 1700 MHz, 3.2768 TB/s, 8 MB L2 per GCD; FP32 vector
    # 47.9, FP16/BF16 matrix 383 TFLOPS. Each GCD is its own device to HIP and Triton, so the numbers are per
    # GCD: 110 CUs, half the peaks and bandwidth. CDNA2 has no TF32 or FP8 matrix instructions.
    "gfx90a": _cdna("gfx90a", "Instinct MI250X (one GCD)", 110, lds_per_cu=64 * KB,   # CDNA2 ISA: 64 KB LDS per CU
                    peak_tflops={"fp32": 23.95, "fp16": 191.5, "bf16": 191.5},
                    mem_bandwidth_gbs=1638.4, l2_bytes=8 * MB, clock_ghz=1.7, memory_gb=64),
    # AMD Instinct MI300X datasheet: 304 CUs, 2100 MHz peak engine clock, 5.3 TB/s; FP32 vector 163.4,
    # TF32 653.7, FP16/BF16 1307.4, FP8 2614.9 TFLOPS dense. CDNA3 white paper: 4 MB L2 per XCD, 8 XCDs,
    # and a 256 MB Infinity Cache between them and HBM, whose "peak bandwidth ... is 17.2 TB/s".
    # The peaks assume 2100 MHz, but the power manager lowers the clock for dense matrix work: AMD's ROCm blog
    # "Measuring Max-Achievable FLOPs - Part 2" (Sander et al., 28 Feb 2025, table 1) measured median clocks
    # of 1115 MHz (fp16), 1207 MHz (bf16) and 1230 MHz (fp8) while hipBLASLt ran a large GEMM on data that
    # toggles as real weights do, after a warm-up.
    "gfx942": _cdna("gfx942", "Instinct MI300X", 304, lds_per_cu=64 * KB,             # CDNA3 ISA: 64 KB LDS per CU
                    peak_tflops={"fp32": 163.4, "tf32": 653.7, "fp16": 1307.4, "bf16": 1307.4, "fp8": 2614.9},
                    mem_bandwidth_gbs=5300.0, l2_bytes=32 * MB, clock_ghz=2.1, memory_gb=192,
                    infinity_cache_bytes=256 * MB, infinity_cache_gbs=17200.0, l2_partitions=8,
                    matrix_clock_ghz={"fp16": 1.115, "bf16": 1.207, "fp8": 1.230}),
    # AMD Instinct MI355X datasheet: 256 CUs, 2400 MHz, 8 TB/s; FP32 vector 157.3, FP16/BF16 2516.6,
    # FP8 5033.2 TFLOPS dense. CDNA4 white paper: 160 KB LDS per CU, 4 MB L2 per XCD, 8 XCDs; AMD's MI355X
    # product page: 256 MB Infinity Cache. CDNA4 drops the xf32 (TF32) matrix instructions, so there is no
    # tf32 peak.
    "gfx950": _cdna("gfx950", "Instinct MI355X", 256, lds_per_cu=160 * KB,  # LLVM AMDGPU: FeatureLocalMemorySize163840
                    peak_tflops={"fp32": 157.3, "fp16": 2516.6, "bf16": 2516.6, "fp8": 5033.2},
                    mem_bandwidth_gbs=8000.0, l2_bytes=32 * MB, clock_ghz=2.4, memory_gb=288,
                    infinity_cache_bytes=256 * MB, l2_partitions=8),
    # RDNA3 (gfx1100), wave32 as Triton compiles for it. Work-groups run in WGP mode (LLVM's default): a
    # work-group's waves share a WGP, two CUs with 4 SIMDs and 128 KB of LDS between them, so the "SM" here
    # is a WGP. AMD Radeon RX 7900 XTX spec page: 96 CUs (48 WGPs), 2500 MHz boost, 960 GB/s, 6 MB L2, 96 MB
    # Infinity Cache (the RX 7900 XT and GRE, gfx1100 too, have 80 and 64 MB: this row is the XTX);
    # FP32 61.4 (dual issue), FP16/BF16 122.8 TFLOPS (WMMA). No FP8 or TF32 matrix instructions.
    "gfx1100": Device(
        target="gfx1100", name="Radeon RX 7900 XTX", vendor="amd", num_sms=48, sm_unit="WGP",
        warp_size=32, max_threads_per_block=1024,
        max_threads_per_sm=16 * 4 * 32, max_warps_per_sm=16 * 4,
        max_blocks_per_sm=32,                # LLVM AMDGPU getMaxWorkGroupsPerCU: 32 barriers in WGP mode (gfx10+)
        simds_per_cu=4,                      # LLVM AMDGPU getEUsPerCU: 4 in WGP mode
        max_waves_per_simd=16,               # LLVM AMDGPU getMaxWavesPerEU: 16 on gfx10.3+
        vgprs_per_simd=1536,                 # LLVM AMDGPU getTotalNumVGPRs: 1536 (wave32, Feature1_5xVGPRs on gfx1100)
        vgpr_alloc_granule=24,               # LLVM AMDGPU getVGPRAllocGranule: 24 (wave32, 1.5x VGPRs)
        max_vgprs_per_wave=256,              # RDNA3 ISA: 256 VGPRs per wave
        unified_agprs=False,                 # RDNA has no AGPRs
        sgprs_per_simd=0, max_sgprs_per_wave=106,  # RDNA3 ISA: 106 SGPRs; not an occupancy limit on gfx10+
        sgpr_limits_waves=False,
        lds_per_cu=128 * KB,                 # RDNA3 ISA: 128 KB LDS per WGP (LLVM: 64 KB addressable, x2 in WGP mode)
        lds_per_workgroup=64 * KB,           # RDNA3 ISA: a work-group addresses at most 64 KB
        lds_alloc_unit=512,                  # LLVM AMDGPUUsage, COMPUTE_PGM_RSRC2.LDS_SIZE: 128-dword blocks
        max_workgroups_per_cu=32,
        peak_tflops={"fp32": 61.4, "fp16": 122.8, "bf16": 122.8},
        mem_bandwidth_gbs=960.0, l2_bytes=6 * MB, clock_ghz=2.5, memory_bytes=24 * GB, infinity_cache_bytes=96 * MB),
})


# How each representative part reaches its host, from its datasheet or spec page (the interconnect or bus row):
# A100 SXM4 "PCIe Gen4", GeForce RTX 3090 and 4090 "PCIe 4.0", H100 SXM5 "PCIe Gen5", GeForce RTX 5090 "PCIe 5.0";
# Instinct MI250X "PCIe 4.0 x16", MI300X and MI355X "PCIe 5.0 x16", Radeon RX 7900 XTX "PCIe 4.0". All x16. The
# B200 is left out (sources say Gen5 or Gen6): a copy on it is not timed. The parts of VARIANTS keep their row's
# link, as their own datasheets say (A100 PCIe and L40S: Gen4; H100 PCIe, NVL, H800 and H200: Gen5; MI325X: Gen5).
HOST_LINKS = {"sm_80": "PCIe 4.0 x16", "sm_86": "PCIe 4.0 x16", "sm_89": "PCIe 4.0 x16", "sm_90": "PCIe 5.0 x16",
              "sm_120": "PCIe 5.0 x16", "gfx90a": "PCIe 4.0 x16", "gfx942": "PCIe 5.0 x16", "gfx950": "PCIe 5.0 x16",
              "gfx1100": "PCIe 4.0 x16"}
# A link's rate, per direction: PCI-SIG's line rate, 16 lanes x 16 GT/s (PCIe 4.0) or 32 GT/s (PCIe 5.0), 128b/130b
# encoding, 8 bits a byte: 31.5 and 63.0 GB/s. A line rate is an upper bound: packet headers and flow control take
# part of it, and a copy from pageable memory is staged through a pinned buffer first (virtual/copies.py says so
# wherever it times a copy with one).
HOST_LINK_GBS = {"PCIe 4.0 x16": 16 * 16 * 128 / 130 / 8, "PCIe 5.0 x16": 16 * 32 * 128 / 130 / 8}
DEVICES = {target: dataclasses.replace(d, host_link=HOST_LINKS.get(target, "")) for target, d in DEVICES.items()}


def host_link_gbs(device: Device) -> float | None:
    """GB/s per direction between the part and its host (the line rate above), or None where not known."""
    return HOST_LINK_GBS.get(device.host_link)


# Other GPUs of a target's architecture, by the name --target takes for them: the representative row with
# the per-product numbers of the part's own datasheet (the per-architecture limits stay). The compile is the
# architecture's (the same binary, the same cache); occupancy, the roofline and the model use this row.
# NVIDIA A100 datasheet: 40GB parts (SXM4 and PCIe) 1555 GB/s; the 80GB PCIe part 1935 GB/s; both with the
# SXM4 80GB's 108 SMs, 1410 MHz and peaks. NVIDIA H100 datasheet (sparse tensor figures halved): the PCIe part
# 114 SMs at its 1755 MHz boost, 2000 GB/s, FP32 51.2, TF32 378, FP16/BF16 756, FP8 1513 TFLOPS, 80 GB; the NVL
# 132 SMs at 1785 MHz, 3.9 TB/s, FP32 60, TF32 417.5, FP16/BF16 835.5, FP8 1670.5 TFLOPS, 94 GB. The H800 SXM5
# is the H100 SXM5's figures for everything here (what differs is NVLink and FP64).
# NVIDIA H200 datasheet (the SXM part; sparse tensor figures halved): the H100 SXM5's 132 SMs, clock and peaks
# (FP16/BF16 989.5, FP8 1979, TF32 494.5, FP32 67 TFLOPS) with 141 GB of HBM3e at 4.8 TB/s. No NVIDIA document
# gives its L2: the driver reports 60 MB (cudaDevAttrL2CacheSize, as torch reads it) on the H200s this project's
# GPU sessions are lent, the whole L2 the GH100 die implements (Chips and Cheese, "Nvidia's H100: Funny L2, and
# Tons of Bandwidth", 2023: 60 MB on the die, 50 MB enabled on the H100 parts).
# NVIDIA L40S datasheet (Ada): 18,176 CUDA cores (142 SMs of 128), 864 GB/s, 48 GB; tensor with FP32
# accumulate, dense: FP16/BF16 362.05, TF32 183, FP8 733; FP32 91.6 TFLOPS; 2520 MHz boost. Its L2 is not on
# the datasheet, and sources disagree: 48 MB in TechPowerUp's database; two measurements on an L40 (the same
# 142-SM AD102 part) find 96 MB: arXiv 2606.22588, and te42kyfo/gpu-benches' gpu-l2-cache/l40.txt, whose L2
# speed holds to a 92 MB data set and is gone by 110 MB. 96 MB is taken.
# AMD Instinct MI325X datasheet: the MI300X's 304 CUs and peaks (FP16/BF16 1307.4 TFLOPS dense at 2100 MHz)
# with 256 GB of HBM3E at 6 TB/s. Its dense matrix clocks from the same AMD blog as the MI300X's: 1354 MHz
# fp16, 1447 MHz bf16, 1464 MHz fp8. Its 256 MB Infinity Cache sits on the MI300X's I/O dies; AMD publishes no
# bandwidth for it on the MI325X, and the row keeps the MI300X's 17.2 TB/s (an assumption).
VARIANTS = {
    "a100-40gb": dataclasses.replace(DEVICES["sm_80"], name="A100 40GB", mem_bandwidth_gbs=1555.0, memory_bytes=40 * GB),
    "a100-pcie": dataclasses.replace(DEVICES["sm_80"], name="A100 80GB PCIe", mem_bandwidth_gbs=1935.0),
    "h100-pcie": dataclasses.replace(DEVICES["sm_90"], name="H100 PCIe", num_sms=114, clock_ghz=1.755,
                                     mem_bandwidth_gbs=2000.0, peak_tflops={"fp32": 51.2, "tf32": 378.0, "fp16": 756.0,
                                                                            "bf16": 756.0, "fp8": 1513.0}),
    "h100-nvl": dataclasses.replace(DEVICES["sm_90"], name="H100 NVL", clock_ghz=1.785, mem_bandwidth_gbs=3900.0,
                                    memory_bytes=94 * GB, peak_tflops={"fp32": 60.0, "tf32": 417.5, "fp16": 835.5,
                                                                       "bf16": 835.5, "fp8": 1670.5}),
    "h800": dataclasses.replace(DEVICES["sm_90"], name="H800 SXM5"),
    "h200": dataclasses.replace(DEVICES["sm_90"], name="H200 SXM 141GB", mem_bandwidth_gbs=4800.0,
                                memory_bytes=141 * GB, l2_bytes=60 * MB),
    "l40s": dataclasses.replace(DEVICES["sm_89"], name="L40S", num_sms=142, mem_bandwidth_gbs=864.0, l2_bytes=96 * MB,
                                memory_bytes=48 * GB, peak_tflops={"fp32": 91.6, "tf32": 183.0, "fp16": 362.05,
                                                                   "bf16": 362.05, "fp8": 733.0}),
    "mi325x": dataclasses.replace(DEVICES["gfx942"], name="Instinct MI325X", mem_bandwidth_gbs=6000.0,
                                  memory_bytes=256 * GB, matrix_clock_ghz={"fp16": 1.354, "bf16": 1.447, "fp8": 1.464}),
}


def same_gpu(variant: str, driver_name: str) -> bool:
    """Whether the driver's name for a GPU ("NVIDIA A100-SXM4-40GB") is the part a VARIANTS name says ("a100-40gb"):
    every dash-separated word of the name, in the driver's without spaces, dashes and case; and the memory size
    the driver's name carries, if it carries one, is the part's (an "A100-PCIE-40GB" is not the 80GB PCIe part)."""
    low = driver_name.lower()
    compact = "".join(ch for ch in low if ch not in " -_")
    if not all(word in compact for word in variant.split("-")):
        return False
    # a form factor both names state must agree: "h800" is the H800 SXM5, not the 114-SM H800 PCIe
    forms = ("pcie", "sxm", "nvl")
    row = VARIANTS[variant].name.lower().replace(" ", "")
    named, said = [f for f in forms if f in row], [f for f in forms if f in compact]
    if named and said and named != said:
        return False
    size = re.search(r"(?<!\d)(\d+)\s*gb", low)
    return size is None or int(size.group(1)) == round(VARIANTS[variant].memory_bytes / GB)


def for_driver_name(target, driver_name: str) -> Device:
    """The row of the GPU the driver names, for a target: the named GPU's if the target names one; else the one
    part of VARIANTS of its architecture the name is (an L40S is sm_89, but not an RTX 4090); else the target's."""
    if getattr(target, "gpu", ""):
        return get(target)
    name = getattr(target, "name", target)
    parts = [v for v, d in VARIANTS.items() if d.target == name and same_gpu(v, driver_name)]
    return VARIANTS[parts[0]] if len(parts) == 1 else get(name)


def get(target) -> Device:
    """The device row for a Target (its named GPU's, `Target.gpu`, where it has one) or a name: a target
    ("sm_90") or a named GPU of VARIANTS ("l40s")."""
    gpu = getattr(target, "gpu", "")
    if gpu:
        return VARIANTS[gpu]
    name = getattr(target, "name", target)
    found = DEVICES.get(name) or VARIANTS.get(name)
    if found is None:
        raise UserError(f"no device table for '{name}'; known: {', '.join([*DEVICES, *VARIANTS])}")
    return found


def with_num_sms(device: Device, n: int | None) -> Device:
    """The same architecture with `n` SMs (CUs), for another GPU of the family.

    Per-SM limits are architectural and stay. Compute peaks scale with the SM count at the same clock
    (peak = SMs x per-SM rate x clock, the datasheets' own arithmetic); bandwidth and L2 belong to the
    memory system and stay the named GPU's, except where each L2 serves its own chiplet (CDNA3/4: one per
    XCD). There the chiplets go with the CUs: an XCD keeps the named part's CUs and its own L2 (MI300X 38
    CUs and 4 MB an XCD; the MI300A's 228 CUs are 6 such XCDs, CDNA3 white paper), so `n` CUs make
    ceil(n / CUs an XCD) of them, each with its L2. The Infinity Cache and HBM behind them stay.
    """
    if n is None or n == device.num_sms:
        return device
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise UserError(f"num_sms {n}: must be a positive integer", param="num_sms")
    scale = n / device.num_sms
    unit = device.sm_unit + "s"
    memory = {}
    if device.l2_partitions > 1:
        per_partition = device.num_sms // device.l2_partitions
        partitions = math.ceil(n / per_partition)
        memory = {"l2_partitions": partitions, "l2_bytes": device.l2_bytes // device.l2_partitions * partitions}
    return dataclasses.replace(device, num_sms=n, name=f"{device.name} architecture with {n} {unit}",
                               peak_tflops={k: round(v * scale, 1) for k, v in device.peak_tflops.items()},
                               **memory)
