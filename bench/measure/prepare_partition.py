#!/usr/bin/env python3
"""Development machine: the planner's partitioned runs against isolated and
all-in-one probing (issue 16: region means from the partitioned plan vs
isolated single-region runs vs every region probed in one run), for the
pipelined GEMMs, for the GPU machine.

For each kernel the query asks the duration of every region. The variants:
`ref` (no probes); `iso-R` (region R alone: `argus-insert-probes regions=R`);
`all` (every region in one run, duration and timeline probes, as a user
would probe without a planner); and `plan-runNN`, the instrumented runs the
planner (argus.measure.Planner) partitions the query into, built with the
planner's own argus-opt commands (transform.instrument_commands).

    PYTHONPATH=build/python:python python3 bench/measure/prepare_partition.py
    # device: sh bench/measure/run_specs_h200.sh partition_index.json table_partition.py
"""
import os
import subprocess

from argus.measure import Planner, Query
from argus.measure.program import Program
from argus.measure.transform import instrument_commands, reference_commands
from pipelined import KERNELS, gen_dir, parse_args, source, write_index, write_spec


def main():
    a = parse_args(reps=20)
    gen = gen_dir()
    index = {}
    for k in KERNELS:
        src = source(k)
        regions = list(Program.load(src).regions())
        plan = Planner().plan(Query(src, asks=[(r, "duration") for r in regions]))
        variants = []  # (name, insert-probes options or None, regions it reports)
        for t in plan.by_op("instrument"):
            run = t.id.split("instrument-")[-1]
            opts = t.options["insert_probes"]
            variants.append((f"plan-{run}", opts, opts["regions"].split(",")))
        for r in regions:
            variants.append((f"iso-{r}", {"regions": r, "signals": "duration,timeline",
                                          "capacity": "1024", "clock": "globaltimer"}, [r]))
        variants.append(("all", {"regions": ",".join(regions), "signals": "duration,timeline",
                                 "capacity": "1024", "clock": "globaltimer"}, regions))
        entries = []
        for vname, opts, probed in [("ref", None, [])] + variants:
            name = f"{k}.{vname}"
            ptx = os.path.join(gen, name + ".ptx")
            if opts is None:
                cmds = reference_commands(a.opt, src, ptx)
            else:
                cmds = instrument_commands(a.opt, src, os.path.join(gen, name + ".mlir"), ptx,
                                           opts)
            for c in cmds:
                subprocess.run(c, check=True)
            ids = {} if opts is None else {
                str(i.id): n for n, i in
                Program.load(os.path.join(gen, name + ".mlir")).regions().items() if n in probed}
            # checked once, on the reference run
            write_spec(gen, name, ptx, k, a, ids, 1024 if ids else None, check=vname == "ref")
            entries.append({"variant": vname, "spec": name, "regions": probed})
        index[k] = {"regions": regions, "runs": entries,
                    "plan": {rid: r["items"] for rid, r in plan.runs.items()}}
        print(f"{k}: {len(regions)} regions, planner runs: "
              + "; ".join(f"{rid}: {', '.join(r['items']) or 'reference'}"
                          for rid, r in plan.runs.items()))
    write_index(gen, "partition", index)


if __name__ == "__main__":
    main()
