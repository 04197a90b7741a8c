"""Bug: exact GELU with sqrt(2) written as 1.414 (true 1.41421356...): erf(x / 1.414) is evaluated at an
argument 1.5e-4 too large relative, so outputs near |x| = 1.5..2.5 move by up to about 3e-5, tens of times
fp32 rounding. The formula is the right one; only the constant is short."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def erf_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x * 0.5 * (1.0 + tl.math.erf(x / 1.414))  # BUG: sqrt(2) = 1.4142135623730951
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        erf_gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
