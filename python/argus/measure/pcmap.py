"""SASS PCs to regions, and ncu's per-PC counters.

Three tables meet here (the ``hw`` signal, docs/Measure.md):

* the line table ``argus-opt --argus-to-nvptx="lineinfo-regions=F"`` writes
  (``argus.line_regions/1``): per source line, its ops counted by the
  innermost measured region ("" outside every region);
* the line of each SASS instruction, from ``nvdisasm --print-line-info`` of
  the cubin that ptxas made with ``-lineinfo`` from the same PTX
  (``//## File "F", line L`` comments before the instructions they cover);
* ncu's source page of that cubin (``--page source --csv --print-source
  sass``): one row per instruction with its address and counters.

``pc_regions`` joins the first two into ``pc -> {region: ops}``, the input
of ``attribution.attribute``. The lowering names each instruction's
innermost region in the file of its line (``F [argus region R]``:
argus-mark-region-locations / argus-region-line-files), so an instruction
of a region is that region's even where its source line has code in
several (a helper called from two regions). An instruction without a
region in its file is matched in the line table, by file name and line
number: to the ops outside every region when the line has some, else (an
op whose location the lowering merged) to all the line's ops, split by
count. The PTX names one file per function (the subprogram's), so lines of
ops from other files are matched by number alone and their counts summed:
a clash then shows as a shared line (entropy above 0), never as a silent
reassignment.
"""

from __future__ import annotations

import csv
import io
import os
import re
from typing import Dict, List, Mapping, Optional, Tuple

from .attribution import OUTSIDE

_FUNC = re.compile(r"^\s*\.text\.(?P<name>[\w.$]+):")
_LINE = re.compile(r'//##\s*File\s+"(?P<file>[^"]*)",\s*line\s+(?P<line>\d+)')
_REGION_FILE = re.compile(r"^(?P<file>.*) \[argus region (?P<region>.*)\]$")
_INST = re.compile(r"/\*(?P<addr>[0-9a-fA-F]{4,})\*/\s+(?P<text>[^;]*;)")


def sass_lines(text: str, function: Optional[str] = None) -> Dict[int, Tuple[str, int]]:
    """``pc -> (file, line)`` of one function's instructions in nvdisasm
    ``--print-line-info`` output (the first function with line info when
    ``function`` is None). An instruction before any line comment, or after a comment of
    line 0, has no line and is left out."""
    out: Dict[int, Tuple[str, int]] = {}
    current: Optional[str] = None
    where: Optional[Tuple[str, int]] = None
    for raw in text.splitlines():
        if raw.lstrip().startswith((".section", "//----")):
            where = None  # a new section: no instruction until the next label
        m = _FUNC.match(raw)
        if m:
            if current is not None and (function is None or current == function) and out:
                break
            current, where = m.group("name"), None
            continue
        if current is None or (function is not None and current != function):
            continue
        m = _LINE.search(raw)
        if m:
            # "inlined at" names the call site after the callee's line: the
            # callee's line is the instruction's own.
            line = int(m.group("line"))
            where = (m.group("file"), line) if line > 0 else None
            continue
        m = _INST.search(raw)
        if m and where is not None:
            out[int(m.group("addr"), 16)] = where
    return out


def _number(s: str) -> Optional[float]:
    s = s.strip().replace(",", "")
    if not s:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def ncu_source_table(text: str) -> Dict[int, Dict[str, float]]:
    """``pc -> {counter: value}`` from ncu's source page CSV with SASS.

    The header is the first row with an ``Address`` column; rows whose
    address is not a number (the kernel name, blank lines) are skipped;
    every other column with numbers is a counter. Addresses are made
    function-relative (the smallest address is the function's first
    instruction, which the page always lists), as nvdisasm's are."""
    rows = list(csv.reader(io.StringIO(text)))
    header, start = None, 0
    for i, r in enumerate(rows):
        names = [c.strip().lstrip("#").strip() for c in r]
        if "Address" in names:
            header, start = names, i + 1
            break
    if header is None:
        raise ValueError("ncu source CSV: no header row with an 'Address' column")
    ai = header.index("Address")
    skip = {i for i, n in enumerate(header) if n in ("Source", "Address", "")}
    table: Dict[int, Dict[str, float]] = {}
    for r in rows[start:]:
        if len(r) <= ai:
            continue
        a = r[ai].strip()
        try:
            pc = int(a, 16) if a.lower().startswith("0x") else int(a)
        except ValueError:
            continue
        metrics = {}
        for i, v in enumerate(r):
            if i in skip or i >= len(header):
                continue
            x = _number(v)
            if x is not None:
                metrics[header[i]] = x
        table[pc] = metrics
    if not table:
        raise ValueError("ncu source CSV: no instruction rows")
    base = min(table)
    return {pc - base: m for pc, m in table.items()}


def pc_regions(pc_line: Mapping[int, Tuple[str, int]],
               line_table: dict) -> Dict[int, Dict[str, float]]:
    """``pc -> {region: ops}`` (``attribution.OUTSIDE`` for ops outside
    every region); PCs whose line the table lacks are left out (they count
    as unattributed)."""
    by_file: Dict[Tuple[str, int], Dict[str, float]] = {}
    by_line: Dict[int, Dict[str, float]] = {}
    for entry in line_table.get("lines", []):
        key = (os.path.basename(entry["file"]), int(entry["line"]))
        for table, k in ((by_file, key), (by_line, key[1])):
            owners = table.setdefault(k, {})
            for region, n in entry["ops"].items():
                r = region or OUTSIDE
                owners[r] = owners.get(r, 0) + n
    out: Dict[int, Dict[str, float]] = {}
    for pc, (f, line) in pc_line.items():
        tagged = _REGION_FILE.match(f)
        if tagged:
            out[pc] = {tagged.group("region"): 1}
            continue
        owners = by_file.get((os.path.basename(f), line)) or by_line.get(line)
        if owners:
            outside = owners.get(OUTSIDE)
            out[pc] = {OUTSIDE: outside} if outside else dict(owners)
    return out


def region_parents(line_table: dict) -> Dict[str, Optional[str]]:
    return {r["name"]: r.get("parent") for r in line_table.get("regions", [])}


def functions(text: str) -> List[str]:
    """The function sections nvdisasm printed, in order."""
    return [m.group("name") for m in map(_FUNC.match, text.splitlines()) if m]
