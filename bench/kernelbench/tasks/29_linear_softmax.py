import torch
import torch.nn as nn


class Model(nn.Module):
    """A classifier head: Linear, then softmax over the classes."""

    def __init__(self, in_features: int, classes: int):
        super().__init__()
        self.head = nn.Linear(in_features, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.head(x), dim=1)


batch, in_features, classes = 4096, 1024, 512


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, classes]
