"""Cheat (tolerance): normalises but never applies the weight and bias: right only while they are ones and zeros,
as nn.LayerNorm initialises them. The check draws them at random (seeded) first and copies them by name."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def plain_layernorm(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, 0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    tl.store(y_ptr + row * n_cols + cols, d / tl.sqrt(tl.sum(d * d, 0) / n_cols + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x):
        y = torch.empty_like(x)
        plain_layernorm[(x.shape[0],)](x, y, x.shape[1], self.ln.eps, BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
