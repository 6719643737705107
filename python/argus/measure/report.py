"""The measurement report (``argus.measure_report/1``, docs/Measure.md) and
its text summary."""

from __future__ import annotations

from typing import Dict, List, Optional

from . import attribution
from . import synthesis as S

LEGEND = {"observed": "read from the device in one run (records, counters, event timings)",
          "attributed": "apportioned to a region from evidence at another granularity "
                        "(per-PC hardware metrics), with the association entropy",
          "derived": "computed from observed or attributed values (statistics, joins)"}


def synthesize_task(ctx) -> dict:
    """Handler of the ``report`` task: inputs are the analyses, controls and
    collections of the plan."""
    t = ctx.task
    plan_runs: Dict[str, List[dict]] = {}
    regions_info = {}
    distance: Dict[str, int] = {}
    missing = []
    hw = None
    for tid, res in ctx.inputs.items():
        st = ctx.input_status[tid]
        if st not in ("done", "cached"):
            missing.append({"task": tid, "status": st})
            continue
        if tid.endswith("-transform-regions"):
            regions_info = res
        elif isinstance(res, dict) and "hw" in res:
            hw = res
        elif isinstance(res, dict) and "report" in res:
            run = t.options.get("run_of", {}).get(tid, res.get("run"))
            plan_runs.setdefault(run, []).append(res["report"])
            distance.update(res.get("site_distance") or {})
    return build(t.options, regions_info, plan_runs, t.options.get("runs_items", {}),
                 missing, t.binding, distance, hw)


def build(options: dict, regions_info: dict, runs: Dict[str, List[dict]],
          run_items: Dict[str, List[str]], missing: List[dict], binding: dict,
          distance: Optional[Dict[str, int]] = None, hw: Optional[dict] = None) -> dict:
    """``distance``: per asynchronous site, in how many iterations its wait
    follows its issue (the instrument task's MeasurementSites); ``hw``: the
    ncu collection's attribution (handlers.NcuRun.finish)."""
    scope = options.get("scope") or {}
    window = scope.get("iterations")
    out_regions: Dict[str, dict] = {}
    inclusive = attribution.inclusive(hw["hw"], hw.get("parents") or {}) if hw else {}
    for region, signal in options.get("asks", []):
        r = out_regions.setdefault(region, {})
        src = _run_for(region, signal, run_items,
                       in_loop=(regions_info.get(region) or {}).get("in_loop", True))
        reports = runs.get(src, []) if src else []
        if signal == "duration":
            r[signal] = S.duration_from_runs(reports, region, window) or \
                {"missing": "no run report for this region"}
        elif signal == "timeline":
            parents = {n: i.get("parent") for n, i in regions_info.items()}
            covers = [n for n, i in regions_info.items()
                      if i.get("in_loop") and attribution.nested_in(n, region, parents)] or [region]
            r[signal] = S.timeline_from_runs(reports, covers, window, scope.get("warps") or ())
        elif signal in ("sync", "wait"):
            sites = [lab.split(":", 2)[2] for lab in run_items.get(src, [])
                     if lab.startswith(f"sync:{region}:")] if src else []
            r[signal] = _sync(signal, reports, sites, window) if sites else \
                {"missing": "not collected (see unavailable)"}
        elif signal in ("completion", "site-trace", "exposed"):
            r[signal] = _async(signal, region, runs, run_items, window, distance or {})
        elif signal == "hw" and hw is not None:
            r[signal] = _hw(region, hw, inclusive)
        else:
            r[signal] = {"missing": "not collected (see unavailable)"}
    ref = runs.get("reference", [])
    return {"schema": "argus.measure_report/1", "provenance_legend": LEGEND,
            "program_version": binding.get("program_version"), "scope": scope,
            "kernel": {"time": S.kernel_time(ref),
                       "check": (ref[0].get("check") if ref else None)},
            "regions": out_regions, "missing_inputs": missing,
            **({"hw": _hw_summary(hw)} if hw is not None else {})}


def _hw(region: str, hw: dict, inclusive: Dict[str, dict]) -> dict:
    """The region's attributed counters: ``own`` (its innermost ops) and
    ``inclusive`` (with the regions nested in it: attribution.inclusive of
    the whole run)."""
    own = hw["hw"]["regions"].get(region, {})
    incl = inclusive.get(region, {})
    if not own and not incl:
        return {"missing": "no profiled instruction carries a line of this region"}
    return {"own": own, "inclusive": incl}


def _hw_summary(hw: dict) -> dict:
    """Totals of the ncu run (observed) and what no region owns."""
    a = hw["hw"]
    return {"totals": {m: S.field(v, "observed") for m, v in a["totals"].items()},
            "unattributed": {m: S.field(v, "derived") for m, v in a["unattributed"].items()},
            "pcs": hw.get("pcs")}


def _sync(signal, reports, sites, window):
    """``sync``: each site's count and time (the region made for it);
    ``wait``: the time inside the region's sync sites, per iteration."""
    if signal == "sync":
        return {s: S.duration_from_runs(reports, s, window) or
                {"missing": "no records for this site"} for s in sites}
    per_site = S.timeline_from_runs(reports, sites, window)
    total: Dict[int, float] = {}
    for tl in per_site.values():
        for it in tl["per_iteration"]["iterations"]:
            total[it["iteration"]] = total.get(it["iteration"], 0.0) + it["mean"]
    return {"sites": sites, "per_iteration": {"provenance": "derived", "iterations": [
        {"iteration": i, "wait": v} for i, v in sorted(total.items())]}}


