"""Solution to lesson 08's exercise (occupancy): relu_matmul at 50% occupancy on sm_90.

At 128 x 128 tiles with 4 warps each thread holds 128 accumulator values and the kernel
needs 196 registers per thread: 196 x 32 = 6272 per warp, rounded up to 6400 (units of 256),
so each of the SM's four 16384-register sub-partitions holds 2 warps: 8 warps, 2 CTAs,
12.5%. With 64 x 64 tiles each thread holds 32 accumulator values, the kernel needs
62 registers (2048 per warp), 8 warps fit per sub-partition: 32 warps, 8 CTAs, 50%.

What it costs: a 64 x 64 tile reuses each loaded element 64 times instead of 128, so the
kernel loads twice the bytes per FLOP from L2 (lesson 09). Occupancy bought with smaller
tiles is not free; only a measurement says whether the latency it hides is worth more.
"""
import dataclasses

from playground.kernels import relu_matmul

SPEC = dataclasses.replace(
    relu_matmul.SPEC,
    name="relu_matmul_64",
    source_path="",
    meta={**relu_matmul.SPEC.meta, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64},   # was 128 x 128
)
