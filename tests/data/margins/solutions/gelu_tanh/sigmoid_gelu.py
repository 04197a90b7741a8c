"""Correct: tanh GELU written through the identity 0.5 * (1 + tanh(u)) = sigmoid(2u) = 1 / (1 + exp(-2u)),
u = sqrt(2/pi) * (x + 0.044715 x^3): no tanh call and no cancellation for negative x."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = x / (1.0 + tl.exp(-2.0 * u))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        sigmoid_gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
