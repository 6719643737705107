import torch

import _kernels as K

LINEAR = K.gemm("head_linear", bias=True)
SOFTMAX = K.rowwise("head_softmax", K.softmax_rows)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, classes: int):
        super().__init__()
        self.head = torch.nn.Linear(in_features, classes)

    def forward(self, x):
        w_t = self.head.weight.t().contiguous()
        logits = torch.empty(x.shape[0], w_t.shape[1], dtype=x.dtype, device=x.device)
        LINEAR[None](x, w_t, logits, self.head.bias)
        y = torch.empty_like(logits)
        SOFTMAX[None](logits, y, COLS=logits.shape[1])
        return y
