import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over a long row: every output is about 1/dim, below KernelBench's atol of 1e-2."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4
dim = 16381


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
