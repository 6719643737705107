#!/usr/bin/env python3
"""Development machine: the completion-latency measurement (issue 16's
`completion`, `site-trace` and `exposed` signals) of a cp.async-pipelined
GEMM and the warp-specialized TMA GEMM, for the GPU machine.

For each kernel (a DSL kernel, lowered in process): the reference PTX (no
probes); one site-trace PTX (regions issue:SITE and wait:SITE of every
asynchronous site of the measured region, nothing forced); and completion
PTX, each forcing the completion of one site in a batch of iterations that
lie more than the pipeline depth apart (`argus-insert-probes
completion-site=... completion-iteration=...`, as the planner partitions
them). Each with its argus-run spec (bench/measure/gen/*.json); the region
IDs come from the probe plan the lowering recorded.

    PYTHONPATH=build/python:python:examples/python python3 bench/measure/prepare_completion.py
    # device: sh bench/measure/run_specs_h200.sh completion_index.json table_completion.py
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))

import argus.compile as acomp  # noqa: E402
import gemm_tma_ws  # noqa: E402
import pipelined_gemm  # noqa: E402

ITERATIONS = 16


def kernels(size):
    s = {"M": size, "N": size, "K": size}
    # (tag, kernel, measured region, sizes, grid, records per warp). No host
    # check in these runs (taken out while a hang was diagnosed, which was
    # the forced wait's deadlock; the kernels' outputs are checked by
    # bench/hopper and bench/lowering, and bench/measure's partition runs
    # check their reference run).
    yield ("cpasync2", pipelined_gemm.make_pipelined_gemm(2), "mainloop", s,
           [size // 64, size // 64, 1], 1024)
    yield ("tma_ws", gemm_tma_ws.make_gemm_tma_ws(regions=True), "produce", s, ["sms"], 2048)


def lowered(kernel, options):
    """The kernel's module with argus-insert-probes `options`, lowered with
    probes on every region they made; a CompiledKernel."""
    mod = kernel.module().clone()
    mod.run_pipeline(f"argus-insert-probes{{{options}}}")
    made = [n for n in mod.measurement_sites()["regions"]
            if ":" in n["name"] and n["name"].split(":")[0] in ("completion", "issue", "wait")]
    names = [r["name"] for r in made]
    data, diags, abis = acomp._compile_module(mod, kernel.target, True, "isa", None, names)
    return acomp.CompiledKernel(kernel.name, kernel.name, kernel.target,
                                data.decode(), list(kernel.params), kernel.block, True,
                                {}, diags, abis[kernel.name], data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    gen = os.path.join(HERE, "gen")
    os.makedirs(gen, exist_ok=True)
    index = {}
    for tag, k, region, sizes, grid, capacity in kernels(a.size):
        sites_info = k.module().measurement_sites()
        sites = [s["site"] for s in sites_info["async_sites"][region]]
        depth = sites_info["pipeline_depth"]
        variants = [("ref", None, {})]
        variants.append(("trace", f"site-trace={','.join(sites)}", {}))
        for si, site in enumerate(sites):
            for b in range(depth + 1):
                its = list(range(b, ITERATIONS, depth + 1))
                opts = (f"completion-site={','.join([site] * len(its))} "
                        f"completion-iteration={','.join(map(str, its))}")
                variants.append((f"comp{si}b{b}", opts, {"site": site, "iterations": its}))
        entries = []
        for vname, opts, meta in variants:
            name = f"{tag}.{vname}"
            ck = acomp.compile_kernel(k) if opts is None else lowered(k, opts)
            with open(os.path.join(gen, name + ".ptx"), "wb") as f:
                f.write(ck.binary)
            spec = ck.launch_spec(name + ".ptx", sizes, grid, name=name,
                                  outputs=["C"], repetitions=a.reps, warmup=5,
                                  probe_capacity=capacity)
            if "probes" in spec:
                # The trace pairs issue and wait per block: list every warp.
                spec["probes"]["timeline_warps"] = 2048 if vname == "trace" else 1
            with open(os.path.join(gen, name + ".json"), "w") as f:
                json.dump(spec, f, indent=1)
            entries.append({"variant": vname, "spec": name, **meta})
        distance = {s["site"]: s["distance"] for s in sites_info["async_sites"][region]}
        index[tag] = {"kernel": k.name, "region": region, "sites": sites, "depth": depth,
                      "distance": distance, "runs": entries}
        print(f"{tag}: {len(sites)} sites ({', '.join(sites)}), depth {depth}, "
              f"{len(entries)} variants")
    with open(os.path.join(gen, "completion_index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
