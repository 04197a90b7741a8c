"""Two kernels with the bugs memcheck and racecheck catch: a store with no mask past the end of its tensor, and
every program storing the same elements."""
import torch
import triton
import triton.language as tl


@triton.jit
def no_mask(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=0.0))


@triton.jit
def all_write_one(y_ptr, BLOCK: tl.constexpr):
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), tl.program_id(0), tl.float32))

x = torch.randn(1000, device="cuda"); y = torch.empty(1000, device="cuda")
no_mask[(4,)](x, y, 1000, BLOCK=256)
z = torch.empty(64, device="cuda")
all_write_one[(4,)](z, BLOCK=64)
print("done")
