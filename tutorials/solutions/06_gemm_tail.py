"""Solution to the exercise of lesson 06: gemm at M = N = 3072 on sm_90 without a nearly empty last wave.

With 128 x 128 tiles the grid is 24 x 24 = 576 CTAs; two fit on an SM (registers and shared
memory), so a wave is 2 x 132 = 264 CTAs and the grid runs as 264 + 264 + 48: the third
wave keeps 48 of 264 slots busy (18%). Halving the tile's height to 64 rows doubles the CTAs
to 1152 and, because each CTA now needs half the accumulator registers and less shared
memory, three fit per SM: waves of 396, run as 396 + 396 + 360, the last 91% full.

The price: a 64 x 128 tile reuses each loaded value of B over 64 rows instead of 128, so the
kernel moves more bytes per FLOP (lesson 09). Whether the fuller waves pay for that is a
measurement (lesson 13).
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="gemm_tail",
    source_path="",
    meta={**gemm.SPEC.meta, "BLOCK_SIZE_M": 64},   # was 128: 576 -> 1152 CTAs, 2 -> 3 per SM
    default_shape={"M": 3072, "N": 3072, "K": 4096},
)
