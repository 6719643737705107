#!/usr/bin/env python3
"""The tables of bench/measure/query_h200.py's queries, after the device's
results were taken (`query_h200.py round` again):

1. each region's mean duration from the planner's report (`plan`), from a
   query for that region alone (`iso`) and from every region probed in one
   run (`all`, no planner), with the ratios to `iso`;
2. the hardware metrics the report attributes to each region (ncu source
   counters through line info), with the association entropy;
3. the completion latency of the loads per iteration;
4. turnaround and workspace per probe for 1, 2, 4 and 8 probes a run (the
   paper's Figure 14): CPU seconds here (transforms, then synthesis), GPU
   seconds of the collection script, and the artifact directory's size.

    python3 bench/measure/table_query.py DEVICE_OUT_DIR
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen", "query")


def val(x):
    return x.get("value") if isinstance(x, dict) else x


def report(name):
    p = os.path.join(GEN, f"{name}.report.json")
    return json.load(open(p))["report"] if os.path.exists(p) else None


def all_mean(out, tag, region):
    p = os.path.join(out, f"{tag}.all.report.json")
    if not os.path.exists(p):
        return None
    for r in (json.load(open(p)).get("probes") or {}).get("regions", []):
        if r.get("name") == region:
            return val(r.get("mean"))
    return None


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.3f}"


def durations(out, tag):
    main = report(f"{tag}.main")
    if not main:
        print(f"{tag}: no report yet")
        return
    t = main["kernel"]["time"]
    ck = main["kernel"].get("check") or {}
    print(f"\n{tag}: reference run {val(t):.4f} ms, check "
          f"{'pass' if ck.get('passed') else 'FAIL'} ({ck.get('reference')}, "
          f"{fmt(ck.get('reference_ms'))} ms, max abs err {fmt(ck.get('max_abs_err'), '.3g')})\n")
    print("| region | iso ns | plan ns | all ns | plan / iso | all / iso |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for region, sigs in main["regions"].items():
        d = sigs.get("duration")
        if not d or "mean" not in d:
            continue
        iso = report(f"{tag}.iso-{region}")
        i = val(iso["regions"][region]["duration"]["mean"]) if iso else None
        p = val(d["mean"])
        a = all_mean(out, tag, region)
        print(f"| {region} | {fmt(i)} | {fmt(p)} | {fmt(a)} | {ratio(p, i)} | {ratio(a, i)} |")


def hardware(tag):
    main = report(f"{tag}.main")
    if not main or "hw" not in main:
        return
    tot = main["hw"]["totals"]
    keys = ("Instructions Executed", "Warp Stall Sampling (All Samples)", "stall_long_sb",
            "stall_barrier", "stall_wait", "L1 Wavefronts Shared Excessive")
    keys = [k for k in keys if k in tot]
    print(f"\n{tag}: hardware metrics per region (inclusive, share of the kernel's total; "
          f"PCs {main['hw']['pcs']})\n")
    print("| region | " + " | ".join(keys) + " | entropy |")
    print("| --- | " + " | ".join("---:" for _ in keys) + " | ---: |")
    for region, sigs in main["regions"].items():
        hw = sigs.get("hw")
        if not hw or "inclusive" not in hw:
            continue
        inc = hw["inclusive"]
        cells = [f"{100 * val(inc[k]) / val(tot[k]):.1f}%" if k in inc and val(tot[k]) else "-"
                 for k in keys]
        h = inc.get(keys[0], {}).get("entropy")
        print(f"| {region} | " + " | ".join(cells) + f" | {fmt(h, '.2f')} |")
    un = main["hw"]["unattributed"]
    print("| (unattributed) | " + " | ".join(
        f"{100 * val(un[k]) / val(tot[k]):.1f}%" if k in un and val(tot[k]) else "0.0%"
        for k in keys) + " | |")


def completion(tag):
    main = report(f"{tag}.main")
    if not main:
        return
    for region, sigs in main["regions"].items():
        c = sigs.get("completion")
        if not c or "rows" not in c:
            continue
        rows = c["rows"]
        by_site = {}
        for r in rows:
            by_site.setdefault(r["site"], []).append((r["iteration"], val(r["completion_latency"])))
        for site, its in by_site.items():
            its.sort()
            vals = [v for _, v in its]
            print(f"\n{tag} {site}: completion latency over iterations "
                  f"{its[0][0]}..{its[-1][0]} (ns): mean {sum(vals) / len(vals):.0f}, "
                  f"min {min(vals):.0f}, max {max(vals):.0f}; unmatched {len(c['unmatched'])}")


def turnaround(out):
    timing = json.load(open(os.path.join(GEN, "timing.json")))
    gpu = {}
    p = os.path.join(out, "script_times.txt")
    if os.path.exists(p):
        for line in open(p):
            s, t0, t1, _ = line.split()
            store = s.split("/")[1]
            gpu[store] = gpu.get(store, 0.0) + float(t1) - float(t0)
    print("\nturnaround and workspace per probe (64 completion probes, iterations 0..63)\n")
    print("| probes a run | runs | CPU s (plan + transforms) | GPU s (collections) "
          "| CPU s (synthesis) | s / probe | MiB / probe |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for b in (1, 2, 4, 8):
        name = f"cpasync3.turn-{b}"
        rep = report(name)
        if not rep or name not in timing:
            continue
        t = timing[name]
        store = os.path.join(GEN, "store", f"turn{b}")
        mib = int(subprocess.run(["du", "-sk", store], capture_output=True, text=True)
                  .stdout.split()[0]) / 1024
        plan = json.load(open(os.path.join(GEN, f"{name}.report.json")))["plan"]
        runs = len([r for r in plan["runs"] if r != "reference"])
        g = gpu.get(f"turn{b}")
        total = t[0] + (g or 0) + sum(t[1:])
        print(f"| {b} | {runs} | {t[0]:.1f} | {fmt(g)} | {sum(t[1:]):.1f} | "
              f"{total / 64:.2f} | {mib / 64:.2f} |")


def main():
    out = sys.argv[1]
    for tag in ("cpasync3", "tma_ws"):
        durations(out, tag)
        hardware(tag)
        completion(tag)
    turnaround(out)


if __name__ == "__main__":
    main()
