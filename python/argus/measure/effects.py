"""Probe items and the effects that decide which ones may share a run.

A ``ProbeItem`` is one thing instrumented in one run: a region's boundary
probes (``boundary``: a region outside loops, one begin/end pair per warp),
a region's per-iteration probes (``timeline``), one forced completion wait
for one asynchronous site in one iteration (``completion``), the issue/wait
trace of the sites (``site-trace``), probes around a region's waits
(``sync``), or a hardware-counter collection (``hw``: an ncu replay of the
unprobed kernel).

Effects (docs/Measure.md, "Effects"):

* ``timeline`` probes run inside the loop, every iteration: they perturb
  every *other* region of the kernel (the H200 runs of docs/Lowering.md:
  +27% to +96% kernel time with every region probed), so a timeline item
  shares its run with nothing but itself;
* ``boundary`` probes cost one pair per warp and launch (+0.3% to +1.6%):
  they batch with each other. Measured on the H200 (bench/measure/
  RESULTS.md): long regions batched stay within 1% of their isolated
  values, but short ones (under ~1 us per warp) move by up to -37% / +91%
  when any other region is probed: the planner measures the regions a
  batched run found short again alone (``Planner.isolate_below_ns``);
* a ``completion`` item forces a wait right after an issue: it perturbs the
  overlap of everything in flight, i.e. the iterations ``i .. i + depth``
  (``depth`` = pipeline stages) and every region timing. Two completion
  items batch iff their iterations are more than ``depth`` apart (then each
  measured interval starts from an unperturbed pipeline); never with other
  kinds;
* ``sync`` items are probes inside the loop like ``timeline``: they batch
  only with sync items of the same region;
* ``site-trace`` (the reference trace) batches with nothing;
* ``hw`` items are collected by ncu on the unprobed kernel: all of them
  share one ncu run and never a probe run.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence, Tuple

KINDS = ("boundary", "timeline", "completion", "site-trace", "sync", "hw")


@dataclasses.dataclass(frozen=True)
class ProbeItem:
    kind: str
    region: str
    site: Optional[str] = None
    iteration: Optional[int] = None
    covers: Tuple[str, ...] = ()   # the regions actually probed (timeline of an outer region)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown probe kind {self.kind!r}")

    @property
    def key(self) -> Tuple:
        return (self.kind, self.region, self.site or "", -1 if self.iteration is None
                else self.iteration)

    def label(self) -> str:
        s = f"{self.kind}:{self.region}"
        if self.site:
            s += f":{self.site}"
        if self.iteration is not None:
            s += f"@{self.iteration}"
        return s

    def to_json(self) -> dict:
        return {"kind": self.kind, "region": self.region, "site": self.site,
                "iteration": self.iteration}


def conflicts(a: ProbeItem, b: ProbeItem, depth: int = 1) -> Optional[str]:
    """Why ``a`` and ``b`` may not share a run, or None when they may."""
    if a.key == b.key:
        return None
    if a.kind == "hw" or b.kind == "hw":
        return None if a.kind == b.kind else "hw metrics come from an ncu replay of the unprobed kernel"
    if a.kind == "boundary" and b.kind == "boundary":
        return None
    if a.kind == "timeline" or b.kind == "timeline":
        t, o = (a, b) if a.kind == "timeline" else (b, a)
        return f"timeline probes in {t.region} perturb {o.region} (neighbouring regions)"
    if a.kind == "site-trace" or b.kind == "site-trace":
        return "the reference trace must not share a run with other probes"
    if a.kind == "completion" and b.kind == "completion":
        if abs(a.iteration - b.iteration) <= depth:
            return (f"forced wait at iteration {min(a.iteration, b.iteration)} perturbs overlap "
                    f"up to {depth} iterations later")
        return None
    if a.kind == "completion" or b.kind == "completion":
        return "a forced completion wait perturbs overlap and every region timing"
    if a.kind == "sync" and b.kind == "sync":
        return None if a.region == b.region else (
            f"sync probes in {a.region} perturb {b.region}")
    return f"sync probes perturb {b.region if a.kind == 'sync' else a.region}"


def partition(items: Sequence[ProbeItem], depth: int = 1,
              max_batch: int = 8) -> List[List[ProbeItem]]:
    """Greedy first-fit: each item (in order) joins the first run whose
    items are all compatible with it and that holds fewer than
    ``max_batch`` items; else it opens a run. Deterministic."""
    runs: List[List[ProbeItem]] = []
    seen = set()
    for it in items:
        if it.key in seen:
            continue
        seen.add(it.key)
        for run in runs:
            if len(run) < max_batch and all(conflicts(it, o, depth) is None for o in run):
                run.append(it)
                break
        else:
            runs.append([it])
    return runs
