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
import os
import subprocess

from argus.measure.program import Program
from pipelined import KERNELS, gen_dir, parse_args, source, write_index, write_spec

# (variant, argus-insert-probes options); None: the unprobed reference.
VARIANTS = (("ref", None), ("all", ""), ("warp0", "scope-warps=0"),
            ("warp0-it16", "scope-warps=0 iteration-window=0:16"),
            ("block0-warp0", "scope-warps=0 scope-blocks=0"))


def main():
    a = parse_args(reps=50)
    gen = gen_dir()
    index = {}
    for k in KERNELS:
        src = source(k)
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
            # Timing only (the kernels' outputs are checked by bench/lowering
            # and the sync runs).
            write_spec(gen, name, ptx, k, a, regions, 1024 if opts is not None else None,
                       check=False)
            runs.append({"spec": name, "variant": variant, "options": opts})
        index[k] = {"runs": runs}
        print(f"{k}: {len(runs)} variants")
    write_index(gen, "scope", index)


if __name__ == "__main__":
    main()
