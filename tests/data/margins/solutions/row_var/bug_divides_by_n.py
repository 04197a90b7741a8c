"""Bug: the population variance, divided by n, where torch.var defaults to the unbiased one (correction=1,
divide by n - 1): every variance is small by a factor (n - 1) / n, 1 - 6e-5 at n = 16381. On variances
near 1 that is 6e-5, far under atol 1e-2, and it matches numpy.var's default, so it "checks out"."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_var_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        d = tl.where(mask, tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / n_cols)  # BUG: torch.var divides by n - 1


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_var_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
