#!/usr/bin/env python3
"""Issue 16 end to end: planner queries executed offline (CPU tasks here,
collections on the H200 through the scripts OfflineExecutor writes), then
the tables of the report.

Queries, for the 3-stage cp.async GEMM and the warp-specialized TMA GEMM
(DSL kernels written out as .mlir programs):

* `main`: every region's duration, the main loop's timeline, the
  completion latency of the loads over iterations 0..15, and every
  region's hardware metrics (one ncu run);
* `iso-R`: region R's duration alone (one probed run each; the same runs
  the main query's refinement asks for short boundary regions, so their
  artifacts are shared);
* `all`: every region probed in one run (duration and timeline), as
  without a planner (built with the planner's own argus-opt commands);
* `turn-B` (3-stage GEMM): the completion latency of its load group over
  iterations 0..63 with at most B probes a run, B = 1, 2, 4, 8, each in an
  artifact directory of its own: the turnaround and workspace per probe.

    PYTHONPATH=build/python:python:examples/python python3 bench/measure/query_h200.py round
    # device (carry bench/measure/gen, runtime/third_party):
    #   sh bench/measure/query_h200.sh
    # here: unpack the device's staging.tgz into bench/measure/gen/query, then again:
    PYTHONPATH=... python3 bench/measure/query_h200.py round      # takes results, maybe more scripts
    PYTHONPATH=... python3 bench/measure/query_h200.py table
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))

import argus.compile as acomp  # noqa: E402
from argus.execution.slurm import SlurmConfig  # noqa: E402
from argus.measure import ArtifactStore, Planner, Query, Scope, make_handlers  # noqa: E402
from argus.measure.capabilities import toolchain_id  # noqa: E402
from argus.measure.program import Program  # noqa: E402
from argus.measure.transform import instrument_commands  # noqa: E402
from argus.execution.offline import OfflineExecutor  # noqa: E402

GEN = os.path.join(HERE, "gen", "query")
TOOLS = {"argus-opt": os.path.join(ROOT, "build", "bin", "argus-opt"),
         "argus-run": "/tmp/argus-rt/bin/argus-run"}
SIZE = 4096
BATCHES = (8, 4, 2, 1)
#: Probed blocks and records per warp: a probe run of every block of a
#: 4096^3 GEMM would carry a 1 GiB record buffer, decoded on the host.
BLOCKS = tuple(range(8))
CAPACITY = 256


def kernels():
    import gemm_tma_ws
    import pipelined_gemm
    # (tag, kernel, grid, region of the loads, loop region for the timeline)
    yield ("cpasync3", pipelined_gemm.make_pipelined_gemm(3), [SIZE // 64, SIZE // 64, 1],
           "mainloop", "mainloop")
    yield ("tma_ws", gemm_tma_ws.make_gemm_tma_ws(regions=True), ["sms"], "produce", None)


def program(tag, k):
    """The kernel as an .mlir program and the launch template of its
    reference run (checked against the device reference GEMM)."""
    path = os.path.join(GEN, f"{tag}.mlir")
    with open(path, "w") as f:
        f.write(k.ir(debug_info=True))  # Python lines: the line info names them
    return path


def template(k, grid):
    ck = acomp.compile_kernel(k)
    sizes = {"M": SIZE, "N": SIZE, "K": SIZE}
    spec = ck.launch_spec("module.ptx", sizes, grid, outputs=["C"], repetitions=20, warmup=5)
    idx = {a["name"]: i for i, a in enumerate(spec["args"])}
    spec["check"] = {"kind": "gemm", "A": idx["A"], "B": idx["B"], "C": idx["C"],
                     "M": SIZE, "N": SIZE, "K": SIZE, "reference": "device"}
    return spec


def queries():
    """(store name, query name, Query, max_batch) of every query."""
    out, turns = [], []
    for tag, k, grid, loads, loop in kernels():
        src = program(tag, k)
        launch = template(k, grid)
        regions = list(Program.load(src).regions())
        asks = [(r, "duration") for r in regions] + [(r, "hw") for r in regions]
        asks.append((loads, "completion"))
        if loop:
            asks.append((loop, "timeline"))
        out.append((tag, f"{tag}.main",
                    Query(src, asks=asks, scope=Scope(iterations=(0, 16), blocks=BLOCKS),
                          launch=launch), 8))
        for r in regions:
            out.append((tag, f"{tag}.iso-{r}",
                        Query(src, asks=[(r, "duration")],
                              scope=Scope(iterations=(0, 16), blocks=BLOCKS), launch=launch), 8))
        if tag == "cpasync3":
            for b in BATCHES:
                turns.append((f"turn{b}", f"{tag}.turn-{b}",
                            Query(src, asks=[(loads, "completion")],
                                  scope=Scope(iterations=(0, 64), blocks=BLOCKS),
                                  launch=launch), b))
    # The turnaround runs last: the device script stops at its deadline.
    return out + turns


def all_in_one():
    """Every region probed in one run (no planner), as a plain spec."""
    d = os.path.join(GEN, "all")
    os.makedirs(d, exist_ok=True)
    names = []
    for tag, k, grid, _, _ in kernels():
        src = os.path.join(GEN, f"{tag}.mlir")
        regions = list(Program.load(src).regions())
        opts = {"regions": ",".join(regions), "signals": "duration,timeline",
                "scope-blocks": ",".join(map(str, BLOCKS)), "iteration-window": "0:16",
                "capacity": str(CAPACITY), "clock": "globaltimer"}
        probed, ptx = os.path.join(d, f"{tag}.mlir"), os.path.join(d, f"{tag}.ptx")
        for c in instrument_commands(TOOLS["argus-opt"], src, probed, ptx, opts):
            subprocess.run(c, check=True)
        spec = template(k, grid)
        spec.pop("check")
        spec.update(name=f"{tag}.all", module=f"{tag}.ptx")
        # probes keep state in shared memory: the probed ABI's size
        abi = json.load(open(ptx + ".json"))["kernels"][spec["kernel"]]
        spec["shared_mem"] = int(abi["dynamic_smem"])
        ids = {str(i.id): n for n, i in Program.load(probed).regions().items()}
        warps = -(-spec["block"][0] // 32)
        spec["probes"] = {"capacity_per_warp": CAPACITY, "warps_per_block": warps, "warp_size": 32,
                          "clock": "globaltimer", "regions": ids, "timeline_warps": 1}
        with open(os.path.join(d, f"{tag}.json"), "w") as f:
            json.dump(spec, f, indent=1)
        names.append(tag)
    return names


def run_round():
    os.makedirs(GEN, exist_ok=True)
    handlers = make_handlers(TOOLS)
    scripts, timing = [], {}
    tpath = os.path.join(GEN, "timing.json")
    if os.path.exists(tpath):
        timing = json.load(open(tpath))
    for store, name, q, batch in queries():
        plan = Planner(max_batch=batch, capacity=CAPACITY,
                       toolchain=toolchain_id(TOOLS["argus-opt"])).plan(q)
        t0 = time.time()
        ex = OfflineExecutor(ArtifactStore(os.path.join(GEN, "store", store)),
                             SlurmConfig(collect_timeout=300)).execute(plan, handlers)
        dt = time.time() - t0
        timing.setdefault(name, []).append(dt)
        waiting = ex.info.get("waiting") or []
        failed = [t for t, o in ex.outcomes.items() if o.status == "failed"]
        print(f"{name}: {len(plan.tasks)} tasks, {dt:.1f} s here, {len(waiting)} collections "
              f"waiting, {len(failed)} failed")
        for t in failed[:3]:
            print("   ", t, ex.outcomes[t].errors[-1][:300])
        if ex.info.get("script"):
            scripts.append(os.path.relpath(ex.info["script"], GEN))
        rep = ex.outcomes[plan.by_op("report")[0].id].result
        if rep:
            with open(os.path.join(GEN, f"{name}.report.json"), "w") as f:
                json.dump({"report": rep, "plan": plan.to_json(),
                           "execution": ex.to_json()}, f, indent=1, default=str)
    with open(tpath, "w") as f:
        json.dump(timing, f, indent=1)
    with open(os.path.join(GEN, "scripts.txt"), "w") as f:
        f.write("\n".join(dict.fromkeys(scripts)) + ("\n" if scripts else ""))
    specs = os.path.join(GEN, "all", "specs.txt")
    if not os.path.exists(specs):
        names = all_in_one()
        with open(specs, "w") as f:
            f.write("\n".join(names) + "\n")
    print(f"{len(scripts)} script(s) to run on the GPU host: {GEN}/scripts.txt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=("round", "clean"))
    a = ap.parse_args()
    if a.step == "clean":
        shutil.rmtree(GEN, ignore_errors=True)
        return
    run_round()


if __name__ == "__main__":
    main()
