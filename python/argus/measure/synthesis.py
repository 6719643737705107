"""Synthesis: region statistics joined across the partitioned runs.

Rules (docs/Measure.md, "Synthesis"):

* a region's statistics come from the run that probed it (never from a run
  where other probes perturbed it: the partition guarantees one exists);
  each field is qualified: ``observed`` (read from the device), ``derived``
  (computed from observed values), ``attributed`` (apportioned, see
  attribution.py);
* repeated runs give a band per statistic: mean, min, p80 and the values
  (``across_runs``);
* the scope is applied to the records: per-iteration statistics inside the
  iteration window, timelines of the scope's warps;
* a completion interval is joined to the *same operation in the same
  iteration* of the reference trace, by the key (site, iteration); only
  durations measured within one run are combined: timestamps of different
  runs are never compared;
* exposed latency = max(0, completion latency - (wait begin - issue)) of
  that operation and iteration: the part of the latency the work between
  issue and wait did not hide.
"""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Optional, Sequence, Tuple


def percentile(xs: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (as argus-run)."""
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of no values")
    h = q * (len(s) - 1)
    lo = int(math.floor(h))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def band(values: Iterable[float]) -> Optional[dict]:
    v = [float(x) for x in values if x is not None]
    if not v:
        return None
    return {"mean": sum(v) / len(v), "min": min(v), "p80": percentile(v, 0.8),
            "max": max(v), "n": len(v), "values": v}


def field(value, provenance: str, **extra) -> dict:
    d = {"value": value, "provenance": provenance}
    d.update(extra)
    return d


def _value(x):
    return x.get("value") if isinstance(x, dict) else x


def region_from_report(run_report: dict, name: str) -> Optional[dict]:
    probes = (run_report or {}).get("probes") or {}
    for r in probes.get("regions", []):
        if r.get("name") == name:
            return r
    return None


def window_stats(per_iteration: List[dict], window: Optional[Sequence[int]]) -> List[dict]:
    if not window:
        return list(per_iteration)
    lo, hi = window
    return [it for it in per_iteration
            if it.get("iteration") is not None and lo <= it["iteration"] < hi]


def duration_from_runs(reports: List[dict], region: str,
                       window: Optional[Sequence[int]] = None) -> Optional[dict]:
    """Region duration over repeated runs of the run that probed it."""
    means, p50s, counts, mins, maxs = [], [], [], [], []
    for rep in reports:
        r = region_from_report(rep, region)
        if r is None:
            continue
        per_it = (r.get("per_iteration") or {}).get("iterations") or []
        # A region outside loops has one entry without an iteration number:
        # the window does not apply to it.
        if window and any(it.get("iteration") is not None for it in per_it):
            its = window_stats(per_it, window)
            n = sum(it["count"] for it in its)
            if not n:
                continue
            means.append(sum(it["mean"] * it["count"] for it in its) / n)
            counts.append(n)
            mins.append(min(it["min"] for it in its))
            maxs.append(max(it["max"] for it in its))
        else:
            means.append(_value(r.get("mean")))
            p50s.append(_value(r.get("p50")))
            counts.append(_value(r.get("count")))
            mins.append(_value(r.get("min")))
            maxs.append(_value(r.get("max")))
    if not means:
        return None
    unit = next((region_from_report(x, region) or {}).get("unit") for x in reports)
    out = {"unit": unit, "runs": len(means),
           "mean": field(sum(means) / len(means), "derived", across_runs=band(means)),
           "min": field(min(mins), "derived"), "max": field(max(maxs), "derived"),
           "intervals": field(sum(counts), "derived")}
    if p50s:
        out["p50"] = field(sum(p50s) / len(p50s), "derived", across_runs=band(p50s))
    return out


def timeline_from_runs(reports: List[dict], regions: Sequence[str],
                       window: Optional[Sequence[int]], warps: Sequence[int] = ()) -> dict:
    out = {}
    for name in regions:
        per_it: Dict[int, List[float]] = {}
        warps_out = []
        for rep in reports:
            r = region_from_report(rep, name)
            if r is None:
                continue
            for it in window_stats((r.get("per_iteration") or {}).get("iterations", []), window):
                per_it.setdefault(it["iteration"], []).append(it["mean"])
            if not warps_out:
                for w in (r.get("timelines") or {}).get("warps", []):
                    if warps and w.get("warp") not in warps:
                        continue
                    iv = [x for x in w.get("intervals", [])
                          if not window or (x[2] is not None and window[0] <= x[2] < window[1])]
                    warps_out.append({"block": w.get("block"), "warp": w.get("warp"),
                                      "intervals": iv})
        out[name] = {"per_iteration": {"provenance": "derived", "iterations": [
            {"iteration": i, "mean": sum(v) / len(v), "across_runs": band(v)}
            for i, v in sorted(per_it.items())]},
            "timelines": {"provenance": "observed", "warps": warps_out}}
    return out


def completion_from_runs(runs: Dict[str, List[dict]],
                         items: Iterable[Tuple[str, str, int]]) -> Dict[Tuple[str, int], float]:
    """Completion latency per (site, iteration): the mean duration of region
    ``completion:<site>`` at that iteration in the run (``items``: run, site,
    iteration) that forced it, over its repeats."""
    out = {}
    for run, site, it in items:
        vals = []
        for rep in runs.get(run, []):
            r = region_from_report(rep, f"completion:{site}")
            for x in ((r or {}).get("per_iteration") or {}).get("iterations", []):
                if x.get("iteration") == it:
                    vals.append(x["mean"])
        if vals:
            out[(site, it)] = sum(vals) / len(vals)
    return out


def site_trace_from_runs(reports: List[dict], sites: Sequence[str],
                         window: Optional[Sequence[int]] = None,
                         distance: Optional[Dict[str, Optional[int]]] = None
                         ) -> Dict[Tuple[str, int], dict]:
    """The reference trace per (site, iteration of the issue): when the issue
    began (region ``issue:<site>``) and when the wait for that operation
    began (``wait:<site>`` in iteration + ``distance[site]``: a wait at the
    top of the loop completes the previous iteration's group), both from one
    run. Per block, the first warp's begin of each; blocks that recorded
    both are averaged (so ``wait_begin - issue`` is the mean of the
    per-block differences). A site whose distance is unknown (None; its wait
    lies outside the issue's loop) is left out."""
    distance = distance or {}
    acc: Dict[Tuple[str, int], List[Tuple[float, float]]] = {}
    for rep in reports:
        for site in sites:
            d = distance.get(site, 0)
            if d is None:
                continue
            first = {}
            for kind, shift in (("issue", 0), ("wait", d)):
                r = region_from_report(rep, f"{kind}:{site}")
                for w in ((r or {}).get("timelines") or {}).get("warps", []):
                    for b, _, it in w.get("intervals", []):
                        if it is None or (window and not
                                          window[0] + shift <= it < window[1] + shift):
                            continue
                        k = (kind, w.get("block"), it)
                        first[k] = min(first.get(k, b), b)
            for (kind, blk, it), b in first.items():
                if kind == "issue" and ("wait", blk, it + d) in first:
                    acc.setdefault((site, it), []).append((b, first[("wait", blk, it + d)]))
    return {k: {"issue": sum(p[0] for p in v) / len(v),
                "wait_begin": sum(p[1] for p in v) / len(v), "blocks": len(v)}
            for k, v in acc.items()}


def join_completion(probe: Dict[Tuple[str, int], float],
                    reference: Dict[Tuple[str, int], dict]) -> dict:
    """Join completion latencies (probe runs, keyed by (site, iteration))
    to the reference trace's issue and wait of the same operation in the
    same iteration. Returns joined rows, and the keys left unmatched."""
    rows, unmatched = [], []
    for key in sorted(probe):
        lat = probe[key]
        ref = reference.get(key)
        if ref is None:
            unmatched.append(list(key))
            continue
        slack = ref["wait_begin"] - ref["issue"]   # both from the reference run
        rows.append({"site": key[0], "iteration": key[1],
                     "completion_latency": field(lat, "derived"),
                     "overlap": field(slack, "derived"),
                     "exposed_latency": field(max(0.0, lat - slack), "derived")})
    return {"rows": rows, "unmatched": unmatched}


def kernel_time(reports: List[dict]) -> Optional[dict]:
    # argus-run reports wrap the median ({"value", "provenance"})
    med = [_value(((r or {}).get("timing") or {}).get("median")) for r in reports]
    med = [m for m in med if m is not None]
    if not med:
        return None
    return field(sum(med) / len(med), "derived", unit="ms", across_runs=band(med))
