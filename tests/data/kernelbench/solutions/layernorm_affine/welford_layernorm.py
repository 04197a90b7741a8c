"""Correct: each lane of a row's program runs Welford's update over its strided share of the row (count, mean,
M2), the lanes are merged with Chan's formula, then a second pass applies (x - mean) * rstd * weight + bias.
The parameters live in self.ln, named as the Model names them (ln.weight, ln.bias)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def welford_layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_out, eps,
                             BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    count = tl.zeros([BLOCK], tl.float32)
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        new_count = count + tl.where(mask, 1.0, 0.0)
        delta = x - mean
        # a masked lane keeps its mean (delta / max(count, 1) would move it by -mean / count)
        mean = tl.where(mask, mean + delta / tl.maximum(new_count, 1.0), mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
        count = new_count
    total = tl.sum(count, axis=0)
    row_mean = tl.sum(count * mean, axis=0) / total
    spread = mean - row_mean
    row_var = tl.sum(m2 + count * spread * spread, axis=0) / total
    rstd = 1.0 / tl.sqrt(row_var + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * stride_out + cols, (x - row_mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)      # only its parameters are used: the kernel normalises

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = x.shape[-1]
        rows = x.reshape(-1, features).contiguous()
        out = torch.empty_like(rows)
        welford_layernorm_kernel[(rows.shape[0],)](rows, self.ln.weight, self.ln.bias, out, features,
                                                   rows.stride(0), out.stride(0), self.ln.eps, BLOCK=512)
        return out.reshape(x.shape)
