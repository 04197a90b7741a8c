import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean of each row of 8191 columns: a reduction whose result (about 0.01) is far below atol 1e-2."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=1)


batch_size = 8
dim = 8191


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
