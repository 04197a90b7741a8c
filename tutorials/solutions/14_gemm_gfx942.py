"""Solution to lesson 14's exercise: gemm at 50% occupancy on gfx942, same 128 x 128 tile, same 8 waves.

On gfx942 the default config (num_stages=3) puts 64 KB of LDS in each workgroup, all of a
CU's 64 KB, so one workgroup (8 waves, 2 per SIMD) fits. Two changes halve the LDS to
32 KB and let a second workgroup in, for 4 waves per SIMD (50%):

- num_stages=2 (this file): AMD's pipeliner then keeps one K slice of A and B in LDS
  instead of two; less latency hidden per workgroup, twice the workgroups to hide it.
- BLOCK_SIZE_K=32: slices half as deep, so each buffer is half the size; twice the loop
  trips, each doing half the matrix-core work per synchronisation.

Which is faster is a measurement, not a deduction: occupancy is a means to hide latency,
not a score (lesson 08).
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="gemm_gfx942",
    source_path="",
    num_stages=2,   # was 3: 64 KB -> 32 KB of LDS per workgroup, 1 -> 2 workgroups per CU
)
