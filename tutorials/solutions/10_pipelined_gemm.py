"""Solution to lesson 10's exercise: the BLOCK_SIZE_K=128 GEMM, pipelined on sm_80 and still launchable.

What `playground compile gemm --target sm_80 --meta BLOCK_SIZE_K=128 --num-stages S` gives:
  S=1: one 64 KB buffer filled by ld.global + st.shared: nothing in flight while the tensor cores work
  S=2: cp.async, but still one buffer on this path: every cp.async.wait_group waits for 0 pending
       copies, so each trip waits out its loads before it multiplies
  S=3: cp.async into a ring of two 64 KB buffers, 128 KB: the wait leaves the next step's copies
       in flight (cp.async.wait_group 2), and 128 KB fit in the 163 KB an sm_80 block may have
       (with CUDA's 1 KB reservation, 129 KB of the SM's 164 KB)
  S=4: three buffers, 192 KB: over the limit, the kernel cannot launch (blocks_per_sm == 0)
So with K steps of 128, num_stages=3 is the only answer. Halving BLOCK_SIZE_K back to 64 halves
each buffer and leaves room for deeper rings (num_stages 3 to 6 on sm_80): a deeper K step and a
deeper pipeline compete for the same shared memory. Which is faster is for a GPU (lesson 13).
"""
import dataclasses

from playground.kernels import gemm

SPEC = dataclasses.replace(
    gemm.SPEC,
    name="gemm_pipelined",
    description="C = A @ B with BLOCK_SIZE_K=128, software-pipelined",
    source_path="",
    meta={**gemm.SPEC.meta, "BLOCK_SIZE_K": 128},
    num_stages=3,   # was 1: a ring of two buffers, the most that fits at BLOCK_SIZE_K=128
)
