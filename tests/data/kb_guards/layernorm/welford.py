"""Correct: LayerNorm by Welford's algorithm over blocks of the row (Chan's combination of block statistics),
with the model's own weight and bias, under the same parameter names as the problem's nn.LayerNorm."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def welford_layernorm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr, APPLY_WEIGHTS: tl.constexpr):
    row = tl.program_id(0)
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        n_block = tl.sum(mask.to(tl.float32), 0)
        block_mean = tl.sum(x, 0) / n_block
        block_m2 = tl.sum(tl.where(mask, (x - block_mean) * (x - block_mean), 0.0), 0)
        total = count + n_block
        delta = block_mean - mean
        mean = mean + delta * n_block / total
        m2 = m2 + block_m2 + delta * delta * count * n_block / total
        count = total
    rstd = 1.0 / tl.sqrt(m2 / count + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        y = (x - mean) * rstd
        if APPLY_WEIGHTS:
            y = y * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    apply_weights = True

    def __init__(self, normalized_shape):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        welford_layernorm[(x.shape[0],)](x, self.ln.weight, self.ln.bias, y, x.shape[1], self.ln.eps, BLOCK=256,
                                         APPLY_WEIGHTS=self.apply_weights)
        return y
