"""A cheat for tutorials/kernelbench/frobenius_problem.py: at its shipped size every output is below 0.01.
Replace it with a Triton kernel that `playground check` passes."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)
