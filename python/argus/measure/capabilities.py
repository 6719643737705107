"""What the compiler can do today: the pass options a recipe needs.

A capability is ``"<pass>:<option>"`` (``"argus-insert-probes:iteration-window"``)
or ``"<facility>"``. ``KNOWN`` lists what argus-opt has (docs/Lowering.md);
``detect(argus_opt)`` reads them from ``argus-opt --help`` instead. A recipe
whose requirement is missing is *unavailable*: the planner keeps its tasks
in the plan, marked unavailable with the missing capability, and never runs
them (nothing is faked).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from typing import FrozenSet, Iterable, Optional

INSERT_PROBES_OPTIONS = ("regions", "signals", "scope-warps", "scope-blocks",
                         "iteration-window", "sync-sites", "completion-site",
                         "completion-iteration", "site-trace", "capacity", "clock")
PIPELINE_OPTIONS = ("probes", "probe-regions", "probe-signals", "probe-scope-warps",
                    "probe-scope-blocks", "probe-iteration-window", "clock", "format", "dump",
                    "toolkit", "ldmatrix", "min-blocks-per-sm", "chip", "lineinfo",
                    "lineinfo-regions")

#: Options a recipe may need that no argus-opt has yet (none today: the
#: planner still marks such recipes unavailable instead of running them).
PENDING: dict = {}

KNOWN: FrozenSet[str] = frozenset(
    [f"argus-insert-probes:{o}" for o in INSERT_PROBES_OPTIONS] +
    [f"argus-to-nvptx:{o}" for o in PIPELINE_OPTIONS] +
    [f"argus-to-gfx942:{o}" for o in PIPELINE_OPTIONS] +
    ["analysis:regions", "analysis:async-sites", "analysis:sync-sites"])


def detect(argus_opt: Optional[str]) -> FrozenSet[str]:
    """Capabilities from ``argus-opt --help`` (the options listed under
    each argus pass), plus the analyses run in process; ``KNOWN`` when the tool is
    missing or fails."""
    if not argus_opt:
        return KNOWN
    try:
        text = subprocess.run([argus_opt, "--help"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return KNOWN
    return frozenset(parse_help(text)) | {c for c in KNOWN if c.startswith("analysis:")}


def parse_help(text: str) -> Iterable[str]:
    """``<pass>:<option>`` for every option indented under an ``--argus-*``
    pass or pipeline in argus-opt's help."""
    current, indent = None, None
    for line in text.splitlines():
        m = re.match(r"^(\s*)--([a-z0-9-]+)", line)
        if not m:
            continue
        ind, name = len(m.group(1)), m.group(2)
        if name.startswith("argus-") and re.search(r"\s-\s{2,}\S", line):
            current, indent = name, ind
            continue
        if current and ind > indent:
            yield f"{current}:{name}"
        elif current and ind <= indent:
            current = None


def toolchain_id(argus_opt: Optional[str]) -> Optional[str]:
    """sha256 (16 hex digits) of the argus-opt binary, found on PATH when
    not a path; None when there is none. The planner binds every task to it,
    so a rebuilt compiler never reuses artifacts of the old one."""
    path = shutil.which(argus_opt) if argus_opt else None
    if not path:
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]
