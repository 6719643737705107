"""Attributing per-instruction hardware metrics to regions.

Input: a per-PC table of metric counts (``pc -> {metric: count}``, e.g.
ncu's source page: ``inst_executed``, stall samples) and the association
of each PC with regions (``pc -> {region: instruction count}``: how many of
the region's instructions map to that PC through line info and marker
extents; an inlined helper or shared address arithmetic maps to several).

Count weighting: PC ``p`` gives region ``r`` the share
``w(p, r) = n(p, r) / sum_r' n(p, r')`` of each of its metrics, so the
attributed values of all regions sum to the table's totals (over the PCs
that belong to some region; the rest is reported as unattributed).

Ops outside every region own their share too (``OUTSIDE``): that share is
reported as unattributed, so a PC whose line is half prologue gives a
region half its counts, not all of them.

Association entropy of PC ``p``: ``H(p) = -sum_r w(p, r) log2 w(p, r)``
(0 when one region owns it). An attributed field carries the entropy of its
instructions, averaged with the weight each PC contributed to the field:
``H(r, m) = sum_p w(p,r) m(p) H(p) / sum_p w(p,r) m(p)``. It says how much
of the value rests on shared instructions (ownership ambiguity), not an
error bound.
"""

from __future__ import annotations

import math
from typing import Dict, Mapping, Optional

#: The owner of ops outside every measured region.
OUTSIDE = ""


def weights(pc_regions: Mapping[int, Mapping[str, float]]) -> Dict[int, Dict[str, float]]:
    out = {}
    for pc, owners in pc_regions.items():
        total = float(sum(owners.values()))
        if total <= 0:
            continue
        out[pc] = {r: n / total for r, n in owners.items() if n > 0}
    return out


def entropy(ws: Mapping[str, float]) -> float:
    h = -sum(w * math.log2(w) for w in ws.values() if w > 0)
    return 0.0 if abs(h) < 1e-12 else h


def attribute(pc_metrics: Mapping[int, Mapping[str, float]],
              pc_regions: Mapping[int, Mapping[str, float]]) -> dict:
    """``{"regions": {r: {m: {"value", "provenance": "attributed",
    "entropy", "shared_fraction", "pcs"}}}, "unattributed": {m: v},
    "totals": {m: v}}``."""
    w = weights(pc_regions)
    acc: Dict[str, Dict[str, list]] = {}
    totals: Dict[str, float] = {}
    unattributed: Dict[str, float] = {}
    for pc, metrics in pc_metrics.items():
        for m, v in metrics.items():
            totals[m] = totals.get(m, 0.0) + v
            if pc not in w:
                unattributed[m] = unattributed.get(m, 0.0) + v
                continue
            h = entropy(w[pc])
            for r, share in w[pc].items():
                if r == OUTSIDE:
                    unattributed[m] = unattributed.get(m, 0.0) + share * v
                    continue
                a = acc.setdefault(r, {}).setdefault(m, [0.0, 0.0, 0.0, 0])
                part = share * v
                a[0] += part
                a[1] += part * h
                a[2] += part if len(w[pc]) > 1 else 0.0
                a[3] += 1
    regions = {}
    for r, ms in acc.items():
        regions[r] = {}
        for m, (val, hsum, shared, npcs) in ms.items():
            regions[r][m] = {"value": val, "provenance": "attributed",
                             "entropy": (hsum / val) if val else 0.0,
                             "shared_fraction": (shared / val) if val else 0.0,
                             "pcs": npcs}
    return {"regions": regions, "unattributed": unattributed, "totals": totals}


def inclusive(attributed: dict, parents: Mapping[str, Optional[str]]) -> Dict[str, dict]:
    """Per region, its own attributed values plus those of the regions
    nested in it (``parents``: region -> enclosing region), each with the
    value-weighted entropy and shared fraction of its parts."""
    own = attributed["regions"]
    out: Dict[str, dict] = {}
    for r in set(parents) | set(own):
        parts = [c for c in own if c == r or nested_in(c, r, parents)]
        fields: Dict[str, dict] = {}
        for c in parts:
            for m, f in own[c].items():
                a = fields.setdefault(m, {"value": 0.0, "h": 0.0, "s": 0.0, "pcs": 0})
                a["value"] += f["value"]
                a["h"] += f["entropy"] * f["value"]
                a["s"] += f["shared_fraction"] * f["value"]
                a["pcs"] += f["pcs"]
        out[r] = {m: {"value": a["value"], "provenance": "attributed",
                      "entropy": a["h"] / a["value"] if a["value"] else 0.0,
                      "shared_fraction": a["s"] / a["value"] if a["value"] else 0.0,
                      "pcs": a["pcs"], "regions": sorted(parts)}
                  for m, a in fields.items()}
    return out


def nested_in(name: str, outer: str, parents: Mapping[str, Optional[str]]) -> bool:
    """``name`` lies (at any depth) inside region ``outer``; ``parents``:
    region -> enclosing region (None at the top)."""
    p = parents.get(name)
    seen = set()
    while p is not None and p not in seen:
        if p == outer:
            return True
        seen.add(p)
        p = parents.get(p)
    return False
