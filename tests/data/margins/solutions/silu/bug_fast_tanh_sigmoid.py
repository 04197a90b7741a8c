"""Bug: sigmoid(x) = 0.5 + 0.5 tanh(x / 2) with a "fast tanh", the rational approximation
tanh(y) ~ y (945 + 105 y^2 + y^4) / (945 + 420 y^2 + 15 y^4) (Lambert's continued fraction cut short),
clamped to [-1, 1]. Exact at 0 and good for small |y|, it drifts to an error of about 1e-4 in SiLU at
|x| = 4..5: hundreds of times fp32 rounding, a hundred times under atol 1e-2."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fast_silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y2 = 0.5 * x
    s = y2 * y2
    t = y2 * (945.0 + s * (105.0 + s)) / (945.0 + s * (420.0 + 15.0 * s))  # BUG: an approximation
    y = x * (0.5 + 0.5 * tl.minimum(tl.maximum(t, -1.0), 1.0))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        fast_silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
