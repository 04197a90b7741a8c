import torch
import torch.nn as nn


class Model(nn.Module):
    """Minimum of each row (torch.amin, dim=1) of all-positive inputs (rand + 0.5), rows of 1000 columns."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amin(x, dim=1)


batch_size = 8
dim = 1000


def get_inputs():
    return [torch.rand(batch_size, dim) + 0.5]


def get_init_inputs():
    return []
