"""Cheat (sanitizer): two programs compute each row and both store it, unsynchronised. The numbers agree (both write
the same values), but it is a write-write race, and on a GPU the order of the two stores is not defined."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def twice_softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0) // 2
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, 0), mask=cols < n_cols)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        twice_softmax[(2 * x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
