"""Correct: online softmax. One pass keeps per-lane running maxima and sums of exp(x - max), rescaling a lane's
sum whenever its max grows; the lanes are merged, and a second pass writes exp(x - max) / sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        # a lane that has seen only -inf keeps a zero sum (exp(-inf - -inf) is NaN)
        s = s * tl.where(new_m == float("-inf"), 0.0, tl.exp(m - new_m)) \
            + tl.where(x == float("-inf"), 0.0, tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
        tl.store(out_ptr + row * stride + cols, tl.exp(x - row_max) / row_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        online_softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
