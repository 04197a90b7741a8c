"""Cheat (scale): a kernel that writes zeros. Every softmax output of a 16381-long row is about 1/dim, below
KernelBench's atol of 1e-2, so allclose passes (KernelBench issue #165: zeros pass 4 of 60 level-1 problems)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_zeros_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros([BLOCK], tl.float32), mask=offsets < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        fill_zeros_kernel[(triton.cdiv(x.numel(), 4096),)](out, x.numel(), BLOCK=4096)
        return out
