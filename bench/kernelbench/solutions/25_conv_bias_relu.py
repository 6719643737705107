import torch

import argus
import _kernels as K

KERNEL = K.conv2d("conv3x3_bias_relu", bias=True, activation=argus.relu)


def _channels_last(x):
    return x.permute(0, 2, 3, 1).contiguous()          # glue: a copy, timed


class ModelNew(torch.nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = torch.nn.Conv2d(in_channels, out_channels, 3, padding=1)

    def forward(self, x):
        n, c, h, w = x.shape
        co = self.conv.weight.shape[0]
        xl = _channels_last(x)
        wt = self.conv.weight.permute(0, 2, 3, 1).reshape(co, 9 * c).contiguous()
        y = torch.empty(n * h * w, co, dtype=x.dtype, device=x.device)
        KERNEL[None](xl, wt, y, self.conv.bias)
        return y.view(n, h, w, co).permute(0, 3, 1, 2)
