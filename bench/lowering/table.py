#!/usr/bin/env python3
"""Summarise an argus-run --batch over the lowered GEMM specs (make_specs.py)
and torch_matmul.py's JSON into a markdown table (stdout) and summary.json.

  table.py RESULTS.json REPORT_DIR TORCH.json SUMMARY.json
"""
import json
import os
import sys

results, rdir, torch_json, summary_path = sys.argv[1:5]
batch = json.load(open(results))
torch_res = json.load(open(torch_json))
t_ms = torch_res["fp16_out"]["median_ms"]
by = {r["name"]: r for r in batch["results"]}
kernels = sorted({n.split(".")[0] for n in by})
rows, summary = [], {"torch": torch_res, "kernels": {}}


def ms(name):
    r = by.get(name)
    return r["time_ms"]["median"] if r and r.get("time_ms") else None


def ok(name):
    r = by.get(name)
    if not r:
        return "-"
    c = r.get("check") or {}
    if r["status"] != "ok":
        return f"{r['status']}"
    return f"ok ({c.get('rel_fro_err', 0):.1e})"


print(f"GEMM {torch_res['size']}^3 fp16 -> f32 on {torch_res['device']}, "
      f"argus-run (median of the spec's repetitions, CUDA events per launch); "
      f"torch.matmul (cuBLAS, fp16 out) {t_ms:.3f} ms = {torch_res['fp16_out']['tflops']:.1f} TFLOP/s"
      + (f"; f32 out {torch_res['f32_out']['median_ms']:.3f} ms" if "median_ms" in torch_res.get("f32_out", {}) else ""))
print()
S = torch_res["size"]
hdr = f"| kernel | check {S}^3 (rel fro err) | check 1024x512x768 | checks, all variants | ms | ms, again | TFLOP/s | x torch.matmul | probes: duration | probes: all (timeline) | without ldmatrix: ms | min 4 blocks/SM (128 regs): ms |"
print(hdr)
print("|" + "---|" * (hdr.count("|") - 1))
S = torch_res["size"]
for k in kernels:
    base = ms(k)
    if base is None:
        print(f"| {k} | {ok(k)} | | | | | | | | | | |")
        continue
    tf = 2 * S ** 3 / base / 1e9
    def over(v):
        m = ms(f"{k}.{v}")
        return f"+{(m / base - 1) * 100:.1f}% ({m:.3f} ms)" if m else "-"
    noldm = ms(f"{k}.noldm")
    vs = [n for n in by if n.split(".")[0] == k]
    npass = sum(1 for n in vs if by[n]["status"] == "ok")
    print(f"| {k} | {ok(k)} | {ok(k + '.shape2')} | {npass}/{len(vs)} | {base:.3f} | {ms(k + '.again') or 0:.3f} | {tf:.1f} | {t_ms / base:.3f} | "
          f"{over('probes_duration')} | {over('probes')} | "
          + (f"{noldm:.3f} ({2 * S ** 3 / noldm / 1e9:.1f} TFLOP/s)" if noldm else "-") + " | "
          + (f"{occ:.3f} ({2 * S ** 3 / occ / 1e9:.1f} TFLOP/s)" if (occ := ms(f"{k}.occ4")) else "-") + " |")
    summary["kernels"][k] = {"ms": base, "tflops": tf, "x_torch": t_ms / base,
                             "variants": {n: by[n] for n in by if n.split(".")[0] == k}}
print()
bad = [(n, by[n]["status"], (by[n].get("check") or {}).get("rel_fro_err")) for n in sorted(by)
       if by[n]["status"] != "ok"]
print("not ok: " + (", ".join(f"{n} ({st}, rel err {e})" for n, st, e in bad) if bad else "none"))
print()
for k in kernels:
    rp = os.path.join(rdir, f"{k}.probes.report.json")
    if not os.path.exists(rp):
        continue
    rep = json.load(open(rp))["probes"]
    b = rep["buffer"]
    print(f"{k}.probes: records {b['records']['value']}, dropped {b['dropped']['value']}, "
          f"anomalies unmatched_begin={b['anomalies']['unmatched_begin']} "
          f"unmatched_end={b['anomalies']['unmatched_end']}")
    for r in rep["regions"]:
        v = lambda f: r[f]["value"] if isinstance(r[f], dict) else r[f]
        print(f"    region {r['id']} {r['name']:<10} n={v('count'):>8} mean {v('mean'):9.1f} ns "
              f"p50 {v('p50'):9.1f} p99 {v('p99'):9.1f}")
json.dump(summary, open(summary_path, "w"), indent=1)
