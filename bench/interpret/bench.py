"""How fast the CPU interpreter (argus.interpret) runs: a 256x256x256 GEMM
(examples/python/gemm.py, f16 in, f32 out, 2x2 blocks of 128x128) and a
1024x1024 softmax (examples/python/softmax.py's softmax_any: Triton's
tutorial softmax, 512 blocks of 2 rows), and 8x / 4x the work of each to
show the cost is linear in the work. Prints the best of --repeat wall
times of ``argus.interpret.run`` (parse + launch + conversions) and checks
the values against numpy.

    PYTHONPATH=build/python:python /usr/bin/python3 bench/interpret/bench.py
"""

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))

import argus.interpret as ai  # noqa: E402
from gemm import gemm_mfma  # noqa: E402
from softmax import softmax_any  # noqa: E402


def best(fn, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    r = np.random.default_rng(0)
    gemm_mfma.ir()  # trace once: the times are the interpreter's
    softmax_any.ir()
    for n in (256, 512):
        A = r.standard_normal((n, n)).astype(np.float16)
        B = r.standard_normal((n, n)).astype(np.float16)
        C = np.zeros((n, n), np.float32)
        t = best(lambda: ai.run(gemm_mfma, A, B, C, n, grid=(n // 128, n // 128)), a.repeat)
        err = np.abs(C - A.astype(np.float64) @ B.astype(np.float64)).max()
        print(f"gemm {n}x{n}x{n} f16->f32: {t:.3f} s (max |err| vs fp64 {err:.2e})")
    for m in (1024, 4096):
        X = r.standard_normal((m, 1024)).astype(np.float32)
        Y = np.zeros_like(X)
        t = best(lambda: ai.run(softmax_any, X, Y, grid=(m // 2,)), a.repeat)
        x = X.astype(np.float64)
        e = np.exp(x - x.max(1, keepdims=True))
        err = np.abs(Y - e / e.sum(1, keepdims=True)).max()
        print(f"softmax {m}x1024 f32: {t:.3f} s (max |err| vs fp64 {err:.2e})")

if __name__ == "__main__":
    main()
