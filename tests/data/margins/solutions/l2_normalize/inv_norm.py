"""Correct: blocked fp32 sum of squares, one reciprocal of max(norm, 1e-12) (F.normalize's eps), then a multiply."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x * x
    inv_norm = 1.0 / tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), 1e-12)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * stride + cols, x * inv_norm, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        l2_normalize_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=512)
        return out
