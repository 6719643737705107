import torch
import torch.nn as nn


class Model(nn.Module):
    """A gated product of two streams: (a + b) * sigmoid(b)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a + b) * torch.sigmoid(b)


def get_inputs():
    return [torch.randn(512, 16384), torch.randn(512, 16384)]


def get_init_inputs():
    return []
