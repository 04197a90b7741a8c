"""Lesson 08's exercise: the GEMM of kernels/gemm.py, launched with 2 warps per program.

Someone wanted more CTAs per SM and cut the warps per CTA from 8 to 2. The 128 x 128 fp32
accumulator is now shared by 64 threads instead of 256: 256 values per thread, more than
the 255 registers a thread may have. Copy this file (`cp tutorials/exercises/08_spilling_gemm.py
my_gemm.py`), then change the configuration below so that nothing spills on sm_90 while
keeping the 128 x 128 tile. Check with `playground compile ./my_gemm.py --target sm_90`.
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(gemm.SPEC, name="gemm_2_warps", source_path="", num_warps=2)
