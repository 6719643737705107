import torch

import argus
import _kernels as K

KERNEL = K.unary("gelu_exact", argus.gelu)


class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1] * (x.shape[-2] if x.dim() > 2 else 1))
        y = torch.empty_like(x2)
        KERNEL[None](x2, y)
        return y.view(x.shape)
