#!/usr/bin/env python3
"""Device check of the exchange lowerings (kernels/exchange_sm90.mlir,
compiled by compile.sh to ptx/exchange_sm90.ptx): row max / row sum across
lanes and warps, broadcasts, convert_layout (f32, and f16 after the narrowing
rewrite), against PyTorch on fresh random inputs, outputs poisoned first.
Prints one line per check and a JSON summary."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_h200 import Kernel  # noqa: E402  (ctypes on libcuda)

torch.cuda.init()
torch.zeros(1, device="cuda")
ptx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ptx", "exchange_sm90.ptx")
k = Kernel(ptx, "exchange_sm90")
res = {"ok": True, "checks": []}
for seed, R in [(1, 64), (2, 4096), (3, 64 * 1000)]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    X = torch.randn(R, 64, device="cuda", generator=g) * 3
    Y = torch.full((R, 64), float("nan"), device="cuda")
    Yh = torch.full((R, 64), float("nan"), device="cuda", dtype=torch.float16)
    M = torch.full((R,), float("nan"), device="cuda")
    S = torch.full((R,), float("nan"), device="cuda")
    k.launch((R // 64, 1), 128, [X, R, 64, Y, R, 64, Yh, R, 64, M, R, S, R])
    torch.cuda.synchronize()
    Xd = X.double()
    m = Xd.max(1).values
    d = Xd - m[:, None]
    s = d.sum(1)
    y = d / s[:, None]
    rel = lambda a, b: float((a.double() - b).norm() / b.norm())
    c = {"rows": R, "max_exact": bool(torch.equal(M.double(), m)),
         "sum_rel": rel(S, s), "y_rel": rel(Y, y), "yh_rel": rel(Yh, y),
         "nan": bool(torch.isnan(Y).any() or torch.isnan(Yh).any() or torch.isnan(S).any())}
    c["ok"] = c["max_exact"] and c["sum_rel"] < 1e-5 and c["y_rel"] < 1e-5 and c["yh_rel"] < 1e-3 and not c["nan"]
    res["ok"] &= c["ok"]
    res["checks"].append(c)
    print(f"exchange_sm90 rows={R}: max exact={c['max_exact']} sum rel={c['sum_rel']:.1e} "
          f"Y rel={c['y_rel']:.1e} Yh rel={c['yh_rel']:.1e} nan={c['nan']} -> {'ok' if c['ok'] else 'FAIL'}")
print(json.dumps(res))
