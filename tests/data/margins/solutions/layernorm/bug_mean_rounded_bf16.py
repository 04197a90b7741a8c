"""Bug: the row mean is kept in bf16 between passes (as if written to a bf16 scratch buffer to save
bandwidth). bf16 keeps 8 significant bits: a mean near 0.02 moves by up to 6e-5, and every output of the
row shifts by that much times rstd, while the variance pass, also using the rounded mean, hides it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def two_pass_layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    mean = (tl.sum(acc, axis=0) / n_cols).to(tl.bfloat16).to(tl.float32)  # BUG: rounded to bf16
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        d = tl.where(mask, tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * stride + cols, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(rows)
        two_pass_layernorm_kernel[(rows.shape[0],)](rows, self.ln.weight, self.ln.bias, out, rows.shape[1],
                                                    rows.stride(0), self.ln.eps, BLOCK=1024)
        return out.reshape(x.shape)
