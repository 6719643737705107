#!/usr/bin/env python3
"""Write argus-run launch specs (docs/Runtime.md) for the lowered sm_90a GEMM
kernels compiled by compile.sh, from its manifest.json.

The lowered kernel ABI (docs/Lowering.md): each memref argument is a global
pointer followed by one i64 per dimension (row-major, contiguous), index
arguments are i64, and with probes the probe buffer pointer comes last --
which is where argus-run appends it when the spec has a "probes" key. For
gemm(A: MxK, B: KxN, C: MxN, K: index) that is
    (A, M, K, B, K, N, C, M, N, K [, probes])
so the check refers to arguments 0 (A), 3 (B) and 6 (C).

Specs (one per kernel and variant, in <ptx>/specs/):
  <kernel>[.<variant>].json             size^3, timed, checked
  <kernel>.shape2.json                  1024x512x768, checked (a non-square shape)
  <kernel>.again.json                   the probes-off kernel timed a second time
Variants: "" (probes off), "probes" (every region, per-iteration timeline),
"probes_duration" (duration only), and any other PTX variant compile.sh made
(e.g. "noldm": fragments without ldmatrix).

  make_specs.py [--ptx DIR] [--size 4096] [--reps 50]
"""
import argparse
import json
import os

REGIONS_CAPACITY = {"": None, "probes": 1024, "probes_duration": 16}


def gemm_spec(name, ptx, kernel, M, N, K, info, reps, probes_capacity=None):
    tm, tn = info["tile_m"], info["tile_n"]
    assert M % tm == 0 and N % tn == 0 and K % info["tile_k"] == 0
    args = [
        {"name": "A", "dtype": "f16", "shape": [M, K], "init": "random", "seed": 1, "role": "input"},
        {"name": "A.rows", "dtype": "i64", "value": M},
        {"name": "A.cols", "dtype": "i64", "value": K},
        {"name": "B", "dtype": "f16", "shape": [K, N], "init": "random", "seed": 2, "role": "input"},
        {"name": "B.rows", "dtype": "i64", "value": K},
        {"name": "B.cols", "dtype": "i64", "value": N},
        {"name": "C", "dtype": "f32", "shape": [M, N], "role": "output"},
        {"name": "C.rows", "dtype": "i64", "value": M},
        {"name": "C.cols", "dtype": "i64", "value": N},
        {"name": "K", "dtype": "i64", "value": K},
    ]
    spec = {
        "name": name,
        "module": os.path.relpath(ptx, "specs_dir_placeholder"),
        "format": "ptx",
        "kernel": kernel,
        "grid": [N // tn, M // tm, 1],
        "block": [info["block"], 1, 1],
        "args": args,
        # fp16 products, f32 accumulation on both sides: only the summation
        # order differs.
        "check": {"kind": "gemm", "A": 0, "B": 3, "C": 6, "M": M, "N": N, "K": K,
                  "layout": "row-major", "atol": 1e-2, "rtol": 1e-3},
        "warmup": 5,
        "repetitions": reps,
    }
    if probes_capacity:
        spec["probes"] = {"capacity_per_warp": probes_capacity,
                          "warps_per_block": info["block"] // 32, "warp_size": 32,
                          "clock": "globaltimer",
                          "regions": info["regions"], "timeline_warps": 64}
    return spec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "ptx"))
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=100)
    a = ap.parse_args()
    manifest = json.load(open(os.path.join(a.ptx, "manifest.json")))
    sdir = os.path.join(a.ptx, "specs")
    os.makedirs(sdir, exist_ok=True)
    for f in os.listdir(sdir):
        if f.endswith(".json"):
            os.remove(os.path.join(sdir, f))
    n = 0
    for kernel, info in manifest.items():
        variants = [""] + info.get("variants", [])
        for v in variants:
            ptx = os.path.join(a.ptx, kernel + (("." + v) if v else "") + ".ptx")
            if not os.path.exists(ptx):
                continue
            name = kernel + (("." + v) if v else "")
            cap = REGIONS_CAPACITY.get(v)
            S = a.size
            spec = gemm_spec(name, ptx, kernel, S, S, S, info, a.reps, cap)
            spec["module"] = os.path.relpath(ptx, sdir)
            json.dump(spec, open(os.path.join(sdir, name + ".json"), "w"), indent=1)
            n += 1
        # The same kernel again (the spread between two timings of one PTX).
        spec = gemm_spec(kernel + ".again", os.path.join(a.ptx, kernel + ".ptx"), kernel,
                         a.size, a.size, a.size, info, a.reps)
        spec["module"] = os.path.relpath(os.path.join(a.ptx, kernel + ".ptx"), sdir)
        json.dump(spec, open(os.path.join(sdir, kernel + ".again.json"), "w"), indent=1)
        n += 1
        spec = gemm_spec(kernel + ".shape2", os.path.join(a.ptx, kernel + ".ptx"), kernel,
                         1024, 512, 768, info, 5)
        spec["module"] = os.path.relpath(os.path.join(a.ptx, kernel + ".ptx"), sdir)
        json.dump(spec, open(os.path.join(sdir, kernel + ".shape2.json"), "w"), indent=1)
        n += 1
    print(f"wrote {n} specs to {sdir}")


if __name__ == "__main__":
    main()
