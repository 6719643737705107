#!/usr/bin/env python3
"""Development machine: the pipelined GEMMs at more blocks per SM. ptxas
gives the 2-stage GEMM 168 registers (3 blocks of 128 threads per SM) and
the 3-stage one 147 (3 blocks); the probe scope runs (prepare_scope.py)
found the 2-stage kernel 30% faster with probe scaffolding that left it 96
registers. `min-blocks-per-sm=N` (.minnctapersm) asks ptxas for N blocks.

    PYTHONPATH=build/python:python python3 bench/measure/prepare_occupancy.py
    # device: sh bench/measure/run_specs_h200.sh occupancy_index.json table_scope.py
"""
import os
import re
import subprocess

from pipelined import KERNELS, gen_dir, parse_args, source, write_index, write_spec


def main():
    a = parse_args(reps=50)
    gen = gen_dir()
    index = {}
    for k in KERNELS:
        src = source(k)
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
            write_spec(gen, name, ptx, k, a, check=False)
            runs.append({"spec": name, "variant": variant,
                         "options": (f"min-blocks-per-sm={n}; " if n else "") + note})
        index[k] = {"runs": runs}
        print(k, [r["options"] for r in runs])
    write_index(gen, "occupancy", index)


if __name__ == "__main__":
    main()
