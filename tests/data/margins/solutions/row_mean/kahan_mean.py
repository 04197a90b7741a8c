"""Correct: Kahan-compensated sum. Each lane keeps a sum and a compensation c holding the low-order bits the
last addition lost (c = (t - s) - y); the next element is corrected by it (y = x - c). Lanes merge by tl.sum of
sum - c, then divide by n."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def kahan_mean_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.zeros([BLOCK], tl.float32)
    c = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        y = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0) - c
        t = s + y
        c = (t - s) - y
        s = t
    tl.store(out_ptr + row, tl.sum(s - c, axis=0) / n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        kahan_mean_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=64)
        return out
