import torch

import _kernels as K

KERNEL = K.row_reduce("row_max", "max")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        KERNEL[None](x, y)
        return y
