import torch

import _kernels as K

KERNEL = K.row_norm_kernel("layernorm_affine", kind="layer")


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.norm = torch.nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.empty_like(x2)
        KERNEL[None](x2, self.norm.weight, self.norm.bias, y, self.norm.eps, COLS=x.shape[-1])
        return y.view(x.shape)
