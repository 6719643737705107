#!/usr/bin/env python3
"""The table of prepare_scope.py's and prepare_occupancy.py's runs (every
index of bench/measure/gen with reports in OUT): kernel time of each variant
against the first ("ref") of its kernel in the same call, and the records
written."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def val(x):
    """A report field's value (fields are {"value", "provenance"})."""
    return x.get("value") if isinstance(x, dict) else x


out = sys.argv[1]
index = {}
for name in ("scope_index.json", "occupancy_index.json"):
    path = os.path.join(HERE, "gen", name)
    if os.path.exists(path):
        for kernel, entry in json.load(open(path)).items():
            if any(os.path.exists(os.path.join(out, r["spec"] + ".report.json"))
                   for r in entry["runs"]):
                index[name.split("_")[0] + ": " + kernel] = entry
print("| kernel | variant | options | median ms | vs ref | records |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for kernel, entry in index.items():
    t0 = None
    for run in entry["runs"]:
        path = os.path.join(out, run["spec"] + ".report.json")
        if not os.path.exists(path):
            print(f"| {kernel} | {run['variant']} | | no report | | |")
            continue
        rep = json.load(open(path))
        t = val(rep["timing"]["median"])
        if run["variant"] == "ref":
            t0 = t
        regions = (rep.get("probes") or {}).get("regions", [])
        records = sum(val(r.get("count")) or 0 for r in regions)
        ratio = f"{100 * (t / t0 - 1):+.1f}%" if t0 else ""
        print(f"| {kernel} | {run['variant']} | {run['options'] or ''} | {t:.3f} | {ratio} | "
              f"{records if regions else ''} |")
