"""A Gluon kernel (triton.experimental.gluon): the author writes the layouts Triton would otherwise choose.

Each of the 4 warps' 32 threads holds one element of a 128-element block (BlockedLayout: size per thread,
threads per warp, warps per CTA, order), so Triton lowers it straight to TTGIR."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def copy_kernel(in_ptr, out_ptr, n, XBLOCK: gl.constexpr):
    pid = gl.program_id(0)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = pid * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    mask = offs < n
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=mask), mask=mask)
