import torch

import _kernels as K

# Attention as three proved kernels per (batch, head): S = (Q K^T) * scale,
# P = softmax(S) row by row, O = P V. Not fused (the scores go through
# global memory); K^T is a glue copy.
SCORES = K.gemm("attn_scores", scalar=True, epilogue=lambda y, s: y * s)
SOFTMAX = K.rowwise("attn_softmax", K.softmax_rows)
PV = K.gemm("attn_pv")


class ModelNew(torch.nn.Module):
    def forward(self, q, k, v):
        b, h, s, d = q.shape
        q3, v3 = q.reshape(b * h, s, d), v.reshape(b * h, s, d)
        kt = k.reshape(b * h, s, d).transpose(1, 2).contiguous()       # (bh, d, s)
        scores = torch.empty(b * h, s, s, dtype=q.dtype, device=q.device)
        for i in range(b * h):
            SCORES[None](q3[i], kt[i], scores[i], d ** -0.5)
        p = torch.empty_like(scores)
        SOFTMAX[None](scores.view(b * h * s, s), p.view(b * h * s, s), COLS=s)
        out = torch.empty(b * h, s, d, dtype=q.dtype, device=q.device)
        for i in range(b * h):
            PV[None](p[i], v3[i], out[i])
        return out.view(b, h, s, d)
