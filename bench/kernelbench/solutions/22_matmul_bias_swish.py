import torch

import argus
import _kernels as K

KERNEL = K.gemm("matmul_bias_swish", bias=True, epilogue=lambda y: y * argus.sigmoid(y))


class ModelNew(torch.nn.Module):
    def __init__(self, K_: int, N: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(K_, N))
        self.bias = torch.nn.Parameter(torch.empty(N))

    def forward(self, x):
        y = torch.empty(x.shape[0], self.weight.shape[1], dtype=x.dtype, device=x.device)
        KERNEL[None](x, self.weight, y, self.bias)
        return y
