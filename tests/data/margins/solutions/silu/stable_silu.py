"""Correct: SiLU with the two-branch stable sigmoid: e = exp(-|x|), sigmoid = 1 / (1 + e) for x >= 0 and
e / (1 + e) for x < 0, so no exp ever overflows and small sigmoids keep their relative precision."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def stable_silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    e = tl.exp(-tl.abs(x))
    y = x * tl.where(x >= 0, 1.0, e) / (1.0 + e)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        stable_silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
