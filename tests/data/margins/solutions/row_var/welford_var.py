"""Correct: Welford per lane (count, mean, M2), lanes merged with Chan's formula, M2 / (n - 1)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_var_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    count = tl.zeros([BLOCK], tl.float32)
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        count = count + tl.where(mask, 1.0, 0.0)
        delta = x - mean
        mean = tl.where(mask, mean + delta / tl.maximum(count, 1.0), mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
    row_mean = tl.sum(count * mean, axis=0) / n_cols
    spread = mean - row_mean
    tl.store(out_ptr + row, tl.sum(m2 + count * spread * spread, axis=0) / (n_cols - 1))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_var_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=128)
        return out
