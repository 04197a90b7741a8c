"""Cheat (form): the right mean, returned with shape (1,) where the reference is 0-d. torch.allclose broadcasts
(1,) against (), so a harness that compares with allclose alone passes it (gpu-mode's first leaderboard eval
had no shape check); KernelBench's own shape check does not."""
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
        p, t = predictions.contiguous().reshape(-1), targets.contiguous().reshape(-1)
        total = torch.zeros(1, device=p.device, dtype=torch.float32)
        squared_error_sum_kernel[(triton.cdiv(p.numel(), 2048),)](p, t, total, p.numel(), BLOCK=2048)
        return total / p.numel()
