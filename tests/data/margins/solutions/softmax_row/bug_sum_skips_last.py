"""Bug: the normaliser's mask is `cols < n_cols - 1`, so the sum of exp(x - max) leaves out the last column.
Every output is too large by a factor 1 + exp(x_last - max) / sum, about 1 + 1/dim: a relative error near
6e-5 (more when x_last is large) on outputs near 6e-5, far below any atol; the row sums to 1 within 1e-3."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
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
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols - 1, other=float("-inf"))  # BUG: - 1
        s += tl.exp(x - row_max)
    row_sum = tl.sum(s, axis=0)
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
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
