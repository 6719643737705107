import torch
import torch.nn as nn


class Model(nn.Module):
    """The expert MLPs of a mixture of experts after capacity-based dispatch:
    tokens arrive grouped by expert (``capacity`` rows per expert), each
    group goes through its expert's up projection, GELU and down projection,
    and each row is scaled by its router gate."""

    def __init__(self, experts: int, hidden: int, ffn: int):
        super().__init__()
        self.w_up = nn.Parameter(torch.randn(experts, hidden, ffn) / hidden ** 0.5)
        self.w_down = nn.Parameter(torch.randn(experts, ffn, hidden) / ffn ** 0.5)

    def forward(self, x: torch.Tensor, gates: torch.Tensor) -> torch.Tensor:
        # x: (experts * capacity, hidden), gates: (experts * capacity,)
        e = self.w_up.shape[0]
        xs = x.view(e, -1, x.shape[-1])
        h = torch.nn.functional.gelu(torch.bmm(xs, self.w_up))
        y = torch.bmm(h, self.w_down).reshape(x.shape[0], -1)
        return y * gates[:, None]


experts, capacity, hidden, ffn = 8, 256, 512, 1024


def get_inputs():
    return [torch.randn(experts * capacity, hidden), torch.rand(experts * capacity)]


def get_init_inputs():
    return [experts, hidden, ffn]
