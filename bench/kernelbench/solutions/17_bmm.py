import torch

import argus
import _kernels as K

KERNEL = K.bmm()


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        batch, M, K_ = a.shape
        N = b.shape[2]
        c = torch.empty(batch * M, N, dtype=a.dtype, device=a.device)
        KERNEL[((N + 63) // 64, M // 64, batch)](a.reshape(batch * M, K_),
                                                 b.reshape(batch * K_, N), c, M)
        return c.view(batch, M, N)
