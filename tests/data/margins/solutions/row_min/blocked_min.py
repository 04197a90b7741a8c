"""Correct: blocked row minimum, the ragged last block's masked lanes loaded as +inf so they never win."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_min_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        m = tl.minimum(m, tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("inf")))
    tl.store(out_ptr + row, tl.min(m, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_min_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=256)
        return out
