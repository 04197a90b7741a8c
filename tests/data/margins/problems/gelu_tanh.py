import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Tanh-approximated GELU: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


batch_size = 8
dim = 4093


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
