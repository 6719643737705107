import torch

import argus
import _kernels as K

KERNEL = K.unary("elu", lambda x: argus.where(x > 0, x, argus.exp(x) - 1.0))


class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        flat = x.reshape(-1)
        y = torch.empty_like(flat)
        KERNEL[None](flat, y)
        return y.view(x.shape)
