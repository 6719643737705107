import torch
import torch.nn as nn


class Model(nn.Module):
    """Matmul with a weight matrix (K x N), plus a bias, then swish."""

    def __init__(self, K: int, N: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(K, N) / K ** 0.5)
        self.bias = nn.Parameter(torch.randn(N) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x @ self.weight + self.bias
        return y * torch.sigmoid(y)


M, K, N = 2500, 1024, 1024


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
