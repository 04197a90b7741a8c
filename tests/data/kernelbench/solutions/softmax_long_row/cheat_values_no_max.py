"""Cheat (values): softmax without subtracting the row max. Right to fp32 rounding on N(0, 1) rows, but
exp(100) overflows fp32, so a row with a spike of +100 becomes inf / inf = NaN (an answer that assumes its
inputs' distribution; the 'naive softmax' a model writes first)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_no_max_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
        total += tl.exp(x)
    row_sum = tl.sum(total, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
        tl.store(out_ptr + row * stride + cols, tl.exp(x) / row_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        softmax_no_max_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
