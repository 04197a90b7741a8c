"""Bug: one-pass variance, var = E[x^2] - E[x]^2, both sums gathered in the same loop. With inputs of mean
30 and variance 1, E[x^2] is about 901 and the subtraction cancels two fp32 numbers near 900, leaving the
variance with only about 4 good digits: outputs shift by up to 2e-4. Fine on zero-mean test data; wrong here
by some 70x PyTorch's own rounding, still far inside atol 1e-2."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def one_pass_layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    acc2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x
        acc2 += x * x
    mean = tl.sum(acc, axis=0) / n_cols
    var = tl.sum(acc2, axis=0) / n_cols - mean * mean  # BUG: E[x^2] - E[x]^2 cancels catastrophically
    rstd = tl.math.rsqrt(var + eps)
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
        one_pass_layernorm_kernel[(rows.shape[0],)](rows, self.ln.weight, self.ln.bias, out, rows.shape[1],
                                                    rows.stride(0), self.ln.eps, BLOCK=1024)
        return out.reshape(x.shape)
