import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer norm of rows whose mean is far from zero: the inputs are randn + offset (offset = 30), so a
    variance computed as E[x^2] - E[x]^2 cancels two numbers near 900 and loses digits a two-pass one keeps."""

    def __init__(self, dim: int):
        super().__init__()
        self.ln = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 8
dim = 4093
offset = 30.0


def get_inputs():
    return [torch.randn(batch_size, dim) + offset]


def get_init_inputs():
    return [dim]
