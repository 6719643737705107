#!/usr/bin/env python3
"""The table of bench/measure/run_h200.sh: kernel time without and with the
sync-site probes (same run), and each site's mean time per visit."""
import glob
import json
import os
import sys



def val(x):
    """A report field's value (fields are {"value", "provenance"})."""
    return x.get("value") if isinstance(x, dict) else x


out = sys.argv[1]
reports = {}
for p in sorted(glob.glob(os.path.join(out, "*.report.json"))):
    name, variant, pas = os.path.basename(p)[:-len(".report.json")].rsplit(".", 2)
    reports.setdefault(name, {}).setdefault(pas, {})[variant] = json.load(open(p))
print("| kernel | pass | check | ref ms | sync-probed ms | overhead | site: mean ns per visit (visits) |")
print("| --- | --- | --- | ---: | ---: | ---: | --- |")
for name, passes in reports.items():
    for pas, v in sorted(passes.items()):
        ref, syn = v.get("ref"), v.get("sync")
        if not ref or not syn:
            continue
        t0, t1 = val(ref["timing"]["median"]), val(syn["timing"]["median"])
        ok = all((r.get("check") or {}).get("passed") for r in (ref, syn))
        sites = []
        for r in (syn.get("probes") or {}).get("regions", []):
            mean, cnt = val(r.get("mean")), val(r.get("count"))
            sites.append(f"{r['name']}: {mean:.0f} ({cnt})")
        print(f"| {name} | {pas} | {'pass' if ok else 'FAIL'} | {t0:.3f} | {t1:.3f} | "
              f"{100 * (t1 / t0 - 1):+.1f}% | {'; '.join(sites)} |")
