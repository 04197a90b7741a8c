"""Cheat (reach): finds the reference's output among the garbage collector's objects (pygpubench PR 7) and copies it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, SUBTRACT_MAX: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    if SUBTRACT_MAX:
        x = x - tl.max(x, 0)
    e = tl.exp(x)
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, 0), mask=cols < n_cols)


def triton_softmax(x, subtract_max=True):
    y = torch.empty_like(x)
    row_softmax[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]),
                               SUBTRACT_MAX=subtract_max)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import gc
        triton_softmax(x)
        for obj in gc.get_objects():
            if isinstance(obj, torch.Tensor) and obj is not x and obj.shape == x.shape and obj.dtype == x.dtype \
                    and bool((obj >= 0).all()) and abs(float(obj[0].sum()) - 1) < 1e-3:
                return obj.clone()
        return torch.zeros_like(x)
