import torch
import torch.nn as nn


class Model(nn.Module):
    """y = x @ W.T + b (nn.Linear) whose default weight is square: in_features == out_features == 64."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


batch_size = 8
in_features = 64
out_features = 64


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
