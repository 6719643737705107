import torch
import torch.nn as nn


class Model(nn.Module):
    """3x3 convolution with bias, then ReLU (a level-2 chain)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


batch, in_channels, out_channels, size = 8, 32, 64, 64


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
