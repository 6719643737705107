"""A program version and the compiler-side analyses the planner needs from it.

``Program`` is one version of an argus kernel: the IR text and its content
hash (the *program version*: every task, artifact and report field is bound
to it). What the planner needs to know of it comes from the compiler's
analysis (``MeasurementSites`` in lib/Analysis, ``--argus-print-sites``),
run in process on the parsed module:

* ``scan_regions`` — region structure: name -> ID (the ID follows the name:
  ``argus.region.begin "mainloop" id 2``), whether the region lies inside a
  loop (``argus-insert-probes`` probes such regions with the ``timeline``
  signal only), its enclosing region and warp role (``argus.role "producer"
  warps 0 to 4``).
* ``discover_async_sites`` — the asynchronous sites issued in a region and
  their completion conditions: ``cp.async`` groups (``argus.copy_async`` ...
  ``argus.commit_group``, completed by ``argus.wait_group N``), wgmma groups
  (``argus.mma_async`` ... ``argus.wgmma_commit``, completed by
  ``argus.wgmma_wait N``) and TMA copies (``argus.tma_load`` on an mbarrier
  ring, completed by an ``argus.mbarrier.wait`` on the same ring in the
  selected iteration's phase); and the synchronization sites
  (``argus.barrier``, ``argus.wait_group``, ``argus.wgmma_wait``,
  ``argus.mbarrier.wait``).

The planner consumes them only through ``RegionInfo`` and ``Target`` lists.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Dict, List, Optional

from .. import ir as _ir
from ..errors import MLIRError


@dataclasses.dataclass
class RegionInfo:
    name: str
    id: int
    in_loop: bool
    parent: Optional[str]
    role: Optional[str]
    role_warps: Optional[List[int]]   # [lo, hi) warps of the role
    line_begin: int
    line_end: int

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Target:
    """One discovered site: ``site`` is a stable name (``kind@region#n``,
    the n-th site of that kind in the region, in program order),
    ``completion`` the condition that completes it."""
    site: str
    kind: str          # cp.async-group | wgmma-group | tma | barrier | wait_group | wgmma_wait | mbarrier.wait
    region: str
    line: int
    op: str
    completion: str    # e.g. "wait_group 0", "wgmma_wait 1", "mbarrier.wait %full[%s] phase (i/4)%2"
    in_loop: bool

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class Program:
    """One program version: IR text, its path (if any) and its content hash."""

    def __init__(self, text: str, path: Optional[str] = None):
        self.text = text
        self.path = path
        self.version = hashlib.sha256(text.encode()).hexdigest()[:16]
        self._sites: Optional[dict] = None

    @classmethod
    def load(cls, path: str) -> "Program":
        with open(path) as f:
            return cls(f.read(), path)

    def sites(self) -> dict:
        """The compiler's analysis of this version (``--argus-print-sites``'s
        JSON). Raises ValueError when the IR does not parse or its region
        markers are inconsistent."""
        if self._sites is None:
            self._sites = _analyse(self.text, self.path or "<program>")
        return self._sites

    def regions(self) -> Dict[str, RegionInfo]:
        return _regions(self.sites())

    def async_sites(self, region: str) -> List[Target]:
        """See :func:`discover_async_sites`."""
        return _targets(self.sites(), "async_sites", region, sync=False)

    def sync_sites(self, region: str) -> List[Target]:
        """See :func:`discover_sync_sites`."""
        return _targets(self.sites(), "sync_sites", region, sync=True)

    def pipeline_depth(self) -> int:
        """Stages of the deepest multi-stage shared buffer, at least 1: how
        many iterations an asynchronous copy may stay in flight, i.e. how far
        a forced wait perturbs later overlap."""
        return int(self.sites()["pipeline_depth"])


def _analyse(text: str, source_name: str) -> dict:
    try:
        return _ir.parse(text, source_name).measurement_sites()
    except MLIRError as e:
        raise ValueError(str(e)) from None


def _regions(sites: dict) -> Dict[str, RegionInfo]:
    out: Dict[str, RegionInfo] = {}
    for r in sites["regions"]:
        end = r["end"]
        out[r["name"]] = RegionInfo(r["name"], r["id"], r["in_loop"], r["parent"], r["role"],
                                    list(r["role_warps"]) if r["role_warps"] else None,
                                    r["begin"]["line"], end["line"] if end else -1)
    return out


def scan_regions(text: str) -> Dict[str, RegionInfo]:
    """Region structure of every kernel in ``text`` (see module docstring).
    Raises ValueError on a name bound to two IDs or an unbalanced marker."""
    return _regions(_analyse(text, "<program>"))


def _targets(sites: dict, table: str, region: str, sync: bool) -> List[Target]:
    if region not in sites[table]:
        raise KeyError(region)
    out = []
    for t in sites[table][region]:
        c = t["completion"]
        if sync:
            cond = "returns when its condition holds"
        elif c is None:
            cond = "none found (kernel end)"
        else:
            cond = f"{c['op']} (line {c['line']})"
            if t["kind"] == "tma":
                cond += " at the selected iteration's phase"
        out.append(Target(t["site"], t["kind"], region, t["at"]["line"], t["at"]["op"], cond,
                          t["in_loop"]))
    return out


def discover_async_sites(text: str, region: str) -> List[Target]:
    """The asynchronous sites issued in ``region`` (nested regions
    included) and their completion conditions. A cp.async group is the run
    of ``copy_async`` up to its ``commit_group`` (one site per group); a
    wgmma group likewise up to ``wgmma_commit``; each ``tma_load`` is a site
    on its mbarrier. The completion condition is the next wait of the
    matching kind in program order (wrapping around the loop body), or, for
    TMA, an ``mbarrier.wait`` on the same barrier ring."""
    return _targets(_analyse(text, "<program>"), "async_sites", region, sync=False)


def discover_sync_sites(text: str, region: str) -> List[Target]:
    """Barrier and wait sites in ``region`` (what the ``wait`` and ``sync``
    signals would time)."""
    return _targets(_analyse(text, "<program>"), "sync_sites", region, sync=True)
