import torch
import torch.nn as nn


class Model(nn.Module):
    """LeakyReLU with a fixed negative slope over a 2-D activation."""

    def __init__(self, negative_slope: float = 0.05):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.leaky_relu(x, self.negative_slope)


rows = 2048
cols = 6144


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [0.05]
