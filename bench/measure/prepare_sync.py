#!/usr/bin/env python3
"""Development machine: the sync-site measurement of the pipelined GEMMs
(issue 16's `sync` signal) for the GPU machine.

For each kernel: the reference PTX (no probes) and the PTX whose only probes
time its synchronization sites (every barrier and wait of its main and drain
loops, found by the compiler's MeasurementSites analysis and wrapped by
`argus-insert-probes sync-sites=...`), and argus-run specs for both, with
the region IDs the pass chose read back from the instrumented module.

    PYTHONPATH=build/python:python python3 bench/measure/prepare_sync.py [--size 4096]
    # device: sh bench/measure/run_h200.sh  (carry runtime/third_party)
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
LOOPS = ("mainloop", "drain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin", "argus-opt"))
    a = ap.parse_args()
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    for k in KERNELS:
        src = os.path.join(ROOT, "examples", k + ".mlir")
        prog = Program.load(src)
        sites = [t.site for r in LOOPS for t in prog.sync_sites(r)]
        probed = os.path.join(gen, k + ".sync.mlir")
        subprocess.run([a.opt, src, f"--argus-insert-probes=sync-sites={','.join(sites)}",
                        "-o", probed], check=True)
        made = {i.id: n for n, i in Program.load(probed).regions().items() if n in sites}
        for variant, module, extra in (
                ("ref", src, "probes=0"),
                ("sync", probed, "probes=1 probe-regions=" + "|".join(sites)
                 + " probe-signals=duration|timeline")):
            ptx = os.path.join(gen, f"{k}.{variant}.ptx")
            subprocess.run([a.opt, module, f"--argus-to-nvptx={extra} dump={ptx}",
                            "-o", os.devnull], check=True)
            info = {"block": 128, "tile_m": 64, "tile_n": 64, "tile_k": 32,
                    "regions": {str(i): n for i, n in sorted(made.items())}}
            spec = gemm_spec(f"{k}.{variant}", ptx, k, a.size, a.size, a.size, info, a.reps,
                             probes_capacity=1024 if variant == "sync" else None)
            spec["module"] = os.path.basename(ptx)
            with open(os.path.join(gen, f"{k}.{variant}.json"), "w") as f:
                json.dump(spec, f, indent=1)
        print(f"{k}: {len(sites)} sync sites: {', '.join(sites)}")


if __name__ == "__main__":
    main()
