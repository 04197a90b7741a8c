"""Correct: per-lane fp32 partial sums over the row, one tree tl.sum, times 1/n computed on the host and
passed as an fp32 argument (a multiply by a rounded reciprocal: one extra rounding, within an ulp or two)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_kernel(x_ptr, out_ptr, n_cols, inv_n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * inv_n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        mean_kernel[(x.shape[0],)](x, out, x.shape[1], 1.0 / x.shape[1], x.stride(0), BLOCK=1024)
        return out
