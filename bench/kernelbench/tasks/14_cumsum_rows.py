import torch
import torch.nn as nn


class Model(nn.Module):
    """Inclusive prefix sum along the rows."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.rand(1000, 2500) - 0.5]


def get_init_inputs():
    return []
