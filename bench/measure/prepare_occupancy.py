#!/usr/bin/env python3
"""Development machine: the pipelined GEMMs at more blocks per SM. ptxas
gives the 2-stage GEMM 168 registers (3 blocks of 128 threads per SM) and
the 3-stage one 147 (3 blocks); the probe scope runs (prepare_scope.py)
found the 2-stage kernel 30% faster with probe scaffolding that left it 96
registers. `min-blocks-per-sm=N` (.minnctapersm) asks ptxas for N blocks.

    PYTHONPATH=build/python:python python3 bench/measure/prepare_occupancy.py
    # device: sh bench/measure/run_specs_h200.sh occupancy_index.json table_scope.py
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lowering"))

from make_specs import gemm_spec  # noqa: E402

KERNELS = ("gemm_pipelined_2stage", "gemm_pipelined_3stage")


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
        for n in (0, 4, 5):
            variant = "ref" if n == 0 else f"min-blocks-{n}"
            name = f"{k}.occ-{variant}"
            ptx = os.path.join(gen, name + ".ptx")
            subprocess.run([a.opt, src, f"--argus-to-nvptx=min-blocks-per-sm={n} dump={ptx}",
                            "-o", os.devnull], check=True)
            v = subprocess.run(["ptxas", "-arch=sm_90a", "-v", ptx, "-o", os.devnull],
                               capture_output=True, text=True).stderr
            regs = re.search(r"Used (\d+) registers", v)
            spill = re.search(r"(\d+) bytes spill stores", v)
            note = f"{regs.group(1) if regs else '?'} regs, {spill.group(1) if spill else '?'} B spilled"
            info = {"block": 128, "tile_m": 64, "tile_n": 64, "tile_k": 32, "regions": {}}
            spec = gemm_spec(name, ptx, k, a.size, a.size, a.size, info, a.reps)
            spec["module"] = os.path.basename(ptx)
            spec.pop("check", None)  # timing only (the host GEMM takes minutes)
            with open(os.path.join(gen, name + ".json"), "w") as f:
                json.dump(spec, f, indent=1)
            runs.append({"spec": name, "variant": variant,
                         "options": (f"min-blocks-per-sm={n}; " if n else "") + note})
        index[k] = {"runs": runs}
        print(k, [r["options"] for r in runs])
    with open(os.path.join(gen, "occupancy_index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
