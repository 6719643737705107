import torch
import torch.nn as nn


class Model(nn.Module):
    """A fully connected layer: x W^T + b."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


batch, in_features, out_features = 4096, 2048, 1536


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
