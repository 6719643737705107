import torch

import _kernels as K

KERNEL = K.make_cumsum()


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        KERNEL[None](x, y)
        return y
