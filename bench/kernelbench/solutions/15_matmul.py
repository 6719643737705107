import torch

import _kernels as K

KERNEL = K.gemm("matmul_tf32")


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        c = torch.empty(a.shape[0], b.shape[1], dtype=a.dtype, device=a.device)
        KERNEL[None](a, b, c)
        return c
