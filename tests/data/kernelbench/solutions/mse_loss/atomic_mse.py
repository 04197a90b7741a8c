"""Correct: each block adds its sum of squared differences into one fp32 accumulator (tl.atomic_add); the mean
is that sum over the element count, returned 0-d as the reference's is."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def squared_error_sum_kernel(p_ptr, t_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    diff = tl.load(p_ptr + offsets, mask=mask, other=0.0) - tl.load(t_ptr + offsets, mask=mask, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(diff * diff, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = predictions.contiguous().reshape(-1)
        t = targets.contiguous().reshape(-1)
        total = torch.zeros((), device=p.device, dtype=torch.float32)
        BLOCK = 2048
        squared_error_sum_kernel[(triton.cdiv(p.numel(), BLOCK),)](p, t, total, p.numel(), BLOCK=BLOCK)
        return total / p.numel()
