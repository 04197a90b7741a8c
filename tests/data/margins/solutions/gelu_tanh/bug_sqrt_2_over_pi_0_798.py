"""Bug: sqrt(2/pi) written with three digits, 0.798 (true 0.7978845608...): the tanh argument is 1.4e-4 too
large relative, so outputs move by up to about 4e-5 near |x| = 1.5, a hundred times fp32 rounding. The
constant "looks right" and every loose check passes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = 0.798 * (x + 0.044715 * x * x * x)  # BUG: sqrt(2 / pi) = 0.7978845608028654
    y = x / (1.0 + tl.exp(-2.0 * u))
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
