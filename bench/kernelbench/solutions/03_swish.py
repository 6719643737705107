import torch

import argus
import _kernels as K

KERNEL = K.unary("swish", lambda x: x * argus.sigmoid(x))


class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        flat = x.reshape(-1)
        y = torch.empty_like(flat)
        KERNEL[None](flat, y)
        return y.view(x.shape)
