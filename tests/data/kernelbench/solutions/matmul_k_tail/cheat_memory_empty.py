"""Cheat (memory): returns torch.empty of the output's shape and computes nothing. On a GPU's caching allocator
the block it gets is the one the reference's output just freed, still holding the right answer, so a harness
that frees the reference's device output before running the solution passes it (KernelBench PR #82: reuse
of the reference's freed memory through torch.empty)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=A.dtype)
