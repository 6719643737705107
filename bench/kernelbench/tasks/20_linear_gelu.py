import torch
import torch.nn as nn


class Model(nn.Module):
    """An MLP's up projection: Linear then exact GELU."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.up = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(self.up(x))


batch, in_features, out_features = 1000, 768, 3072


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
