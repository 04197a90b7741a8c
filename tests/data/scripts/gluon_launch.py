"""A script that launches a Gluon kernel: compiled and captured on the virtual GPU, but Triton's interpreter
does not run Gluon."""
import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def copy_kernel(in_ptr, out_ptr, n, XBLOCK: gl.constexpr):
    pid = gl.program_id(0)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = pid * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    mask = offs < n
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=mask), mask=mask)


x = torch.randn(4096, device="cuda")
y = torch.zeros_like(x)
copy_kernel[(32,)](x, y, 4096, XBLOCK=128)
print("copied:", torch.equal(x, y))
