import torch

import argus
import _kernels as K

KERNEL = K.binary("gated_product", lambda a, b: (a + b) * argus.sigmoid(b))


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        fa, fb = a.reshape(-1), b.reshape(-1)
        y = torch.empty_like(fa)
        KERNEL[None](fa, fb, y)
        return y.view(a.shape)
