import torch

import argus
import _kernels as K


class ModelNew(torch.nn.Module):
    def __init__(self, negative_slope: float = 0.05):
        super().__init__()
        s = float(negative_slope)
        self.kernel = K.unary("leaky_relu", lambda x: argus.where(x > 0, x, x * s))

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.empty_like(x2)
        self.kernel[None](x2, y)
        return y.view(x.shape)
