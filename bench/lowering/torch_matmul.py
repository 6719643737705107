#!/usr/bin/env python3
"""torch.matmul (cuBLAS) on the benchmark's GEMM shape, timed like argus-run
(one CUDA event pair per launch, median), fp16 in. Prints one JSON object."""
import argparse
import json
import statistics

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--size", type=int, default=4096)
ap.add_argument("--reps", type=int, default=50)
a = ap.parse_args()
S = a.size
g = torch.Generator(device="cuda").manual_seed(0)
A = torch.rand(S, S, device="cuda", dtype=torch.float16, generator=g) * 2 - 1
B = torch.rand(S, S, device="cuda", dtype=torch.float16, generator=g) * 2 - 1
res = {"size": S, "device": torch.cuda.get_device_name()}
for name, fn in [("fp16_out", lambda: torch.matmul(A, B)),
                 # fp16 in, f32 out like the argus kernels (needs out_dtype)
                 ("f32_out", lambda: torch.mm(A, B, out_dtype=torch.float32))]:
    try:
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(a.reps):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            fn()
            e1.record()
            e1.synchronize()
            ts.append(e0.elapsed_time(e1))
        med = statistics.median(ts)
        res[name] = {"median_ms": med, "min_ms": min(ts), "tflops": 2 * S ** 3 / med / 1e9}
    except Exception as e:  # out_dtype needs a recent torch
        res[name] = {"error": str(e)}
print(json.dumps(res))
