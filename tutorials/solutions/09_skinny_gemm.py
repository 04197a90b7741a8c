"""Solution to lesson 09's exercise: the skinny GEMM with a tile tall enough for wgmma.

One warp group (4 warps) issues wgmma on tiles of 64 rows (m64nNk16): with BLOCK_SIZE_M=32
there is no 64-row slice to give it, and the compiler falls back to mma.sync. 64 rows is
the least that works. For M=32 half of each tile's rows are masked off, so half of the
tensor-core work is wasted; whether wgmma still wins over mma.sync is a question for a
GPU (lesson 13), which is why autotuners try both.
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="skinny_gemm",
    description="C = A @ B for skinny A (M around 32)",
    source_path="",
    meta={**gemm.SPEC.meta, "BLOCK_SIZE_M": 64},   # was 32: wgmma needs 64 rows per warp group
    num_warps=4,
    default_shape={"M": 32, "N": 4096, "K": 4096},
)
