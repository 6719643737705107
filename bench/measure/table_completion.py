#!/usr/bin/env python3
"""The table of bench/measure/run_specs_h200.sh for completion_index.json: per kernel and
asynchronous site, the completion latency of 16 iterations (forced-wait
runs), the reference trace's overlap (issue -> the wait for the same
operation, same run) and the exposed latency, joined by (site, iteration)
with argus.measure.synthesis; and the kernel time of the unprobed, traced
and completion-probed runs (medians of argus-run's event-timed launches).

    python3 bench/measure/table_completion.py OUT_DIR
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from argus.measure import synthesis as S  # noqa: E402


def val(x):
    return x.get("value") if isinstance(x, dict) else x


def main():
    out = sys.argv[1]
    index = json.load(open(os.path.join(ROOT, "bench", "measure", "gen",
                                        "completion_index.json")))
    print("| kernel | site | iterations | completion ns | overlap ns | exposed ns | "
          "ref ms | traced ms | completion runs ms | checks |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for tag, k in index.items():
        reports, times, checks = {}, {}, []
        for run in k["runs"]:
            p = os.path.join(out, run["spec"] + ".report.json")
            if not os.path.exists(p):
                continue
            rep = json.load(open(p))
            reports[run["spec"]] = [rep]
            times.setdefault(run["variant"][:4], []).append(val(rep["timing"]["median"]))
            if rep.get("check") is not None:
                checks.append(bool(rep["check"].get("passed")))
            anomalies = (((rep.get("probes") or {}).get("buffer") or {}).get("dropped") or {})
            if val(anomalies):
                print(f"<!-- {run['spec']}: {val(anomalies)} records dropped -->")
        trace = reports.get(f"{tag}.trace", [])
        ref = S.site_trace_from_runs(trace, k["sites"], distance=k["distance"])
        mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
        for site in k["sites"]:
            items = [(r["spec"], site, i) for r in k["runs"] if r.get("site") == site
                     for i in r["iterations"]]
            probe = S.completion_from_runs(reports, items)
            rows = S.join_completion(probe, ref)["rows"]
            lat = [r["completion_latency"]["value"] for r in rows]
            ov = [r["overlap"]["value"] for r in rows]
            ex = [r["exposed_latency"]["value"] for r in rows]
            print(f"| {k['kernel']} | {site} (distance {k['distance'][site]}) | {len(rows)} "
                  f"| {mean(lat):.0f} | {mean(ov):.0f} | {mean(ex):.0f} "
                  f"| {mean(times.get('ref', [])):.4f} | {mean(times.get('trac', [])):.4f} "
                  f"| {mean(times.get('comp', [])):.4f} "
                  f"| {'ok' if checks and all(checks) else 'FAILED' if checks else '-'} |")


if __name__ == "__main__":
    main()
