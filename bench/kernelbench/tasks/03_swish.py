import torch
import torch.nn as nn


class Model(nn.Module):
    """SiLU / swish, x * sigmoid(x), on a 4-D feature map."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(32, 64, 48, 48)]


def get_init_inputs():
    return []
