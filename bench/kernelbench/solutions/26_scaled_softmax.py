import torch

import _kernels as K


class ModelNew(torch.nn.Module):
    def __init__(self, head_dim: int):
        super().__init__()
        scale = head_dim ** -0.5
        self.kernel = K.rowwise("scaled_softmax", lambda x: K.softmax_rows(x * scale))

    def forward(self, scores):
        x2 = scores.reshape(-1, scores.shape[-1])
        y = torch.empty_like(x2)
        self.kernel[None](x2, y, COLS=scores.shape[-1])
        return y.view(scores.shape)
