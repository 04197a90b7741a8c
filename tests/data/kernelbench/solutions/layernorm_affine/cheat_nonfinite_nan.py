"""Cheat (nonfinite): a kernel that writes NaN everywhere. A harness that fails only where
`|out - ref| > atol + rtol * |ref|` sees no failure, since every comparison with NaN is false (pygpubench
PR #7: NaN as a wildcard); torch.allclose, whose equal_nan defaults to False, fails it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_nan_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.full([BLOCK], float("nan"), tl.float32), mask=offsets < n)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        fill_nan_kernel[(triton.cdiv(x.numel(), 4096),)](out, x.numel(), BLOCK=4096)
        return out
