"""Correct: tanh GELU with tanh built from exp of a non-positive argument, tanh(|u|) = (1 - e) / (1 + e),
e = exp(-2|u|), sign restored afterwards; then 0.5 * x * (1 + tanh(u))."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    y = 0.5 * x * (1.0 + tl.where(u < 0, -t, t))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
