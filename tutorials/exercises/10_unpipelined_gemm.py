"""Lesson 10's exercise: the GEMM of kernels/gemm.py with a deeper K step and no software pipeline.

Someone doubled BLOCK_SIZE_K to 128, so that each trip of the K loop does twice the work, and,
to save shared memory, set num_stages=1. On sm_80 each thread now loads its share of a K step
into registers (ld.global), stores it to shared memory (st.shared), waits at a barrier, and only
then do the tensor cores start: no copy is in flight while they work. Copy this file
(`cp tutorials/exercises/10_unpipelined_gemm.py my_gemm.py`) and change the configuration below,
not the kernel, so that on sm_80 the copies are cp.async, some of them stay in flight across the
multiply (a `cp.async.wait_group N` with N >= 1), and the block still fits in the A100's shared
memory. Check with `playground compile ./my_gemm.py --target sm_80`.
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="gemm_unpipelined",
    description="C = A @ B with BLOCK_SIZE_K=128 and no software pipeline",
    source_path="",
    meta={**gemm.SPEC.meta, "BLOCK_SIZE_K": 128},
    num_stages=1,
)
