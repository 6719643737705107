#!/usr/bin/env python3
"""Benchmark the Argus Hopper flash attention (flash_attention_ws PTX) against
torch's scaled_dot_product_attention, on one GPU, in one process.

    python3 bench/attention/attention_bench.py --ptx bench/attention/flash_attention_ws.ptx

The PTX and its `<ptx>.json` (kernel name, dynamic shared memory, tensor maps)
come from `bench/attention/compile.sh`. Kernel signature (bench/attention/RESULTS.md):

    0..2  Q ptr, rows, cols      3..5 K     6..8 V     9..11 O
    12, 13 LSE ptr, rows         14 S (sequence length)
    15.. CUtensorMap of Q, K, V by value (at the JSON "param" slots)

Q, K, V, O are the (B, H, S, D) tensors viewed as (B*H*S, D); LSE is
(B*H*S,) f32. 384 threads; the grid comes from the kernel's grid rule (the
JSON's "grid", which the lowering derives from the kernel's assumptions):
(ceil(S / 128), B * H), or (B * H, S / 128) for the causal kernel, which runs
the last query tiles first.

Every row is checked before it is timed: O and LSE poisoned with NaN, fresh
random inputs per seed, O against SDPA's output (relative Frobenius error)
and LSE against an fp32 log-sum-exp of a few heads. Timing: CUDA events, the
median of --iters launches after --warmup; L2 not flushed (the same for
both). TFLOP/s count 4 B H S^2 D flops (non-causal).
"""

import argparse
import math
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, "..", "hopper"))
sys.path.insert(0, os.path.join(_here, "..", "..", "python"))
import gemm_bench as gb  # noqa: E402  (driver, tensor maps, kernel params)
from argus.errors import ArgusError  # noqa: E402
from argus.grid import launch_grid  # noqa: E402  (the ABI's grid rule)

try:
    import torch
    import torch.nn.functional as F
except Exception:  # pragma: no cover
    torch = None

DEFAULT_SHAPES = [(8, 16, 4096, 128), (16, 16, 2048, 128), (4, 32, 8192, 64),
                  (4, 16, 3000, 128)]


def parse_shapes(spec):
    out = []
    for part in spec.split(";"):
        part = part.strip()
        if not part:
            continue
        dims = tuple(int(x) for x in part.split(","))
        if len(dims) != 4 or min(dims) <= 0:
            raise ValueError("shape %r: expected B,H,S,D positive" % part)
        out.append(dims)
    return out


def supported(shape, head_dim, rule):
    """Why the kernel cannot run a shape (None when it can): another head
    dim, or a sequence length its grid rule (its assumptions) refuses."""
    b, h, s, d = shape
    if d != head_dim:
        return "kernel built for D=%d" % head_dim
    try:
        launch_grid(rule, kernel_args(shape))
    except ArgusError as e:
        return str(e)
    return None


def kernel_args(shape):
    """The kernel's arguments as its grid rule sees them: Q, K, V, O as
    (B*H*S, D) matrices, LSE (B*H*S,), S."""
    b, h, s, d = shape
    return [(b * h * s, d)] * 4 + [(b * h * s,), s]


CAUSAL = False


def attn_tflops(shape, ms):
    """4 B H S^2 D flops, halved for causal attention (the usual count)."""
    b, h, s, d = shape
    f = 4.0 * b * h * s * s * d
    if CAUSAL:
        f /= 2
    return f / (ms * 1e-3) / 1e12


class AttentionKernel(gb.PtxKernel):
    def __init__(self, drv, ptx, dev):
        super().__init__(drv, ptx)
        # How the grid follows from the shape (query tiles along x or y, S a
        # multiple of 128 or any): the kernel's own rule, from the JSON.
        self.rule = self.info.get("grid")

    def grid(self, shape):
        return launch_grid(self.rule, kernel_args(shape))[:2]

    def prepare(self, q, k, v, o, lse, s):
        mats = [t.view(-1, t.shape[-1]) for t in (q, k, v, o)]
        values = []
        for m in mats:
            values += [m.data_ptr(), m.shape[0], m.shape[1]]
        values += [lse.data_ptr(), lse.numel(), s]
        return self.params(values, mats)


def time_ms(fn, warmup, iters):
    """Median ms of `iters` event-timed calls (gemm_bench's timer)."""
    return gb.time_ms(fn, warmup, iters)[0]


