"""Programmatic dependent launch as Triton's tutorial 11 writes it: the second kernel waits on the first with
gdc_wait, the first lets it start early with gdc_launch_dependents."""
import torch
import triton
import triton.language as tl
from triton.language.extra import cuda as tl_cuda


@triton.jit
def produce(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl_cuda.gdc_launch_dependents()
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def consume(y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    tl_cuda.gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(z_ptr + offs, tl.load(y_ptr + offs, mask=mask) * 2, mask=mask)


x = torch.randn(1000, device="cuda")
y, z = torch.empty_like(x), torch.empty_like(x)
produce[(4,)](x, y, 1000, BLOCK=256, launch_pdl=True)
consume[(4,)](y, z, 1000, BLOCK=256, launch_pdl=True)
assert torch.equal(z, (x + 1) * 2)
print("dependent launches: ok")
