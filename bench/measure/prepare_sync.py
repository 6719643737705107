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
import os
import subprocess

from argus.measure.program import Program
from pipelined import KERNELS, gen_dir, parse_args, source, write_spec

LOOPS = ("mainloop", "drain")


def main():
    a = parse_args(reps=50)
    gen = gen_dir()
    for k in KERNELS:
        src = source(k)
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
            write_spec(gen, f"{k}.{variant}", ptx, k, a,
                       {str(i): n for i, n in sorted(made.items())},
                       1024 if variant == "sync" else None)
        print(f"{k}: {len(sites)} sync sites: {', '.join(sites)}")


if __name__ == "__main__":
    main()
