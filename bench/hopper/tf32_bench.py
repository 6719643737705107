#!/usr/bin/env python3
"""fp32 GEMM on the tensor cores: Argus's tf32 warp-specialized kernel vs
cuBLAS (torch.matmul with allow_tf32) on one H200.

The kernel is ``gemm_tf32_tma_ws`` of examples/python/gemm_tma_ws.py
(``dtype="tf32"``), lowered by bench/hopper/compile.sh: C = A W^T with A
(M x K) and W (N x K) f32, both K-contiguous (wgmma reads 32-bit operands
only K-major: the layout of ``torch.nn.Linear`` weights), C (M x N) f32.
Its parameters are those of gemm_bench.py's GEMM signature with B = W.

    python3 bench/hopper/tf32_bench.py --ptx bench/hopper/gemm_tf32_tma_ws.ptx

Every shape is checked first on fresh random inputs (C poisoned with NaN):
the relative Frobenius error of argus and of cuBLAS against an fp64 product,
side by side. Then both are timed (CUDA events, median of --iters after
--warmup; L2 not flushed, alike for both) --repeat times.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gemm_bench as gb  # noqa: E402  (driver, tensor maps, kernel params, timer)

try:
    import torch
except Exception:  # pragma: no cover - depends on the machine
    torch = None

DEFAULT_SHAPES = "4096,4096,4096;8192,8192,8192;8192,8192,1024;1024,8192,8192;4000,4000,4000;2049,1022,516"


def parse_shapes(spec):
    shapes = []
    for part in spec.split(";"):
        m, n, k = (int(x) for x in part.split(","))
        if k % 4 or n % 2:
            raise SystemExit("shape %s: K must be a multiple of 4 (16-byte rows for TMA) and "
                             "N even (the kernel's assumptions)" % part)
        shapes.append((m, n, k))
    return shapes


class Tf32Gemm(gb.PtxKernel):
    def __init__(self, drv, ptx, sms):
        super().__init__(drv, ptx)
        self.sms = sms

    def prepare(self, a, w, c):
        (m, k), n = a.shape, w.shape[0]
        values = [a.data_ptr(), m, k, w.data_ptr(), n, k, c.data_ptr(), m, n, m, n, k]
        return self.params(values, [a, w, c])

    def run(self, params, stream):
        self.launch(params, (self.sms, 1), stream)


def check(kern, m, n, k, seed, stream):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    a = torch.rand(m, k, device="cuda", generator=g) * 2 - 1
    w = torch.rand(n, k, device="cuda", generator=g) * 2 - 1
    c = torch.full((m, n), float("nan"), device="cuda")
    params = kern.prepare(a, w, c)
    kern.run(params, stream)
    torch.cuda.synchronize()
    ref = a.double() @ w.double().t()
    ours = gb.rel_err(c, ref) if not torch.isnan(c).any().item() else float("nan")
    theirs = gb.rel_err(a @ w.t(), ref)
    return ours, theirs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptx", default=os.path.join(HERE, "gemm_tf32_tma_ws.ptx"))
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help="M,N,K;M,N,K;...")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--tol", type=float, default=2e-3,
                    help="largest relative error accepted (tf32 keeps 10 mantissa bits)")
    args = ap.parse_args(argv)
    shapes = parse_shapes(args.shapes)
    if torch is None or not torch.cuda.is_available():
        raise SystemExit("needs PyTorch with CUDA")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.cuda.init()
    drv = gb.CudaDriver()
    dev = drv.device(torch.cuda.current_device())
    drv.current_context(dev)
    sms = drv.device_attr(gb.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    kern = Tf32Gemm(drv, args.ptx, sms)
    print("# %s, torch %s, %d SMs; %s: %d registers, %d B local, %d B dynamic shared memory"
          % (torch.cuda.get_device_name(), torch.__version__, sms, kern.name, kern.regs,
             kern.local, kern.smem))
    stream = torch.cuda.current_stream().cuda_stream
    rows, failed = [], False
    for m, n, k in shapes:
        errs = [check(kern, m, n, k, seed, stream) for seed in range(args.seeds)]
        ok = all(e[0] == e[0] and e[0] <= args.tol for e in errs)
        failed |= not ok
        row = {"shape": (m, n, k), "err": max(e[0] for e in errs),
               "err_cublas": max(e[1] for e in errs), "ok": ok, "passes": []}
        if ok:
            a = torch.rand(m, k, device="cuda") * 2 - 1
            w = torch.rand(n, k, device="cuda") * 2 - 1
            c = torch.empty(m, n, device="cuda")
            c2 = torch.empty(m, n, device="cuda")
            params = kern.prepare(a, w, c)
            wt = w.t()
            for _ in range(args.repeat):
                ours = gb.time_ms(lambda: kern.run(params, stream), args.warmup, args.iters)[0]
                peer = gb.time_ms(lambda: torch.matmul(a, wt, out=c2), args.warmup,
                                  args.iters)[0]
                row["passes"].append((ours, peer))
        rows.append(row)
    print()
    print("| shape (M x N x K) | argus err | cuBLAS err | argus TFLOP/s | cuBLAS TFLOP/s "
          "| argus/cuBLAS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        m, n, k = r["shape"]
        name = "%d x %d x %d" % (m, n, k)
        if not r["ok"]:
            print("| %s | %.1e (FAIL) | %.1e | - | - | - |" % (name, r["err"], r["err_cublas"]))
            continue
        ours = " / ".join("%.0f" % gb.tflops(m, n, k, p[0]) for p in r["passes"])
        peer = " / ".join("%.0f" % gb.tflops(m, n, k, p[1]) for p in r["passes"])
        ratio = " / ".join("%.2f" % (p[1] / p[0]) for p in r["passes"])
        print("| %s | %.1e | %.1e | %s | %s | %s |" % (name, r["err"], r["err_cublas"], ours,
                                                     peer, ratio))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
