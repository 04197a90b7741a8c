"""Where a Triton kernel branches, and where it does not (lesson 06).

Two kinds of choice, side by side:
- per element (`tl.where`): each lane keeps one of two values it has computed; no branch at all;
- per program (`if flag != 0:` on a scalar): every thread of the CTA takes the same way, so no warp
  is split by it.
A CUDA C++ kernel can branch on `threadIdx.x` and split a warp; Triton's block-level model never
hands one thread a condition of its own, except through masks.
"""
import triton
import triton.language as tl


@triton.jit
def branches_kernel(
    # pointers
    x_ptr, flags_ptr, out_ptr,
    # size
    n,
    # meta-parameters
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where(x > 0, tl.exp(x), -x)          # per element: both sides computed, one kept
    flag = tl.load(flags_ptr + pid)             # one value for the whole program
    if flag != 0:                               # uniform: every thread of the CTA goes the same way
        y = y * 2
    tl.store(out_ptr + offs, y, mask=mask)
