import torch

import _kernels as K

KERNEL = K.gemm("linear_tf32", bias=True)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = torch.nn.Linear(in_features, out_features)

    def forward(self, x):
        w_t = self.fc.weight.t().contiguous()   # K x N (a copy: glue, timed)
        y = torch.empty(x.shape[0], w_t.shape[1], dtype=x.dtype, device=x.device)
        KERNEL[None](x, w_t, y, self.fc.bias)
        return y
