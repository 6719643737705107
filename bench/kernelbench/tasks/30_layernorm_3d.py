import torch
import torch.nn as nn


class Model(nn.Module):
    """LayerNorm without affine parameters over the last dimension of a
    (batch, sequence, hidden) activation."""

    def __init__(self, hidden: int):
        super().__init__()
        self.hidden = hidden

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.layer_norm(x, (self.hidden,), eps=1e-5)


batch, seq, hidden = 16, 1024, 512


def get_inputs():
    return [torch.randn(batch, seq, hidden) * 3.0 - 1.0]


def get_init_inputs():
    return [hidden]
