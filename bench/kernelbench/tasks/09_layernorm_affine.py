import torch
import torch.nn as nn


class Model(nn.Module):
    """LayerNorm over the hidden dimension, with weight and bias."""

    def __init__(self, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():  # not the identity: random affine parameters
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


hidden = 1024


def get_inputs():
    return [torch.randn(8192, hidden) * 2.0 + 1.0]


def get_init_inputs():
    return [hidden]
