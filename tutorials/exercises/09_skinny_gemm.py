"""Lesson 09's exercise: the GEMM of kernels/gemm.py, configured for skinny problems (M around 32).

Small batches make skinny matrices: a 32 x 4096 activation times a 4096 x 4096 weight.
Someone sized the tile to the problem: 32 rows, 4 warps. On sm_90 this compiles to
Ampere-style mma.sync, not Hopper's wgmma. Copy this file (`cp tutorials/exercises/09_skinny_gemm.py
my_gemm.py`), change the configuration below so that sm_90 issues wgmma, and check with
`playground compile ./my_gemm.py --target sm_90`.
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="skinny_gemm",
    description="C = A @ B for skinny A (M around 32)",
    source_path="",
    meta={**gemm.SPEC.meta, "BLOCK_SIZE_M": 32},
    num_warps=4,
    default_shape={"M": 32, "N": 4096, "K": 4096},
)
