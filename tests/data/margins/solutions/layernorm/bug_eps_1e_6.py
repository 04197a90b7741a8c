"""Bug: eps hard-coded as 1e-6 (the Llama RMSNorm value, carried over) where nn.LayerNorm's default and the
module's ln.eps are 1e-5; the eps argument is passed and ignored. For variances near 1 rstd grows by about
4.5e-6 relative: outputs up to 4 are off by about 2e-5, tens of times fp32 rounding."""
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
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        d = tl.where(mask, tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / n_cols + 1e-6)  # BUG: the eps argument (nn.LayerNorm: 1e-5)
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
