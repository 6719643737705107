import torch
import torch.nn as nn


class Model(nn.Module):
    """The exact (erf) GELU of a batch of token embeddings."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x)


tokens = 8192
hidden = 3072


def get_inputs():
    return [torch.randn(tokens, hidden) * 3.0]


def get_init_inputs():
    return []
