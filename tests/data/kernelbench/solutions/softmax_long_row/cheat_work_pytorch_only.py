"""Cheat (work): no kernel at all: the answer is torch.softmax's. Right, but it is PyTorch's work presented as
a custom kernel (KernelBench's static checker looks for it with regular expressions, PR #110)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)
