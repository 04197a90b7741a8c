"""The microarchitecture figures the performance model uses beyond the device table, each with its source.

Peaks, SM counts, clocks, DRAM bandwidth and L2 size stay in `core/devices.py` (datasheets). What lives
here is what a datasheet does not print: how much of a peak a kernel can sustain, how long a load takes,
how wide the on-chip paths are. Each uncertain figure is a `Span` (optimistic, typical, pessimistic);
the model runs once per column, and the optimistic and pessimistic runs are its uncertainty band.
No figure here was fitted to the validation set in `benchmarks/data/`.
"""
from __future__ import annotations

from dataclasses import dataclass

SCENARIOS = ("optimistic", "typical", "pessimistic")


@dataclass(frozen=True)
class Span:
    optimistic: float
    typical: float
    pessimistic: float

    def at(self, scenario: str) -> float:
        return getattr(self, scenario)


# Share of the datasheet tensor-core peak a long run of matrix instructions sustains. Two published
# figures bound it: NVIDIA's DCGM maintainers say cuBLAS and CUTLASS reach "90-95% utilization" of the
# tensor cores (github.com/NVIDIA/DCGM/issues/40); NVIDIA's GTC 2020 CUTLASS slide, quoted in
# github.com/NVIDIA/cutlass/issues/105, shows 240 of 310 TFLOPS (77%) on A100. The typical column is
# between them. Used for wgmma (sm_90), tcgen05 (sm_100+), mma.sync where it is the native path (sm_80,
# sm_86, sm_89, sm_120) and AMD's v_mfma / v_wmma.
TENSOR_EFFICIENCY = Span(0.95, 0.85, 0.77)

# mma.sync on Hopper: the warp-level instruction does not reach the warpgroup (wgmma) rate. One public
# measurement put warp-level MMA at about half of H100's fp16 peak (r/CUDA, "Since WGMMA has 2x
# throughput of WMMA in H100 GPU ..."); the Hopper microbenchmark papers (Luo et al., arXiv 2402.13499,
# 2501.12084) report the legacy path well below wgmma. No datasheet gives a figure: hence the wide span.
HOPPER_MMA_SYNC_EFFICIENCY = Span(0.65, 0.50, 0.45)

# Plain FP32 (FMA) code: the datasheet peak counts every lane issuing an FMA every clock; element-wise
# and reduction code also issues loads, address arithmetic and shuffles. A modelling assumption, not a
# measurement; it matters only for kernels bound by arithmetic without tensor cores.
FMA_EFFICIENCY = Span(0.90, 0.75, 0.60)

# The sustained core clock as a share of the clock the peaks assume. Chips and Cheese ("Nvidia's H100:
# Funny L2, and Tons of Bandwidth", 2023) saw an H100 PCIe drop to 1395 MHz, under 80% of its boost,
# at its power limit, while an A100 SXM4 held 1410 MHz under load.
CLOCK_SHARE = Span(1.00, 0.95, 0.80)

# Share of the datasheet DRAM bandwidth a streaming kernel sustains: an assumption (no vendor publishes
# one), wide on purpose; reads and writes mixed, and reads that are not perfectly sequential, cost more.
DRAM_EFFICIENCY = Span(0.92, 0.87, 0.80)

