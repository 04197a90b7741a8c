"""Bug: the row sum is divided by n - 1 (the sample-variance habit) instead of n. The mean comes out larger by
a factor n / (n - 1) = 1 + 1.2e-4: on means near 0.01 an absolute error near 1e-6, under every atol."""
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
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / (n_cols - 1))  # BUG: n_cols


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        mean_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
