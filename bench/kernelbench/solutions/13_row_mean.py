import torch

import _kernels as K

KERNEL = K.row_reduce("row_mean", "sum", scaled=True)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        KERNEL[None](x, y, 1.0 / x.shape[1])
        return y
