"""Correct: one pass over the row keeps a running max and a running sum of exp(x - max) (the sum rescaled
whenever the max grows), then a second pass writes exp(x - max) / sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    out_row = out_ptr + row * stride_out
    offsets = tl.arange(0, BLOCK)
    running_max = tl.full([BLOCK], float("-inf"), tl.float32)
    running_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        new_max = tl.maximum(running_max, x)
        # lanes that have seen only -inf keep a sum of 0 (exp(-inf - -inf) would be NaN)
        scale = tl.where(new_max == float("-inf"), 0.0, tl.exp(running_max - new_max))
        running_sum = running_sum * scale + tl.where(x == float("-inf"), 0.0, tl.exp(x - new_max))
        running_max = new_max
    row_max = tl.max(running_max, axis=0)
    lane_scale = tl.where(running_max == float("-inf"), 0.0, tl.exp(running_max - row_max))
    row_sum = tl.sum(running_sum * lane_scale, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(out_row + cols, tl.exp(x - row_max) / row_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        online_softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=1024)
        return out
