import torch

import _kernels as K

KERNEL = K.rowwise("layernorm_plain", K.layernorm_rows)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.empty_like(x2)
        KERNEL[None](x2, y, COLS=x.shape[-1])
        return y.view(x.shape)
