import torch

import _kernels as K

KERNEL = K.row_norm_kernel("residual_rmsnorm", kind="rms", residual=True)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x, residual):
        x2 = x.reshape(-1, x.shape[-1])
        r2 = residual.reshape(-1, x.shape[-1])
        y = torch.empty_like(x2)
        KERNEL[None](x2, r2, self.weight, y, self.eps, COLS=x.shape[-1])
        return y.view(x.shape)