# Load latencies by pointer chase, in core clocks: te42kyfo/gpu-benches, one block chasing a random list with a
# 64-byte stride over data sets from 1 kB up, on an idle GPU (latency in ns times the clock each file records):
#   cuda-latency/a100_80.txt   A100 80GB at 1410 MHz: L1 36; L2 211 for data sets up to 18 MB, 424 from 32 to
#                              39 MB (the far one of the two partitions the A100 white paper splits L2 into);
#                              DRAM 570
#   gpu-latency/h100_pcie.txt  H100 PCIe at 1755 MHz: L1 34; L2 265 up to 22 MB, 475 from 35 to 43 MB; DRAM 650
#   gpu-latency/l40.txt        L40 at 2490 MHz: L1 36; L2 276.5 up to 94 MB, one latency throughout; DRAM 631
# A loaded memory system queues, so the pessimistic column is 1.3 times the idle figure (an assumption). The
# H100 SXM's HBM3 was not measured: its PCIe sibling's HBM2e figure stands in. Other targets keep the span the
# model used before these measurements were found, from a weak source (doi:10.1016/j.ultsonch.2023.106546,
# table 3, uses 400 cycles for V100, A100 and H100 alike; longer typical and pessimistic columns for queueing).
_QUEUED = 1.3
DRAM_LATENCY_CYCLES = {"sm_80": Span(570, 570, 570 * _QUEUED), "sm_89": Span(631, 631, 631 * _QUEUED),
                       "sm_90": Span(650, 650, 650 * _QUEUED)}
DRAM_LATENCY_UNMEASURED = Span(400, 500, 650)


def dram_latency(target: str) -> Span:
    return DRAM_LATENCY_CYCLES.get(target, DRAM_LATENCY_UNMEASURED)


# Latency of a global load that hits L2, in core clocks. On an L40 (AD102, Ada): F. Alpay and B. Basaran,
# "Non-Uniform L2 Cache Latency Across the Streaming Multiprocessors of an NVIDIA L40", arXiv 2606.22588 (2026):
# 279 cycles on average, 222 to 339 depending on the SM that issues the load (gpu-benches' 276.5, above, agrees).
# A grid spread evenly over the SMs ends when its slowest ones do, so the span runs from the mean (optimistic and
# typical) to the slowest SM's. On the A100 and H100, whose L2 is two partitions, gpu-benches' near and far
# figures (above) bound it; data spread over the whole L2 is near half the time: their mean is typical.
L2_HIT_LATENCY_CYCLES = {"sm_80": Span(211, (211 + 424) / 2, 424), "sm_89": Span(279, 279, 339),
                         "sm_90": Span(265, (265 + 475) / 2, 475)}

# L2 to SM bandwidth, bytes per core clock for the whole chip. NVIDIA A100 Tensor Core GPU Architecture
# white paper: "5120 Bytes/clk" of L2 read bandwidth (2.3x V100). AMD CDNA2 and CDNA3 white papers: each
# L2 (one per GCD / XCD) has 16 channels of 128 bytes per clock.
#
# NVIDIA publishes none for Hopper or Ada. One microbenchmark measured a part of each beside the A100, with
# one kernel and revision: te42kyfo/gpu-benches @3088b333, gpu-l2-cache/{a100_80,h200,l40}.txt (100,000
# blocks of 1024 threads each sum a 512 kB chunk of doubles, read once per block, out of a data set of a
# few chunks, so L2 serves the repeats; fastest of 7 runs). The medians over the 28 data sets all three
# hold in L2 (2 to 25 MB), GB/s:
GPU_BENCHES_L2_GBS = {"A100 80GB": 5410.85, "H200": 10079.65, "L40": 5188.15}
# The A100 reaches 75% of its white-paper 5120 bytes/clk at its 1410 MHz boost there. Read as the same
# share of each other part's own peak, at its boost clock (datasheets: H200 1980 MHz, L40 2490 MHz):
A100_SHARE_OF_PEAK = GPU_BENCHES_L2_GBS["A100 80GB"] / (5120 * 1.410)


def _scaled_from_gpu_benches(part: str, boost_ghz: float) -> int:
    return round(GPU_BENCHES_L2_GBS[part] / A100_SHARE_OF_PEAK / boost_ghz)


