"""A measurement report as a trace for Perfetto (ui.perfetto.dev) or
chrome://tracing: the trace-event JSON format, one process per block and one
thread (lane) per warp, named by its warp role.

* every per-iteration interval of the report's ``timeline`` signals is a
  complete event (``ph: X``) named after its region, with the iteration;
* the reference trace's issue and wait of each asynchronous site
  (``site-trace``) are instant events on a "sites" lane of a "derived"
  process, at the mean times over blocks;
* each completion interval (``completion`` / ``exposed``: measured in a
  forced-wait run) is drawn from the reference trace's issue of the *same
  operation in the same iteration*, with its overlap and exposed latency as
  arguments; it is derived, never a timestamp of another run.

Times in the report are in the clock's unit (ns for globaltimer) relative
to the run's first record; the trace's are microseconds.
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional

_DERIVED_PID = 1_000_000  # a process id no block uses


def _us(t) -> float:
    return float(t) / 1000.0


def to_trace(report: dict, roles: Optional[Dict[int, str]] = None) -> dict:
    """The trace of ``report`` (argus.measure_report/1); ``roles`` names the
    warp role of each warp index in the block."""
    roles = roles or {}
    events: List[dict] = []
    lanes = set()
    for region, sigs in (report.get("regions") or {}).items():
        for name, tl in (sigs.get("timeline") or {}).items():
            if not isinstance(tl, dict):
                continue
            for w in (tl.get("timelines") or {}).get("warps", []):
                blk, warp = w.get("block", 0), w.get("warp", 0)
                lanes.add((blk, warp))
                for b, e, it in w.get("intervals", []):
                    events.append({"name": name, "cat": "region", "ph": "X", "ts": _us(b),
                                   "dur": _us(e - b), "pid": blk, "tid": warp,
                                   "args": {"iteration": it, "region": region}})
        issue = {}
        for r in (sigs.get("site-trace") or {}).get("rows", []):
            key = (r["site"], r["iteration"])
            issue[key] = r["issue"]["value"]
            for what in ("issue", "wait_begin"):
                events.append({"name": f"{what} {r['site']}", "cat": "site-trace", "ph": "i",
                               "s": "t", "ts": _us(r[what]["value"]), "pid": _DERIVED_PID,
                               "tid": 0, "args": {"iteration": r["iteration"],
                                                  "blocks": r.get("blocks")}})
        rows = (sigs.get("exposed") or {}).get("rows") or \
            (sigs.get("completion") or {}).get("rows") or []
        for r in rows:
            start = issue.get((r["site"], r["iteration"]))
            if start is None:
                continue  # no reference trace to draw it on
            args = {"iteration": r["iteration"]}
            for k in ("completion_latency", "overlap", "exposed_latency"):
                if k in r:
                    args[k] = r[k]["value"]
            events.append({"name": f"completion {r['site']}", "cat": "completion", "ph": "X",
                           "ts": _us(start), "dur": _us(r["completion_latency"]["value"]),
                           "pid": _DERIVED_PID, "tid": 1, "args": args})
    meta = []
    for blk in sorted({b for b, _ in lanes}):
        meta.append({"name": "process_name", "ph": "M", "pid": blk,
                     "args": {"name": f"block {blk}"}})
    for blk, warp in sorted(lanes):
        role = roles.get(warp)
        meta.append({"name": "thread_name", "ph": "M", "pid": blk, "tid": warp,
                     "args": {"name": f"warp {warp}" + (f" ({role})" if role else "")}})
    if any(e["pid"] == _DERIVED_PID for e in events):
        meta.append({"name": "process_name", "ph": "M", "pid": _DERIVED_PID,
                     "args": {"name": "derived: reference trace and completion joins"}})
        for tid, n in ((0, "sites (reference trace)"), (1, "completion (forced-wait runs)")):
            meta.append({"name": "thread_name", "ph": "M", "pid": _DERIVED_PID, "tid": tid,
                         "args": {"name": n}})
    return {"traceEvents": meta + events, "displayTimeUnit": "ns",
            "otherData": {"program_version": report.get("program_version"),
                          "schema": report.get("schema")}}


def warp_roles(regions) -> Dict[int, str]:
    """Warp index -> role name, from Program.regions() (each region's role and
    its warps)."""
    out: Dict[int, str] = {}
    for info in regions.values():
        if getattr(info, "role", None) and getattr(info, "role_warps", None):
            for w in range(*info.role_warps):
                out[w] = info.role
    return out


def write(report: dict, path: str, roles: Optional[Dict[int, str]] = None) -> None:
    with open(path, "w") as f:
        json.dump(to_trace(report, roles), f)