def _items(kind, region, run_items):
    """(run, site, iteration or None) of the ``kind`` items of ``region``."""
    out = []
    for rid, labels in run_items.items():
        for lab in labels:
            k, _, rest = lab.partition(":")
            reg, _, site = rest.partition(":")
            if k != kind or reg != region or not site:
                continue
            it = None
            if kind == "completion":
                site, _, n = site.rpartition("@")
                it = int(n)
            out.append((rid, site, it))
    return out


def _async(signal, region, runs, run_items, window, distance):
    """``completion``: latency per (site, iteration) from the runs that forced
    it; ``site-trace``: issue and wait begin per (site, iteration) of the
    reference trace; ``exposed``: the two joined by operation and iteration."""
    comp = _items("completion", region, run_items)
    trace = _items("site-trace", region, run_items)
    probe = S.completion_from_runs(runs, comp)
    ref: Dict = {}
    for rid in sorted({r for r, _, _ in trace}):
        ref.update(S.site_trace_from_runs(runs.get(rid, []), [s for r, s, _ in trace if r == rid],
                                          window, distance))
    if signal == "completion":
        if not comp:
            return {"missing": "not collected (see unavailable)"}
        return {"rows": [{"site": s, "iteration": i, "completion_latency": S.field(v, "derived")}
                         for (s, i), v in sorted(probe.items())],
                "unmatched": [[s, i] for _, s, i in comp if (s, i) not in probe]}
    if signal == "site-trace":
        if not trace:
            return {"missing": "not collected (see unavailable)"}
        return {"rows": [{"site": s, "iteration": i,
                          "issue": S.field(v["issue"], "observed"),
                          "wait_begin": S.field(v["wait_begin"], "observed"),
                          "blocks": v["blocks"]} for (s, i), v in sorted(ref.items())]}
    if not comp or not trace:
        return {"missing": "needs completion and site-trace runs (see unavailable)"}
    return S.join_completion(probe, ref)


def _run_for(region, signal, run_items, in_loop: bool = True):
    """The run that measured ``signal`` of ``region``: of those that probed
    it, the one with the fewest items (a region measured again alone after
    a batched run takes that run). The timeline item of a region outside
    loops probes the loop regions it covers, not the region itself."""
    kinds = {"duration": ("boundary", "timeline") if in_loop else ("boundary",),
             "timeline": ("timeline",), "sync": ("sync",), "wait": ("sync",)}.get(signal, ())
    found = []
    for rid, labels in run_items.items():
        for lab in labels:
            k, _, rest = lab.partition(":")
            if k in kinds and rest.split(":")[0] == region:
                found.append((len(labels), rid))
                break
    return min(found)[1] if found else None


def text_summary(rep: dict) -> str:
    lines = [f"program {rep.get('program_version')}"]
    kt = (rep.get("kernel") or {}).get("time")
    if kt:
        b = kt.get("across_runs") or {}
        lines.append(f"kernel (reference run, unprobed): {kt['value']:.4f} ms "
                     f"[{b.get('min', 0):.4f}..{b.get('p80', 0):.4f}] ({kt['provenance']})")
    for region, sigs in rep.get("regions", {}).items():
        for sig, v in sigs.items():
            if "missing" in v:
                lines.append(f"  {region:12s} {sig:10s} missing: {v['missing']}")
            elif sig == "duration":
                m = v["mean"]
                b = m.get("across_runs") or {}
                lines.append(f"  {region:12s} {sig:10s} mean {m['value']:.1f} {v.get('unit') or ''}"
                             f" [{b.get('min', 0):.1f}..{b.get('p80', 0):.1f}] ({m['provenance']}),"
                             f" {v['intervals']['value']} intervals")
            elif sig == "sync":
                for site, st in v.items():
                    if "missing" in st:
                        lines.append(f"  {region:12s} {sig:10s} {site}: missing: {st['missing']}")
                    else:
                        lines.append(f"  {region:12s} {sig:10s} {site}: mean "
                                     f"{st['mean']['value']:.1f} {st.get('unit') or ''}, "
                                     f"{st['intervals']['value']} visits")
            elif sig == "wait":
                its = v["per_iteration"]["iterations"]
                lines.append(f"  {region:12s} {sig:10s} {len(its)} iterations over "
                             f"{len(v['sites'])} sites"
                             + (f", first {its[0]['wait']:.1f}" if its else ""))
            elif sig in ("completion", "exposed", "site-trace"):
                key = {"completion": "completion_latency", "exposed": "exposed_latency",
                       "site-trace": None}[sig]
                rows = v.get("rows", [])
                vals = [r[key]["value"] for r in rows] if key else []
                lines.append(f"  {region:12s} {sig:10s} {len(rows)} (site, iteration) rows"
                             + (f", mean {sum(vals) / len(vals):.1f}" if vals else ""))
            elif sig == "hw":
                totals = (rep.get("hw") or {}).get("totals", {})
                for key in _HW_HEADLINE:
                    f = v["inclusive"].get(key)
                    if f:
                        total = (totals.get(key) or {}).get("value")
                        share = f" = {100 * f['value'] / total:.1f}% of the kernel" \
                            if total else ""
                        lines.append(f"  {region:12s} {sig:10s} {key}: {f['value']:.0f}{share} "
                                     f"(attributed, entropy {f['entropy']:.2f}, "
                                     f"{f['pcs']} instructions)")
            elif sig == "timeline":
                for name, tl in v.items():
                    its = tl["per_iteration"]["iterations"]
                    lines.append(f"  {region:12s} {sig:10s} {name}: {len(its)} iterations"
                                 + (f", mean of first {its[0]['mean']:.1f}" if its else ""))
    return "\n".join(lines)


#: The counters of ncu's source page the text summary shows.
_HW_HEADLINE = ("Instructions Executed", "Warp Stall Sampling (All Samples)")
