#!/usr/bin/env python3
"""Benchmark the Argus Hopper MoE grouped GEMM (moe_grouped_gemm_ws PTX)
against what a PyTorch user would call, on one GPU, in one process.

    python3 bench/moe/moe_bench.py --ptx bench/moe/moe_grouped_gemm_ws_k4096.ptx

The PTX and its `<ptx>.json` come from `bench/moe/compile.sh`; the hidden
size K is the kernel's (4096 or 7168). Kernel signature (RESULTS.md):

    0..2 X ptr, rows, K    3..5 W ptr, E * K, N    6..8 Y ptr, slots, N
    9,10 sorted_rows  11,12 sorted_ids  13,14 weights (f32)  15,16 block_expert
    17   CUtensorMap of W by value

Routing, as a MoE layer's align step produces it: random router logits,
top-k experts per token with softmax weights; the T * topk token slots are
sorted by expert and each expert's group padded to a multiple of 128
(padding reads token 0, gets weight 0 and writes a spare row of Y past
T * topk). Grid (P / 128, N / 256), from the kernel's grid rule in the
JSON (its assumptions), or one block per SM for the persistent kernel
(moe_grouped_gemm_persistent_ws: its work list is every (position block,
column slab) pair); 384 threads.

Peers, each computing Y[slot] = weight * (X[token] @ W[expert]) for the
real slots into a fresh [T * topk, N] bf16 tensor:

  loop      the per-expert loop a PyTorch MoE layer runs: for each expert,
            index_select its tokens, torch.matmul with W[e], scale, and
            index_copy into Y;
  grouped   torch._grouped_mm (when this torch has it) on the tokens
            gathered in expert order, then scale and index_copy.

Every kernel output is checked first (Y poisoned with NaN, two seeds)
against an fp32 reference (relative Frobenius error over the real slots).
Timing: CUDA events, median of --iters calls after --warmup, L2 not
flushed. TFLOP/s count the useful work, 2 * T * topk * K * N.
"""

import argparse
import os
import re
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, "..", "hopper"))
sys.path.insert(0, os.path.join(_here, "..", "..", "python"))
import gemm_bench as gb  # noqa: E402  (driver, tensor maps, kernel params)
from argus.grid import check_indices, launch_grid  # noqa: E402  (the ABI's rules)

try:
    import torch
except Exception:  # pragma: no cover
    torch = None

TILE_M, TILE_N = 128, 256

# (name, experts, topk, tokens, N); K comes from the kernel.
SHAPES = {
    "mixtral": (8, 2, 4096, 28672),     # w1|w3 of Mixtral 8x7B: hidden 4096
    "deepseek": (256, 8, 4096, 4096),   # gate|up of DeepSeek-V3: hidden 7168
}