# Hopper: 6792 bytes per clock (51 per SM on 132, against the A100's 47), measured on an H200, the H100
# SXM's GH100 die with the same 132 SMs and 50 MB of L2 (its L2 speed holds to a 44 MB data set); its
# HBM3e does not enter an L2 figure. The repository's H100 PCIe file (another revision, 128 kB per block)
# levels at about 6.9 TB/s: at 75% that is 5250 bytes/clk at that card's 1755 MHz boost, or 6600 at the
# 1395 MHz Chips and Cheese ("Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023) saw one drop to while
# it read from L2. (Until this figure the model took the A100's 5120 for Hopper, an extrapolation.)
# Ada: 2780 bytes per clock, 20 per SM on the L40's 142; the model uses it for every sm_89 part, the RTX
# 4090 (72 of AD102's 96 MB enabled) included, for which no figure was found.
# Assumptions, each a source of error: every GPU ran at its boost clock (the files record none; a part held
# below boost would have more per clock), and the benchmark reaches one share of peak on all three.
L2_BYTES_PER_CLOCK = {"sm_80": 5120, "sm_89": _scaled_from_gpu_benches("L40", 2.490),
                      "sm_90": _scaled_from_gpu_benches("H200", 1.980),
                      "gfx90a": 16 * 128, "gfx942": 8 * 16 * 128, "gfx950": 8 * 16 * 128}
# CDNA3/4 have one L2 per XCD (Device.l2_partitions): the chip's rate is one XCD's times the XCDs it has (8 on the
# MI300X and MI355X, as above), so a part with fewer of them (the MI300A's 6, a partition of one) has less
L2_BYTES_PER_CLOCK_PER_XCD = {"gfx942": 16 * 128, "gfx950": 16 * 128}


def l2_bytes_per_clock(target: str, device) -> int | None:
    """The L2's bytes per clock for the whole of `device` (a part of architecture `target`); None where no rate
    is published."""
    per_xcd = L2_BYTES_PER_CLOCK_PER_XCD.get(target)
    return per_xcd * device.l2_partitions if per_xcd else L2_BYTES_PER_CLOCK.get(target)


# what an explanation says where its L2 rate is not a vendor figure
L2_RATE_NOTES = {
    "sm_89": "L2 bandwidth: NVIDIA publishes none for Ada; 2780 bytes per clock, scaled from one microbenchmark "
             "run on an L40 and an A100 (gpu-benches; see model/constants.py)",
    "sm_90": "L2 bandwidth: NVIDIA publishes none for Hopper; 6792 bytes per clock, scaled from one "
             "microbenchmark run on an H200 (the H100's die) and an A100 (gpu-benches; see model/constants.py)"}
L2_EFFICIENCY = Span(0.90, 0.80, 0.70)       # an assumption, as DRAM's: hits on a busy L2 lose some cycles

# How much of the copy engines' writes (cp.async, TMA) and of wgmma's and tcgen05's operand reads the
# shared-memory bandwidth below is charged with. No source gives it: NVIDIA documents the 128 bytes per
# clock for threads' own accesses only. The band spans not charging them to charging them in full.
SHARED_ENGINE_SHARE = Span(0.0, 0.5, 1.0)

# Shared memory (LDS) bandwidth per SM (CU) per clock. CUDA C++ Programming Guide, "Shared Memory": 32
# banks, each 4 bytes wide, serve one request per clock: 128 bytes/clock/SM on every architecture here.
# AMD CDNA3 white paper: the LDS delivers 128 bytes per clock per CU. CDNA4 (gfx950) grew the LDS and its
# bandwidth (Chips and Cheese, "AMD's CDNA 4 Architecture Announcement", 2025) by a factor not found here:
# the model keeps 128 there, so its shared-memory term is an upper bound on gfx950, and a note says so.
SHARED_BYTES_PER_CLOCK = 128
SHARED_RATE_NOTES = {
    "gfx950": "shared memory: CDNA4's LDS is faster than CDNA3's by a factor no source here gives; the model keeps "
              "CDNA3's 128 bytes per clock per CU, so its shared-memory time is an upper bound"}

