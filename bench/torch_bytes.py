"""Host bytes of torch tensors for `argus.runtime` runs on the device (the
benchmarks' runners share these): a tensor's raw bytes (bf16 as its bit
patterns) and a tensor back from raw bytes of an argus element type."""

import numpy as np
import torch

TORCH_DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
NP_BITS = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: np.int16}


def raw(t):
    """Host bytes of a tensor (bf16 as its bit patterns)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def from_raw(data, dtype, shape):
    """A CPU tensor of ``shape`` and argus element type ``dtype`` ("f32",
    "f16", "bf16") from its raw bytes."""
    tdt = TORCH_DT[dtype]
    t = torch.from_numpy(np.frombuffer(data, dtype=NP_BITS[tdt]).copy())
    return (t.view(torch.bfloat16) if tdt == torch.bfloat16 else t).reshape(shape)
