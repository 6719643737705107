#!/usr/bin/env python3
"""Development machine: what a probe scope saves (issue 16). For each
pipelined GEMM: the reference PTX (no probes) and PTX with every region
probed (duration outside loops, timeline inside) for all warps and blocks,
for warp 0 of each block, for warp 0 over iterations 0..15, and for warp 0
of block 0 only. Each is `argus-insert-probes` with the scope, then
`--argus-to-nvptx=probes=1`, which keeps that plan, as the planner lowers.

    PYTHONPATH=build/python:python python3 bench/measure/prepare_scope.py
    # device: sh bench/measure/run_specs_h200.sh scope_index.json table_scope.py
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lowering"))

from argus.measure.program import Program  # noqa: E402
from make_specs import gemm_spec  # noqa: E402

KERNELS = ("gemm_pipelined_2stage", "gemm_pipelined_3stage")
# (variant, argus-insert-probes options); None: the unprobed reference.
VARIANTS = (("ref", None), ("all", ""), ("warp0", "scope-warps=0"),
            ("warp0-it16", "scope-warps=0 iteration-window=0:16"),
            ("block0-warp0", "scope-warps=0 scope-blocks=0"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin", "argus-opt"))
    a = ap.parse_args()
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    index = {}
    for k in KERNELS:
        src = os.path.join(ROOT, "examples", k + ".mlir")
        runs = []
        for variant, opts in VARIANTS:
            name = f"{k}.scope-{variant}"
            ptx = os.path.join(gen, name + ".ptx")
            module, regions = src, {}
            if opts is not None:
                module = os.path.join(gen, name + ".mlir")
                subprocess.run([a.opt, src, f"--argus-insert-probes={opts} capacity=1024",
                                "-o", module], check=True)
                regions = {str(i.id): n for n, i in Program.load(module).regions().items()}
            subprocess.run([a.opt, module, "--argus-to-nvptx=probes="
                            f"{0 if opts is None else 1} dump={ptx}", "-o", os.devnull],
                           check=True)
            info = {"block": 128, "tile_m": 64, "tile_n": 64, "tile_k": 32,
                    "regions": regions}
            spec = gemm_spec(name, ptx, k, a.size, a.size, a.size, info, a.reps,
                             probes_capacity=1024 if opts is not None else None)
            spec["module"] = os.path.basename(ptx)
            # Timing only (a host GEMM at 4096^3 takes minutes; the kernels'
            # outputs are checked by bench/lowering and the sync runs).
            spec.pop("check", None)
            with open(os.path.join(gen, name + ".json"), "w") as f:
                json.dump(spec, f, indent=1)
            runs.append({"spec": name, "variant": variant, "options": opts})
        index[k] = {"runs": runs}
        print(f"{k}: {len(runs)} variants")
    with open(os.path.join(gen, "scope_index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