# Special functions (exp2, log2, rsqrt, sin, cos): CUDA C++ Programming Guide, "Arithmetic Instructions"
# throughput table: 16 results per clock per SM for compute capability 5.x to 12.x. (H100 SXM: 132 x 16
# x 1.83 GHz = 3.9 T/s, the figure the FlashAttention-3 paper gives against 989 TFLOPS of matmul, at
# the clock TENSOR_FLOP_PER_CLOCK below derives.)
# AMD publishes no per-CU transcendental rate in its white papers; the model leaves it out there.
SPECIAL_PER_CLOCK_NVIDIA = 16

# Instruction issue: an SM has four warp schedulers (one per sub-partition), each issuing at most one
# warp instruction per clock (CUDA C++ Programming Guide, "Compute Capability 8.x" and "9.0": four warp
# schedulers per SM; Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
# 2018: one instruction per scheduler per clock, no dual issue since Volta). Each SASS instruction a warp
# executes takes one slot. An upper bound on issue: stalls only lower it, and the model does not charge them.
ISSUE_PER_CLOCK_NVIDIA = 4

# Dense fp16 tensor-core FLOP per clock per SM, from the architecture white papers: A100 (GA100) 1024
# FMA per clock per SM, H100 (GH100) 2048. A datasheet's fp16 peak divided by SMs and this rate is the
# clock that peak assumes: 989.4 TFLOPS / (132 x 4096) = 1.83 GHz on H100 SXM, below its 1.98 GHz
# maximum boost (which its FP32 figure uses). The model runs its per-clock rates (L2, shared memory,
# special functions, latency) at the lower of the two clocks.
TENSOR_FLOP_PER_CLOCK = {"sm_80": 2048, "sm_90": 4096}

# What one launch costs beyond the kernel's own work when launches run back to back, as do_bench and
# Triton's tutorials time them: the front end fetches the launch, the block scheduler fills the SMs, and
# the last CTAs drain. University of Virginia, "CUDA Kernel Overhead" (empty kernels called
# asynchronously, a few microseconds each); the CUDA Graphs post on NVIDIA's developer blog measures a
# few microseconds per short kernel too. An assumption within that range.
LAUNCH_SECONDS = Span(2e-6, 3e-6, 5e-6)

# The unified L1 data cache and shared memory of one SM (CU), bytes: what local memory (register spills)
# is cached in beside the shared memory the resident CTAs take. CUDA C++ Programming Guide, "Compute
# Capability 8.x": 192 KB for 8.0, 128 KB for 8.6 and 8.9; "9.0": 256 KB; "10.0": 256 KB; "12.0": 128 KB.
# AMD keeps its L1 vector cache apart from the LDS: CDNA2 white paper 16 KB per CU, CDNA3 white paper 32 KB
# per CU. No source found for CDNA4 (gfx950) or RDNA3 (gfx1100): there the model leaves spills out and says so.
L1_BYTES_PER_SM = {"sm_80": 192 * 1024, "sm_86": 128 * 1024, "sm_89": 128 * 1024, "sm_90": 256 * 1024,
                   "sm_100": 256 * 1024, "sm_120": 128 * 1024, "gfx90a": 16 * 1024, "gfx942": 32 * 1024}

# The shared-memory capacities (carveouts) an NVIDIA SM can be set to, in KB; the rest of L1_BYTES_PER_SM
# is L1. CUDA C++ Programming Guide, "Compute Capability 8.x": 0, 8, 16, 32, 64, 100, 132 or 164 KB on 8.0;
# up to 100 KB on 8.6 and 8.9; "9.0": up to 228 KB (and the same steps on 10.0; 12.0 as 8.6). The model
# takes the smallest that holds the resident CTAs' shared memory (an assumption: the driver may pick larger).
SHARED_CARVEOUTS_KB = {"sm_80": (0, 8, 16, 32, 64, 100, 132, 164), "sm_86": (0, 8, 16, 32, 64, 100),
                       "sm_89": (0, 8, 16, 32, 64, 100), "sm_90": (0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
                       "sm_100": (0, 8, 16, 32, 64, 100, 132, 164, 196, 228), "sm_120": (0, 8, 16, 32, 64, 100)}
