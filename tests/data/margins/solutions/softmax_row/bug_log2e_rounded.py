"""Bug: exp2-based softmax with log2(e) written as 1.4427 instead of 1.4426950408889634. Every exponent is
scaled by 1 + 3.4e-6, i.e. the softmax of x * 1.0000034: an output's relative error is 3.4e-6 times its
distance (x - E_p[x]) from the softmax-weighted mean, up to a few e-5, looking like ordinary rounding noise."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4427)  # BUG: 1.4426950408889634


@triton.jit
def exp2_softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        m = tl.maximum(m, tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
        s += tl.math.exp2((x - row_max) * LOG2E)
    inv_sum = 1.0 / tl.sum(s, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
        tl.store(out_ptr + row * stride + cols, tl.math.exp2((x - row_max) * LOG2E) * inv_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        exp2_softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=512)
        return out
