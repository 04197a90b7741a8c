import torch
import torch.nn as nn


class Model(nn.Module):
    """Layer normalisation over the last dimension with a learned weight and bias (parameters ln.weight, ln.bias)."""

    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 7
features = 1531
eps = 1e-5


def get_inputs():
    x = torch.randn(batch_size, features)
    return [x]


def get_init_inputs():
    return [features, eps]
