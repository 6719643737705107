"""Region queries: region x signal x scope.

A client names regions (by name: the ID follows the name across program
variants), signals and a scope. It never lists operations, completion
conditions, iterations or runs: the planner derives those.

    Query(program="k.mlir", regions=["mainloop", "wait"],
          signals=["timeline", "duration", "completion", "hw"],
          scope=Scope(iterations=(0, 16), roles=["consumer"]), repeats=3)
"""

from __future__ import annotations

import dataclasses
import re
from typing import List, Optional, Sequence, Tuple

#: The signals a query may ask for (docs/Measure.md, "Signals").
SIGNALS = {
    "duration": "region duration (begin..end per warp), statistics over warps",
    "timeline": "per-iteration timeline of a region inside a loop",
    "wait": "time spent in the region's wait operations",
    "sync": "synchronization activity: barrier and mbarrier waits in the region",
    "completion": "completion latency of the asynchronous sites issued in the region",
    "exposed": "exposed latency: the part of a completion latency not hidden by the "
               "work between issue and wait in the reference run",
    "hw": "per-instruction hardware metrics attributed to the region",
}


# Bounds of a scope: a block has at most 1024 threads, 32 warps of 32 lanes
# (argus-measure also checks the program's own block); a scope lists blocks
# one by one, at most this many.
MAX_WARPS_PER_BLOCK = 32
MAX_SCOPE_BLOCKS = 1 << 16


@dataclasses.dataclass(frozen=True)
class Scope:
    """Which dynamic executions of a region count. Empty means all.
    ``roles`` are warp-role names (``argus.role``), ``warps`` warp indices
    in the block, ``blocks`` linear block indices, ``iterations`` a window
    ``(lo, hi)`` of the innermost loop's normalised iteration, lo <= i < hi."""
    roles: Tuple[str, ...] = ()
    warps: Tuple[int, ...] = ()
    blocks: Tuple[int, ...] = ()
    iterations: Optional[Tuple[int, int]] = None

    def __post_init__(self):
        object.__setattr__(self, "roles", tuple(self.roles))
        object.__setattr__(self, "warps", tuple(sorted(set(int(w) for w in self.warps))))
        object.__setattr__(self, "blocks", tuple(sorted(set(int(b) for b in self.blocks))))
        if self.iterations is not None:
            lo, hi = (int(x) for x in self.iterations)
            if lo < 0 or hi < lo:
                raise ValueError(f"iteration window must be lo:hi with 0 <= lo <= hi, got {lo}:{hi}")
            object.__setattr__(self, "iterations", (lo, hi))
        if any(w < 0 for w in self.warps) or any(b < 0 for b in self.blocks):
            raise ValueError("warp and block indices are non-negative")

    def to_json(self) -> dict:
        return {"roles": list(self.roles), "warps": list(self.warps),
                "blocks": list(self.blocks),
                "iterations": list(self.iterations) if self.iterations else None}

    @classmethod
    def parse(cls, roles: str = "", warps: str = "", blocks: str = "",
              iterations: str = "") -> "Scope":
        """From CLI strings: ``roles="consumer"``, ``warps="0,4-7"``,
        ``iterations="0:16"``."""
        def ints(s, option, what, limit):
            out = []
            for part in filter(None, (p.strip() for p in s.split(","))):
                m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
                if not m:
                    raise ValueError(f"{option}: {part!r} is not a {what} index or range "
                                     f"(non-negative integers, ranges as 4-7, joined by "
                                     f"commas: {option} 0,4-7)")
                a = int(m.group(1))
                b = int(m.group(2)) if m.group(2) is not None else a
                if b < a:
                    raise ValueError(f"{option}: the range {part!r} ends before it starts")
                if b >= limit:
                    raise ValueError(f"{option}: {what} {b} is beyond the most a launch "
                                     f"has ({what} indices are below {limit})")
                out.extend(range(a, b + 1))
            return out
        it = None
        if iterations:
            m = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", iterations)
            if not m:
                raise ValueError(f"--iterations: {iterations!r} is not a window lo:hi of "
                                 "non-negative integers (--iterations 0:16)")
            it = (int(m.group(1)), int(m.group(2)))
        return cls(tuple(r for r in roles.split(",") if r),
                   tuple(ints(warps, "--warps", "warp", MAX_WARPS_PER_BLOCK)),
                   tuple(ints(blocks, "--blocks", "block", MAX_SCOPE_BLOCKS)), it)


@dataclasses.dataclass
class Query:
    """What the client wants: ``asks`` is a list of (region, signal) pairs
    (or give ``regions`` and ``signals`` for their product). ``program`` is
    the kernel's IR file; ``launch`` an argus-run spec template for it
    (grid, block, args, check: docs/Runtime.md) that the planner completes
    per run; ``repeats`` how many times each collection is repeated
    (statistics across runs)."""
    program: str
    regions: Sequence[str] = ()
    signals: Sequence[str] = ()
    scope: Scope = dataclasses.field(default_factory=Scope)
    launch: Optional[dict] = None
    repeats: int = 1
    target: str = "nvptx"
    asks: Sequence[Tuple[str, str]] = ()

    def __post_init__(self):
        asks = [tuple(a) for a in self.asks]
        asks += [(r, s) for r in self.regions for s in self.signals]
        seen, self.asks = set(), []
        for a in asks:
            if a not in seen:
                seen.add(a)
                self.asks.append(a)
        self.regions = list(dict.fromkeys(r for r, _ in self.asks))
        self.signals = list(dict.fromkeys(s for _, s in self.asks))
        if not self.asks:
            raise ValueError("a query asks for at least one region and signal")
        unknown = [s for s in self.signals if s not in SIGNALS]
        if unknown:
            raise ValueError(f"unknown signal(s) {', '.join(unknown)}: expected "
                             f"{', '.join(SIGNALS)}")
        if self.repeats < 1:
            raise ValueError("repeats must be >= 1")
        if self.target not in ("nvptx", "gfx942"):
            raise ValueError(f"unknown target {self.target!r}: nvptx or gfx942")

    def to_json(self) -> dict:
        return {"program": self.program, "asks": [list(a) for a in self.asks],
                "scope": self.scope.to_json(), "repeats": self.repeats,
                "target": self.target}


def parse_ask(text: str) -> Tuple[str, str]:
    """``"mainloop:timeline"`` -> ("mainloop", "timeline")."""
    region, sep, signal = text.rpartition(":")
    if not sep or not region or not signal:
        raise ValueError(f"expected REGION:SIGNAL, got {text!r}")
    return region, signal
