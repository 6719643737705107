import torch

import argus
import _kernels as K

KERNEL = K.gemm("linear_gelu", bias=True, epilogue=argus.gelu)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.up = torch.nn.Linear(in_features, out_features)

    def forward(self, x):
        w_t = self.up.weight.t().contiguous()   # K x N (a copy: glue, timed)
        y = torch.empty(x.shape[0], w_t.shape[1], dtype=x.dtype, device=x.device)
        KERNEL[None](x, w_t, y, self.up.bias)
        return y
