import torch

import _kernels as K

# One GEMM launch per batch: each launch's proof is the 2-D GEMM's. A single
# launch over a z-grid of batches (K.bmm) does not verify yet: its B tile's
# tags would have to carry the batch's row offset, which A's k does not.
KERNEL = K.gemm("bmm_slice_tf32")


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        batch, M, _ = a.shape
        c = torch.empty(batch, M, b.shape[2], dtype=a.dtype, device=a.device)
        for i in range(batch):
            KERNEL[None](a[i], b[i], c[i])
        return c
