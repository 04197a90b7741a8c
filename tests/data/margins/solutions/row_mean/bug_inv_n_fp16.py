"""Bug: the reciprocal 1/n is kept in fp16 (a "scalars in half, they are tiny" habit), then the fp32 sum
is multiplied by it. fp16 has 11 significant bits: 1/8191 rounds to 2^-13 = 1/8192, so every mean is off by
a factor 1 - 1.2e-4 (on means near 0.01, about 1e-6); at other n up to 1 +- 4.9e-4 (exact only for n = 2^k)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    inv_n = (1.0 / n_cols).to(tl.float16)  # BUG: the reciprocal kept in fp16
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * inv_n.to(tl.float32))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        mean_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
