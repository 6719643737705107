"""The recipe registry: per signal, how to measure it.

A recipe says what evidence a signal yields (each field with its
qualification: observed / attributed / derived), which analyses and other
signals it needs first (``prerequisites``: ``analysis:NAME`` or
``signal:NAME``, added by the planner recursively), whether a discovery
analysis expands it into one probe per target and iteration (``expands``),
what the transformation instruments (``probe_kind``: the ProbeItem kind,
whose argus-opt options come from ``transform.py``), how the run is
collected (``collection``: ``argus-run``, ``ncu`` or None for a purely
derived signal), its effects on other measurements (effects.py) and the
synthesis rule (synthesis.py). ``requires`` lists the compiler capabilities
(capabilities.py) without which the recipe is unavailable.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple


@dataclasses.dataclass(frozen=True)
class Evidence:
    field: str
    qualification: str   # observed | attributed | derived
    meaning: str


@dataclasses.dataclass(frozen=True)
class Recipe:
    signal: str
    evidence: Tuple[Evidence, ...]
    prerequisites: Tuple[str, ...]
    probe_kind: Optional[str]
    collection: Optional[str]
    effects: str
    synthesis: str
    requires: Tuple[str, ...] = ()
    expands: Optional[str] = None     # analysis whose targets expand the recipe

    def missing(self, capabilities) -> List[str]:
        return [c for c in self.requires if c not in capabilities]

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["evidence"] = [dataclasses.asdict(e) for e in self.evidence]
        return d


E = Evidence
_PROBES = ("argus-insert-probes:regions", "argus-insert-probes:signals",
           "argus-to-nvptx:probe-regions", "argus-to-nvptx:probe-signals")

REGISTRY: Dict[str, Recipe] = {r.signal: r for r in [
    Recipe("duration",
           (E("duration", "derived", "begin..end per warp: count, mean, min, max, p50, p90, p99"),
            E("records", "observed", "probe records and drop counters")),
           ("analysis:regions",), "boundary", "argus-run",
           "boundary probes (one pair per warp and launch) batch with each other; a region "
           "inside a loop is measured with per-iteration probes (timeline effects)",
           "region-stats", _PROBES),
    Recipe("timeline",
           (E("per_iteration", "derived", "per-iteration statistics inside the iteration window"),
            E("timelines", "observed", "per-warp intervals [begin, end, iteration]")),
           ("analysis:regions",), "timeline", "argus-run",
           "per-iteration probes perturb neighbouring regions: one region per run",
           "timeline", _PROBES + ("argus-insert-probes:iteration-window",
                                  "argus-insert-probes:scope-warps")),
    Recipe("completion",
           (E("completion_latency", "derived",
              "issue -> forced completion per (site, iteration), from observed timestamps "
              "of one run"),),
           ("analysis:regions", "analysis:async-sites", "signal:site-trace"), "completion",
           "argus-run",
           "a forced wait perturbs overlap for `depth` iterations: probes batch only when "
           "their iterations are further apart; never with other probes",
           "completion-join",
           ("argus-insert-probes:completion-site", "argus-insert-probes:completion-iteration"),
           expands="analysis:async-sites"),
    Recipe("site-trace",
           (E("issue", "observed", "issue timestamp per (site, iteration), reference trace"),
            E("wait", "observed", "wait begin / end per (site, iteration), reference trace")),
           ("analysis:regions", "analysis:async-sites"), "site-trace", "argus-run",
           "light probes at issue and wait sites; alone in its run",
           "site-trace", ("argus-insert-probes:site-trace",), expands="analysis:async-sites"),
    Recipe("exposed",
           (E("exposed_latency", "derived",
              "max(0, completion latency - (wait begin - issue) of the same operation in "
              "the same iteration of the reference trace)"),),
           ("signal:completion", "signal:site-trace"), None, None,
           "none (derived from other evidence)", "exposed"),
    Recipe("wait",
           (E("wait_time", "derived", "time inside the region's wait operations per iteration"),),
           ("analysis:regions", "analysis:sync-sites"), "sync", "argus-run",
           "probes around waits inside the loop: like timeline probes", "sync",
           ("argus-insert-probes:sync-sites",), expands="analysis:sync-sites"),
    Recipe("sync",
           (E("sync_waits", "derived", "count and time of barrier / mbarrier / group waits"),),
           ("analysis:regions", "analysis:sync-sites"), "sync", "argus-run",
           "probes around waits inside the loop: like timeline probes", "sync",
           ("argus-insert-probes:sync-sites",), expands="analysis:sync-sites"),
    Recipe("hw",
           (E("metrics", "attributed",
              "per-instruction ncu source counters attributed to the region by count "
              "weighting, each with the association entropy of its instructions"),),
           ("analysis:regions", "analysis:pc-regions"), "hw", "ncu",
           "ncu replays the unprobed kernel: one ncu run for every region, no probes",
           "attribution", ("argus-to-nvptx:lineinfo-regions",)),
]}

#: Analyses: what they produce (they run on the CPU as transform tasks).
ANALYSES = {
    "analysis:regions": "region structure: name -> id, in_loop, parent, warp role",
    "analysis:async-sites": "asynchronous sites of a region and their completion conditions "
                            "(targets)",
    "analysis:sync-sites": "barrier / mbarrier / group-wait sites of a region (targets)",
    "analysis:pc-regions": "the unprobed kernel's PTX with line info and its line -> "
                           "regions table (ops per region, marker extents); the ncu "
                           "collection maps SASS PCs through it (nvdisasm line info)",
}
ANALYSIS_REQUIRES = {"analysis:pc-regions": ("argus-to-nvptx:lineinfo-regions",)}