class MoEKernel(gb.PtxKernel):
    def prepare(self, x, w2d, y, rows, ids, weights, block_expert):
        values = []
        for t in (x, w2d, y):
            values += [t.data_ptr(), t.shape[0], t.shape[1]]
        for t in (rows, ids, weights, block_expert):
            values += [t.data_ptr(), t.numel()]
        return self.params(values, {1: w2d})  # W's tensor map

    def grid(self, *args):
        """The grid of a launch on these tensors (prepare's), from the
        kernel's grid rule in the JSON: (P / 128, N / 256); a persistent
        kernel (grid.x the caller's choice) gets one block per SM, or one
        per work item when there are fewer."""
        rule = self.info.get("grid")
        if rule and rule[0].get("extent") == "free":
            items = (args[3].numel() // TILE_M) * (args[2].shape[1] // TILE_N)
            sms = torch.cuda.get_device_properties(0).multi_processor_count
            return (min(sms, items), 1)
        return launch_grid(rule, args)[:2]

    def check(self, *args):
        """The routing's data against what the kernel was proved for (its
        argus.assume_indices: rows inside X, slot ids distinct rows of Y)."""
        check_indices(self.info.get("indices"), args)


def route(experts, topk, tokens, gen):
    """Top-k routing and the align step: sorted positions padded per expert."""
    logits = torch.randn(tokens, experts, device="cuda", generator=gen)
    w, e = torch.topk(torch.softmax(logits, dim=-1), topk, dim=-1)
    slot_expert = e.reshape(-1)                  # slot s = t * topk + j
    slot_weight = w.reshape(-1).float()
    order = torch.argsort(slot_expert, stable=True)
    counts = torch.bincount(slot_expert, minlength=experts).tolist()
    padded = [(c + TILE_M - 1) // TILE_M * TILE_M for c in counts]
    p = sum(padded)
    nslots = tokens * topk
    rows = torch.zeros(p, dtype=torch.int32, device="cuda")
    ids = torch.empty(p, dtype=torch.int32, device="cuda")
    weights = torch.zeros(p, dtype=torch.float32, device="cuda")
    block_expert = torch.empty(p // TILE_M, dtype=torch.int32, device="cuda")
    # Spare rows of Y for padding positions: nslots, nslots + 1, ...
    ids.copy_(torch.arange(nslots, nslots + p, dtype=torch.int32, device="cuda"))
    pos, src = 0, 0
    for ex in range(experts):
        c = counts[ex]
        sl = order[src:src + c]
        rows[pos:pos + c] = (sl // topk).int()
        ids[pos:pos + c] = sl.int()
        weights[pos:pos + c] = slot_weight[sl]
        block_expert[pos // TILE_M:(pos + padded[ex]) // TILE_M] = ex
        pos += padded[ex]
        src += c
    return dict(rows=rows, ids=ids, weights=weights, block_expert=block_expert,
                counts=counts, order=order, slot_expert=slot_expert,
                slot_weight=slot_weight, p=p, nslots=nslots)


def peers(x, w3, r, topk):
    """The PyTorch paths, each returning Y [T * topk, N] bf16."""
    experts = w3.shape[0]
    tokens_of = [None] * experts
    src = 0
    for ex in range(experts):
        sl = r["order"][src:src + r["counts"][ex]]
        tokens_of[ex] = (sl, sl // topk)
        src += r["counts"][ex]
    n = w3.shape[2]

    def loop():
        y = torch.empty(r["nslots"], n, device="cuda", dtype=x.dtype)
        for ex in range(experts):
            sl, tok = tokens_of[ex]
            if sl.numel() == 0:
                continue
            out = torch.matmul(x.index_select(0, tok), w3[ex])
            out = out * r["slot_weight"][sl, None].to(out.dtype)
            y.index_copy_(0, sl, out)
        return y

    fns = {"loop": loop}
    if hasattr(torch, "_grouped_mm"):
        offs = torch.tensor(r["counts"], device="cuda").cumsum(0).int()
        tok_sorted = r["order"] // topk
        wsorted = r["slot_weight"][r["order"]]
        w3t = w3.transpose(1, 2).contiguous().transpose(1, 2)  # column-major B

        def grouped():
            a = x.index_select(0, tok_sorted)
            out = torch._grouped_mm(a, w3t, offs=offs)
            out = out * wsorted[:, None].to(out.dtype)
            y = torch.empty(r["nslots"], n, device="cuda", dtype=x.dtype)
            y.index_copy_(0, r["order"], out)
            return y
        try:
            grouped()
            torch.cuda.synchronize()
            fns["grouped"] = grouped
        except Exception as e:  # pragma: no cover
            print("torch._grouped_mm unavailable here: %s" % str(e).split("\n")[0])
    return fns


def reference(x, w3, r, topk):
    y = torch.empty(r["nslots"], w3.shape[2], device="cuda", dtype=torch.float32)
    src = 0
    for ex in range(w3.shape[0]):
        sl = r["order"][src:src + r["counts"][ex]]
        src += r["counts"][ex]
        if sl.numel():
            y[sl] = (x[sl // topk].float() @ w3[ex].float()) * r["slot_weight"][sl, None]
    return y


def rel_err(y, ref):
    return ((y.float() - ref).norm() / ref.norm()).item()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptx", required=True)
    ap.add_argument("--shape", choices=sorted(SHAPES), required=True)
    ap.add_argument("--tokens", type=int, default=None)
    ap.add_argument("--hidden", type=int, default=None,
                    help="K (default: from the PTX name, *_k<K>.ptx)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    experts, topk, tokens, n = SHAPES[args.shape]
    tokens = args.tokens or tokens
    drv = gb.CudaDriver()
    drv.check(drv.cuInit(0), "cuInit")
    dev = drv.device(0)
    torch.cuda.init()
    drv.current_context(dev)
    kern = MoEKernel(drv, args.ptx)
    # The hidden size is static in the kernel (compile.sh names the PTX by it).
    m = re.search(r"_k(\d+)\.ptx$", args.ptx)
    k = args.hidden or (int(m.group(1)) if m else 4096)
    stream = torch.cuda.current_stream().cuda_stream
    print("device: %s, torch %s, driver %d; %s: %d regs, %d B local, %d B smem"
          % (torch.cuda.get_device_name(0), torch.__version__, drv.driver_version(),
             kern.name, kern.regs, kern.local, kern.smem))
    print("shape %s: experts %d, top-%d, tokens %d, K %d, N %d"
          % (args.shape, experts, topk, tokens, k, n))
    errs = []
    for seed in (1, 2):
        g = torch.Generator(device="cuda").manual_seed(seed)
        x = torch.randn(tokens, k, device="cuda", dtype=torch.bfloat16, generator=g)
        w3 = (torch.randn(experts, k, n, device="cuda", dtype=torch.bfloat16, generator=g)
              / k ** 0.5)
        r = route(experts, topk, tokens, g)
        y = torch.full((r["nslots"] + r["p"], n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        targs = (x, w3.view(experts * k, n), y, r["rows"], r["ids"], r["weights"],
                 r["block_expert"])
        kern.check(*targs)
        params = kern.prepare(*targs)
        grid = kern.grid(*targs)
        kern.launch(params, grid, stream)
        torch.cuda.synchronize()
        ref = reference(x, w3, r, topk)
        got = y[: r["nslots"]]
        errs.append(rel_err(got, ref) if not torch.isnan(got).any().item() else float("nan"))
        fns = peers(x, w3, r, topk)
        for name, fn in fns.items():
            e = rel_err(fn(), ref)
            if not e < 2e-2:
                print("peer %s disagrees with the reference: %.2e" % (name, e))
    if not all(e < 2e-2 for e in errs):
        print("FAILED check: relative errors %s" % errs)
        return 1
    print("checked: relative error %s (two seeds, Y poisoned with NaN)"
          % " / ".join("%.1e" % e for e in errs))
    flops = 2.0 * tokens * topk * k * n
    pad = r["p"] - r["nslots"]
    print("sorted positions %d (%d padding, %.0f%%), blocks %d x %d"
          % (r["p"], pad, 100.0 * pad / r["p"], grid[0], grid[1]))
    rows = []
    for _ in range(args.repeat):
        t = {"argus": gb.time_ms(lambda: kern.launch(params, grid, stream), args.warmup,
                                 args.iters)[0]}
        for name, fn in fns.items():
            t[name] = gb.time_ms(fn, args.warmup, args.iters)[0]
        rows.append(t)
    names = ["argus"] + list(fns)
    print()
    print("| shape | " + " | ".join("%s TFLOP/s" % nm for nm in names) + " | "
          + " | ".join("argus / %s" % nm for nm in names[1:]) + " |")
    print("| --- |" + " ---: |" * (2 * len(names) - 1))
    for t in rows:
        print("| %s | " % args.shape
              + " | ".join("%.0f" % (flops / t[nm] / 1e9) for nm in names) + " | "
              + " | ".join("%.2f" % (t[nm] / t["argus"]) for nm in names[1:]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
