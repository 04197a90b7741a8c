"""Correct: a loop of BLOCK-sized tl.sum calls, each block's sum added to an fp32 scalar accumulator, then
divided by n."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def blocked_mean_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        total += tl.sum(tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0), axis=0)
    tl.store(out_ptr + row, total / n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        blocked_mean_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=256)
        return out
