#!/usr/bin/env python3
"""The table of bench/measure/run_specs_h200.sh for partition_index.json:
each region's mean duration (ns per interval: per warp for a region outside
loops, per warp and iteration inside one) measured alone (`iso`), in the run
the planner put it in (`plan`), and with every region probed in one run
(`all`), with the ratios to the isolated value; and the kernel time of each
kind of run against the unprobed reference.

    python3 bench/measure/table_partition.py OUT_DIR
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def val(x):
    return x.get("value") if isinstance(x, dict) else x


def region_mean(rep, name):
    for r in ((rep or {}).get("probes") or {}).get("regions", []):
        if r.get("name") == name:
            return val(r.get("mean"))
    return None


def main():
    out = sys.argv[1]
    index = json.load(open(os.path.join(ROOT, "bench", "measure", "gen",
                                        "partition_index.json")))
    print("| kernel | region | iso ns | plan ns (run) | all ns | plan / iso | all / iso |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    times = []
    for k, entry in index.items():
        reps = {}
        for run in entry["runs"]:
            p = os.path.join(out, run["spec"] + ".report.json")
            reps[run["variant"]] = json.load(open(p)) if os.path.exists(p) else None
        for r in entry["regions"]:
            iso = region_mean(reps.get(f"iso-{r}"), r)
            plan_run = next((run["variant"] for run in entry["runs"]
                             if run["variant"].startswith("plan-") and r in run["regions"]), None)
            plan = region_mean(reps.get(plan_run), r) if plan_run else None
            allv = region_mean(reps.get("all"), r)
            ratio = (lambda x: f"{x / iso:.3f}" if x is not None and iso else "-")
            f = (lambda x: f"{x:.1f}" if x is not None else "-")
            print(f"| {k} | {r} | {f(iso)} | {f(plan)} ({plan_run}) | {f(allv)} "
                  f"| {ratio(plan)} | {ratio(allv)} |")
        t = {v: val((rep or {}).get("timing", {}).get("median")) for v, rep in reps.items()}
        ref = t.get("ref")
        plan_t = [x for v, x in t.items() if v.startswith("plan-") and x]
        iso_t = [x for v, x in t.items() if v.startswith("iso-") and x]
        check = ((reps.get("ref") or {}).get("check") or {}).get("passed")
        times.append((k, ref, max(plan_t) if plan_t else None, max(iso_t) if iso_t else None,
                      t.get("all"), check))
    print()
    print("| kernel | ref ms (check) | slowest plan run ms | slowest iso run ms | all-in-one ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for k, ref, pl, iso, allv, check in times:
        f = (lambda x: f"{x:.4f}" if x else "-")
        print(f"| {k} | {f(ref)} ({'pass' if check else check}) | {f(pl)} | {f(iso)} | {f(allv)} |")


if __name__ == "__main__":
    main()
