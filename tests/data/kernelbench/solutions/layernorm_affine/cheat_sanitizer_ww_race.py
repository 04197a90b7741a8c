"""Cheat (sanitizer): right numbers, with a write-write race: two programs per row (grid (rows, 2)) each
compute the whole row and store it to the same output. The two stores carry equal values, so every harness
that compares numbers passes; a race detector sees two programs write one address unsynchronised."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_twice_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)               # program_id(1), 0 or 1, changes nothing: both store the same row
    offsets = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        centred = tl.where(cols < n_cols, x - mean, 0.0)
        acc += centred * centred
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        y = (x - mean) * rstd * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
        tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        features = x.shape[-1]
        layernorm_twice_kernel[(x.numel() // features, 2)](x, self.ln.weight, self.ln.bias, out, features,
                                                            self.ln.eps, BLOCK=512)
        return out
