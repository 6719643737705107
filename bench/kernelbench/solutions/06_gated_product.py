import torch

import argus
import _kernels as K

KERNEL = K.binary("gated_product", lambda a, b: (a + b) * argus.sigmoid(b))


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        a2, b2 = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
        y = torch.empty_like(a2)
        KERNEL[None](a2, b2, y)
        return y.view(a.shape)
