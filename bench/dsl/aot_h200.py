"""argus.aot on the H200: the DSL's Hopper GEMMs (row-major and grouped
tile order, clusters of 4) exported here (MLIR), launched there through
`kernel[grid]` on PyTorch CUDA tensors in place (no MLIR, no argus runtime
library), each checked against PyTorch on random bf16 inputs with C
poisoned first, then timed against `a @ b` (cuBLAS) in the same run (CUDA
events, median of 50 after 10 warm-up; a launch includes argus.aot's
Python-side argument checks and tensor-map encoding). Prints a table.

    PYTHONPATH=build/python:python:examples/python python3 bench/dsl/aot_h200.py --export
    # device (run's carry: ["bench/dsl/aot"], ignored by git):
    PYTHONPATH=python:examples/python ARGUS_AOT_PATH=bench/dsl/aot python3 bench/dsl/aot_h200.py
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "hopper"))

import gemm_bench  # noqa: E402  (its CUDA-event timer; torch only when timing)

OUT = os.path.join(HERE, "aot")


def kernels():
    """(label, kernel, shapes) of every exported kernel; imported lazily:
    tracing a kernel needs the _argus extension only where it is exported."""
    import gemm_tma_ws as g
    gemms = [(4096, 4096, 4096), (8192, 8192, 8192), (4000, 4000, 4000),
             (1024, 8192, 8192)]
    return [
        ("gemm_tma_store_ws", g.gemm_tma_store_ws, gemms),
        ("gemm_tma_store_ws_grouped", g.gemm_tma_store_ws_grouped, gemms),
        ("gemm_tma_cluster4_ws",
         g.make_gemm_tma_ws(epilogue="tma_store", cluster=4, name="gemm_tma_cluster4_ws"), gemms),
    ]


def export():
    import argus
    for label, k, _ in kernels():
        r = k.verify()
        path = argus.aot.export(k, OUT)
        print(f"{label}: {r.summary().splitlines()[0]} -> {path}")


def time_ms(fn, warmup=10, iters=50):
    """Median ms of `iters` event-timed calls (gemm_bench's timer)."""
    return gemm_bench.time_ms(fn, warmup, iters)[0]


def run():
    import torch
    rows = []
    for label, k, shapes in kernels():
        for M, N, K in shapes:
            torch.manual_seed(M + N + K)
            a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            b = torch.randn(K, N, device="cuda").to(torch.bfloat16)
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            k[None](a, b, c, M, N, K)
            torch.cuda.synchronize()
            ref = a.float() @ b.float()
            err = ((c.float() - ref).norm() / ref.norm()).item()
            t_ours = time_ms(lambda: k[None](a, b, c, M, N, K))
            t_peer = time_ms(lambda: a @ b)
            tflops = lambda t: 2 * M * N * K / (t * 1e-3) / 1e12  # noqa: E731
            rows.append((label, f"{M}x{N}x{K}", err, t_ours, t_peer, tflops(t_ours),
                         tflops(t_peer)))
            print(rows[-1], flush=True)
    print()
    print("| kernel | M x N x K | rel err | argus ms | torch ms | argus TFLOP/s | "
          "torch TFLOP/s | argus/cuBLAS |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1e} | {r[3]:.4f} | {r[4]:.4f} | {r[5]:.0f} | "
              f"{r[6]:.0f} | {r[4] / r[3]:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--export", action="store_true",
                    help="verify and export the kernels to bench/dsl/aot (needs _argus)")
    args = ap.parse_args()
    export() if args.export else run()


if __name__ == "__main__":
    main()
