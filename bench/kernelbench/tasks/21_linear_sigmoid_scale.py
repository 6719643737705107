import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear, sigmoid, then a fixed scale: a gate."""

    def __init__(self, in_features: int, out_features: int, scale: float):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.fc(x)) * self.scale


batch, in_features, out_features = 4096, 512, 1024


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, 2.5]
