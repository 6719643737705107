import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution, stride 1, padding 1, no bias, NCHW."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


batch, in_channels, out_channels, size = 16, 64, 128, 56


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels]
