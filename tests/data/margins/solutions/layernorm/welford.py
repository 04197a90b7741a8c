"""Correct: Welford layer norm. Each lane runs Welford's update (count, mean, M2) over its strided share of the
row; the lanes merge with Chan's formula; a second pass writes (x - mean) / sqrt(var + eps) * weight + bias."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def welford_layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    count = tl.zeros([BLOCK], tl.float32)
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        count = count + tl.where(mask, 1.0, 0.0)
        delta = x - mean
        mean = tl.where(mask, mean + delta / tl.maximum(count, 1.0), mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
    row_mean = tl.sum(count * mean, axis=0) / n_cols
    spread = mean - row_mean
    var = tl.sum(m2 + count * spread * spread, axis=0) / n_cols
    denom = tl.sqrt(var + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * stride + cols, (x - row_mean) / denom * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(rows)
        welford_layernorm_kernel[(rows.shape[0],)](rows, self.ln.weight, self.ln.bias, out, rows.shape[1],
                                                   rows.stride(0), self.ln.eps, BLOCK=256)
        return out.reshape(x.shape)
