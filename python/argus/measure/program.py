"""A program version and the compiler-side analyses the planner needs from it.

``Program`` is one version of an argus kernel: the IR text and its content
hash (the *program version*: every task, artifact and report field is bound
to it). Two analyses read the IR:

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
  ring ``%full[%s]``, completed by ``argus.mbarrier.wait %full[%s], %phase``
  in the selected iteration's phase); and the synchronization sites
  (``argus.barrier``, ``argus.wait_group``, ``argus.wgmma_wait``,
  ``argus.mbarrier.wait``).

These scanners read the printed IR (one op per line, as argus-opt prints it
and as the examples are written). They stand in for the compiler discovery
pass of issue 16 (a C++ analysis with lit tests is a later step); the
planner consumes their results only through ``Target`` lists, so the pass
can replace them without touching the planner.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Dict, List, Optional

_BEGIN = re.compile(r'argus\.region\.begin\s+"([^"]+)"\s+id\s+(\d+)')
_END = re.compile(r'argus\.region\.end\s+id\s+(\d+)')
_ROLE = re.compile(r'argus\.role\s+"([^"]+)"\s+warps\s+(\d+)\s+to\s+(\d+)')
_LOOP = re.compile(r'\b(scf\.for|scf\.while|affine\.for)\b')
_STAGES = re.compile(r'!argus\.buffer<\s*(\d+)\s*x')


def _strip_comment(line: str) -> str:
    i = line.find("//")
    return line if i < 0 else line[:i]


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

    @classmethod
    def load(cls, path: str) -> "Program":
        with open(path) as f:
            return cls(f.read(), path)

    def regions(self) -> Dict[str, RegionInfo]:
        return scan_regions(self.text)

    def pipeline_depth(self) -> int:
        """Stages of the deepest multi-stage shared buffer (``!argus.buffer<N
        x ...>``), at least 1: how many iterations an asynchronous copy may
        stay in flight, i.e. how far a forced wait perturbs later overlap."""
        found = [int(m.group(1)) for m in _STAGES.finditer(self.text)]
        return max(found + [1])


def scan_regions(text: str) -> Dict[str, RegionInfo]:
    """Region structure of every kernel in ``text`` (see module docstring).
    Raises ValueError on a name bound to two IDs or an unbalanced marker."""
    out: Dict[str, RegionInfo] = {}
    stack: List[tuple] = []    # open scopes: ("loop"|"role"|"other", depth, info)
    region_stack: List[RegionInfo] = []
    depth = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        m = _BEGIN.search(line)
        if m:
            name, rid = m.group(1), int(m.group(2))
            in_loop = any(s[0] == "loop" for s in stack)
            role = next((s[2] for s in reversed(stack) if s[0] == "role"), None)
            prev = out.get(name)
            if prev is not None and prev.id != rid:
                raise ValueError(f"region {name!r} has two IDs ({prev.id}, {rid})")
            info = RegionInfo(name, rid, in_loop,
                              region_stack[-1].name if region_stack else None,
                              role[0] if role else None, list(role[1]) if role else None,
                              n, -1)
            out[name] = info
            region_stack.append(info)
        m = _END.search(line)
        if m:
            rid = int(m.group(1))
            if not region_stack or region_stack[-1].id != rid:
                raise ValueError(f"line {n}: region.end id {rid} does not close the open region")
            region_stack.pop().line_end = n
        opens, closes = line.count("{"), line.count("}")
        # Closing braces first when a line starts with '}' ("} else {").
        lead = len(line) - len(line.lstrip())
        if line[lead:lead + 1] == "}":
            for _ in range(closes):
                depth -= 1
                while stack and stack[-1][1] > depth:
                    stack.pop()
            closes = 0
        kind, info = "other", None
        if _LOOP.search(line):
            kind = "loop"
        rm = _ROLE.search(line)
        if rm:
            kind, info = "role", (rm.group(1), (int(rm.group(2)), int(rm.group(3))))
        for i in range(opens):
            depth += 1
            stack.append((kind if i == 0 else "other", depth, info))
        for _ in range(closes):
            depth -= 1
            while stack and stack[-1][1] > depth:
                stack.pop()
    if region_stack:
        raise ValueError(f"region {region_stack[-1].name!r} is never closed")
    return out


_ASYNC_ISSUE = {
    "argus.copy_async": "cp.async-group",
    "argus.mma_async": "wgmma-group",
    "argus.tma_load": "tma",
}
_SYNC = ("argus.mbarrier.wait", "argus.wgmma_wait", "argus.wait_group", "argus.barrier")
_OPNAME = re.compile(r'(argus\.[a-z_.]+)')
_MBAR = re.compile(r'(%[A-Za-z0-9_]+)\[(%[A-Za-z0-9_]+)\]\s*:')


def _ops_in_region(text: str, region: RegionInfo) -> List[tuple]:
    lines = text.splitlines()
    out = []
    for n in range(region.line_begin, min(region.line_end - 1, len(lines))):
        line = _strip_comment(lines[n])
        m = _OPNAME.search(line)
        if m:
            out.append((n + 1, m.group(1), line.strip()))
    return out


def discover_async_sites(text: str, region: str) -> List[Target]:
    """The asynchronous sites issued in ``region`` (nested regions
    included) and their completion conditions. A cp.async group is the run
    of ``copy_async`` up to its ``commit_group`` (one site per group); a
    wgmma group likewise up to ``wgmma_commit``; each ``tma_load`` is a site
    on its mbarrier. The completion condition is the next wait of the
    matching kind in program order (wrapping around the loop body), or, for
    TMA, an ``mbarrier.wait`` on the same barrier ring."""
    regions = scan_regions(text)
    if region not in regions:
        raise KeyError(region)
    info = regions[region]
    ops = _ops_in_region(text, info)
    all_ops = _ops_in_region(text, RegionInfo("<all>", 0, False, None, None, None, 0,
                                              len(text.splitlines()) + 2))
    sites: List[Target] = []
    counters: Dict[str, int] = {}

    def next_wait(after_line: int, names, barrier: Optional[str] = None) -> str:
        # Inside a loop: the rest of the body, then the body from its start
        # (the next iteration); then program order after the loop.
        lo, hi = _loop_extent(text, after_line)
        ordered = ([o for o in all_ops if after_line < o[0] < hi] +
                   [o for o in all_ops if lo < o[0] <= after_line] +
                   [o for o in all_ops if o[0] >= hi])
        for ln, name, src in ordered:
            if name in names and (barrier is None or f"{barrier}[" in src):
                body = src.split(":")[0].strip()
                return f"{body} (line {ln})"
        return "none found (kernel end)"

    pending: Optional[tuple] = None
    for ln, name, src in ops:
        kind = _ASYNC_ISSUE.get(name)
        if kind == "cp.async-group" or kind == "wgmma-group":
            if pending is None:
                pending = (ln, name, kind)
            continue
        if name in ("argus.commit_group", "argus.wgmma_commit") and pending is not None:
            ln0, op0, kind0 = pending
            waits = ("argus.wait_group",) if kind0 == "cp.async-group" else ("argus.wgmma_wait",)
            i = counters.get(kind0, 0)
            counters[kind0] = i + 1
            sites.append(Target(f"{kind0}@{region}#{i}", kind0, region, ln0, op0,
                                next_wait(ln, waits), info.in_loop or _in_loop_line(text, ln0)))
            pending = None
            continue
        if kind == "tma":
            m = _MBAR.search(src)
            bar = m.group(1) if m else None
            i = counters.get(kind, 0)
            counters[kind] = i + 1
            cond = next_wait(ln, ("argus.mbarrier.wait",), bar)
            sites.append(Target(f"tma@{region}#{i}", kind, region, ln, name,
                                cond + " at the selected iteration's phase",
                                info.in_loop or _in_loop_line(text, ln)))
    return sites


def discover_sync_sites(text: str, region: str) -> List[Target]:
    """Barrier and wait sites in ``region`` (what the ``wait`` and ``sync``
    signals would time)."""
    regions = scan_regions(text)
    info = regions[region]
    sites, counters = [], {}
    for ln, name, src in _ops_in_region(text, info):
        if name in _SYNC:
            kind = name[len("argus."):]
            i = counters.get(kind, 0)
            counters[kind] = i + 1
            sites.append(Target(f"{kind}@{region}#{i}", kind, region, ln, name,
                                "returns when its condition holds",
                                info.in_loop or _in_loop_line(text, ln)))
    return sites


def _loop_extent(text: str, line_no: int) -> tuple:
    """(first line, last line) of the innermost loop around ``line_no``, or
    (line_no, line_no + 1) when it is in none."""
    stack = []   # (is_loop, start line)
    found = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        loop = bool(_LOOP.search(line))
        closes, opens = line.count("}"), line.count("{")
        pops = []
        if line.lstrip().startswith("}"):
            pops += [stack.pop() for _ in range(min(closes, len(stack)))]
            closes = 0
        for i in range(opens):
            stack.append((loop and i == 0, n))
        pops += [stack.pop() for _ in range(min(closes, len(stack)))]
        if found is not None:
            for p in pops:
                if p == found:
                    return found[1], n
        if n == line_no:
            loops = [e for e in stack if e[0]]
            if not loops:
                return line_no, line_no + 1
            found = loops[-1]
    return line_no, line_no + 1


def _in_loop_line(text: str, line_no: int) -> bool:
    """Whether line ``line_no`` lies inside a loop body."""
    depth, stack = 0, []
    for n, raw in enumerate(text.splitlines(), 1):
        if n == line_no:
            return any(stack)
        line = _strip_comment(raw)
        loop = bool(_LOOP.search(line))
        lead = line.lstrip()
        closes = line.count("}")
        opens = line.count("{")
        if lead.startswith("}"):
            for _ in range(closes):
                if stack:
                    stack.pop()
            closes = 0
        for i in range(opens):
            stack.append(loop and i == 0)
        for _ in range(closes):
            if stack:
                stack.pop()
    return False
