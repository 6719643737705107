import torch
import torch.nn as nn


class Model(nn.Module):
    """Batched matrix product of two 3-D tensors."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


batch, M, K, N = 32, 256, 512, 384


def get_inputs():
    return [torch.randn(batch, M, K) / 4, torch.randn(batch, K, N) / 4]


def get_init_inputs():
    return []
