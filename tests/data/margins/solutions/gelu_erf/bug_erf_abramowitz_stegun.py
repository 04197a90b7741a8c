"""Bug: erf from Abramowitz & Stegun 7.1.27, erf(z) ~ 1 - 1 / (1 + a1 z + a2 z^2 + a3 z^3 + a4 z^4)^4 for
z >= 0, a textbook "fast erf" whose absolute error is up to 5e-4: GELU outputs are off by up to about 7e-4
near |x| = 2..3, hundreds of times fp32 rounding, and it looks perfect in a plot."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def as_erf_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    z = x * 0.7071067811865476
    a = tl.abs(z)
    p = 1.0 + a * (0.278393 + a * (0.230389 + a * (0.000972 + a * 0.078108)))
    erf_abs = 1.0 - 1.0 / (p * p * p * p)  # BUG: an approximation good to 5e-4 only
    y = x * 0.5 * (1.0 + tl.where(z < 0, -erf_abs, erf_abs))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        as_erf_gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