def sdpa_backends(q, k, v):
    """Which SDPA backends accept these inputs (tried one at a time)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    ok = []
    for name in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
        be = getattr(SDPBackend, name, None)
        if be is None:
            continue
        try:
            with sdpa_kernel([be]):
                F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)
            torch.cuda.synchronize()
            ok.append(name)
        except Exception:
            pass
    return ok


def sdpa_with(q, k, v, backend):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if backend == "default":
        return F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)
    with sdpa_kernel([getattr(SDPBackend, backend)]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)


def check(kern, shape, dtype, seed, stream):
    b, h, s, d = shape
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)
               for _ in range(3))
    o = torch.full_like(q, float("nan"))
    lse = torch.full((b * h * s,), float("nan"), device="cuda", dtype=torch.float32)
    params = kern.prepare(q, k, v, o, lse, s)
    kern.launch(params, kern.grid(shape), stream)
    torch.cuda.synchronize()
    ref = sdpa_with(q, k, v, "default").float()
    err = ((o.float() - ref).norm() / ref.norm()).item()
    # LSE of a few heads in fp32.
    heads = min(2, b * h)
    qf = q.view(b * h, s, d)[:heads].float()
    kf = k.view(b * h, s, d)[:heads].float()
    scores = qf @ kf.transpose(1, 2) / math.sqrt(d)
    if CAUSAL:
        future = torch.ones(s, s, device="cuda", dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    ref_lse = torch.logsumexp(scores, dim=-1).reshape(-1)
    lse_err = (lse[: heads * s] - ref_lse).abs().max().item()
    # O of the same heads in fp32: argus's error and SDPA's, side by side
    # (both round P to 16 bits; the error against SDPA alone also depends on
    # whether the two visit the keys in the same order).
    vf = v.view(b * h, s, d)[:heads].float()
    o32 = torch.softmax(scores, dim=-1) @ vf

    def rel32(x):
        x = x.reshape(b * h, s, d)[:heads].float()
        return ((x - o32).norm() / o32.norm()).item()

    err32, sdpa32 = rel32(o), rel32(ref)
    ok = (not torch.isnan(o).any().item() and not torch.isnan(lse).any().item()
          and err < 2e-2 and lse_err < 1e-2 and err32 < 2e-2)
    return ok, err, lse_err, err32, sdpa32


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--shapes", default=None, help="B,H,S,D;... (default: the issue's)")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--causal", action="store_true",
                    help="the kernel is causal: SDPA with is_causal=True, half the flops")
    ap.add_argument("--unchecked", action="store_true",
                    help="time without checking the outputs (experiments with variants "
                         "that compute something else; their rows say 'unchecked')")
    args = ap.parse_args(argv)
    global CAUSAL
    CAUSAL = args.causal
    shapes = parse_shapes(args.shapes) if args.shapes else DEFAULT_SHAPES
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    drv = gb.CudaDriver()
    drv.check(drv.cuInit(0), "cuInit")
    dev = drv.device(0)
    torch.cuda.init()
    drv.current_context(dev)
    kern = AttentionKernel(drv, args.ptx, dev)
    print("device: %s, torch %s, driver %d; kernel %s (%s, D=%d%s): %d regs, %d B local, "
          "%d B smem" % (torch.cuda.get_device_name(0), torch.__version__,
                         drv.driver_version(), kern.name, args.dtype, args.head_dim,
                         ", causal" if CAUSAL else "", kern.regs, kern.local, kern.smem))
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for shape in shapes:
        why = supported(shape, args.head_dim, kern.rule)
        if why:
            rows.append((shape, "skip: " + why))
            continue
        b, h, s, d = shape
        results = []
        for seed in () if args.unchecked else (1, 2):
            results.append(check(kern, shape, dtype, seed, stream))
        if not all(r[0] for r in results):
            rows.append((shape, "FAILED check: rel err %s, lse err %s"
                         % ([r[1] for r in results], [r[2] for r in results])))
            continue
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(b * h * s, device="cuda", dtype=torch.float32)
        params = kern.prepare(q, k, v, o, lse, s)
        grid = kern.grid(shape)
        backends = sdpa_backends(q, k, v)
        passes = []
        for _ in range(args.repeat):
            t_argus = time_ms(lambda: kern.launch(params, grid, stream),
                              args.warmup, args.iters)
            t_sdpa = time_ms(lambda: sdpa_with(q, k, v, "default"), args.warmup, args.iters)
            per_be = {be: time_ms(lambda: sdpa_with(q, k, v, be), args.warmup, args.iters)
                      for be in backends}
            passes.append((t_argus, t_sdpa, per_be))
        rows.append((shape, (results, backends, passes)))
    print()
    print("| B, H, S, D | argus TFLOP/s | SDPA (default) | best SDPA backend | argus/SDPA |"
          " rel err O vs SDPA | vs fp32 (SDPA's) | max err LSE |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for shape, r in rows:
        if isinstance(r, str):
            print("| %s | %s | | | | | | |" % (",".join(map(str, shape)), r))
            continue
        results, backends, passes = r
        ta = " / ".join("%.0f" % attn_tflops(shape, p[0]) for p in passes)
        ts = " / ".join("%.0f" % attn_tflops(shape, p[1]) for p in passes)
        best = []
        for p in passes:
            if p[2]:
                be, t = min(p[2].items(), key=lambda x: x[1])
                best.append("%s %.0f" % (be.split("_")[0].lower(), attn_tflops(shape, t)))
        ratio = " / ".join("%.2f" % (p[1] / p[0]) for p in passes)
        errs = ("%.1e | %.1e (%.1e) | %.1e"
                % (max(x[1] for x in results), max(x[3] for x in results),
                   max(x[4] for x in results), max(x[2] for x in results))
                if results else "unchecked | unchecked | unchecked")
        print("| %s | %s | %s | %s | %s | %s |"
              % (",".join(map(str, shape)), ta, ts, "; ".join(best), ratio, errs))
    print("\nSDPA backends that accept the inputs: see 'best SDPA backend' (timed each).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
