"""Transformations: the argus-opt command lines of a run.

A probed run is two argus-opt calls:

1. instrument: ``argus-opt IN.mlir --argus-insert-probes="regions=a,b
   signals=timeline scope-warps=4,5 iteration-window=0:16 capacity=N
   clock=globaltimer" -o probed.mlir`` (the options of docs/Lowering.md;
   list options are comma-separated, as MLIR pass options are). The
   probed IR (``argus_probes`` on the kernel) is an artifact.
2. lower: ``argus-opt probed.mlir --argus-to-nvptx="probes=1
   dump=module.ptx" -o /dev/null``: with no selection of its own the
   pipeline keeps the plan the first call recorded (regions, signals, scope,
   iteration window, capacity, clock and the regions made for sites all
   reach the PTX; docs/Lowering.md).

The reference run lowers the unprobed kernel: ``--argus-to-nvptx="probes=0
dump=module.ptx"`` (markers erased: the PTX is byte-identical to the kernel
without markers, docs/Lowering.md).

The hardware-metric run lowers the unprobed kernel with line info and the
line -> region table of the same locations:
``--argus-to-nvptx="probes=0 lineinfo-regions=lines.json dump=module.ptx"``
(``.loc`` directives only: the code is that of the reference run).

Site items become options that make regions (SiteRegions.cpp), which the
pipeline then selects by name: ``sync-sites=S1,S2`` (region ``S``),
``completion-site=S1,S2 completion-iteration=I1,I2`` (paired lists; region
``completion:S``) and ``site-trace=S1,S2`` (regions ``issue:S`` and
``wait:S``).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from .effects import ProbeItem

PIPELINE = {"nvptx": "argus-to-nvptx", "gfx942": "argus-to-gfx942"}
DEFAULT_CLOCK = {"nvptx": "globaltimer", "gfx942": "memtime"}


def insert_probes_options(items: Sequence[ProbeItem], scope: dict, *, capacity: int = 4096,
                          clock: str = "globaltimer",
                          role_warps: Optional[Sequence[int]] = None) -> Dict[str, str]:
    """The ``--argus-insert-probes`` options (ordered) that instrument
    ``items`` under ``scope`` (Scope.to_json()). ``role_warps`` are the
    warps of the scope's roles, intersected with ``scope["warps"]``."""
    regions: List[str] = []
    signals: List[str] = []
    completion_sites, completion_iters, trace_sites, sync_sites = [], [], [], []
    for it in items:
        if it.kind == "hw":
            raise ValueError("hw items are collected by ncu, not instrumented")
        if it.kind in ("boundary", "timeline"):
            for r in (it.covers or (it.region,)):
                if r not in regions:
                    regions.append(r)
        sig = {"boundary": "duration", "timeline": "timeline"}.get(it.kind)
        if sig and sig not in signals:
            signals.append(sig)
        if it.kind == "completion":
            completion_sites.append(it.site)
            completion_iters.append(str(it.iteration))
        elif it.kind == "site-trace":
            trace_sites.append(it.site)
        elif it.kind == "sync":
            sync_sites.append(it.site)
    opts: Dict[str, str] = {}
    if regions:
        opts["regions"] = ",".join(regions)
        opts["signals"] = ",".join(signals)
    warps = list(scope.get("warps") or [])
    if role_warps is not None:
        warps = [w for w in role_warps if not warps or w in warps]
    if warps:
        opts["scope-warps"] = ",".join(str(w) for w in warps)
    if scope.get("blocks"):
        opts["scope-blocks"] = ",".join(str(b) for b in scope["blocks"])
    if scope.get("iterations") and any(it.kind == "timeline" for it in items):
        lo, hi = scope["iterations"]
        opts["iteration-window"] = f"{lo}:{hi}"
    opts["capacity"] = str(int(capacity))
    opts["clock"] = clock
    if completion_sites:
        opts["completion-site"] = ",".join(completion_sites)
        opts["completion-iteration"] = ",".join(completion_iters)
    if trace_sites:
        opts["site-trace"] = ",".join(trace_sites)
    if sync_sites:
        opts["sync-sites"] = ",".join(sync_sites)
    return opts


def option_string(opts: Dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in opts.items())


def pipeline_options(dump: str, probes: bool = True, fmt: str = "isa") -> Dict[str, str]:
    """The ``--argus-to-nvptx`` options for the instrumented (or, with
    ``probes=False``, the reference) module."""
    # Probed: the pipeline lowers the plan argus-insert-probes recorded
    # (keep-plans), whatever it selected, scoped and made.
    return {"probes": "1" if probes else "0", "format": fmt, "dump": dump}


def instrument_commands(argus_opt: str, source: str, probed: str, module: str,
                        opts: Dict[str, str], target: str = "nvptx") -> List[List[str]]:
    """The two argus-opt calls of a probed run (module docstring)."""
    return [
        [argus_opt, source, f"--argus-insert-probes={option_string(opts)}", "-o", probed],
        [argus_opt, probed,
         f"--{PIPELINE[target]}={option_string(pipeline_options(module))}",
         "-o", "/dev/null"],
    ]


def reference_commands(argus_opt: str, source: str, module: str,
                       target: str = "nvptx") -> List[List[str]]:
    return [[argus_opt, source,
             f"--{PIPELINE[target]}={option_string(pipeline_options(module, probes=False))}",
             "-o", "/dev/null"]]


def lineinfo_commands(argus_opt: str, source: str, module: str, lines: str,
                      target: str = "nvptx") -> List[List[str]]:
    """The unprobed kernel with line info, and its line -> region table."""
    opts = dict(pipeline_options(module, probes=False), **{"lineinfo-regions": lines})
    return [[argus_opt, source, f"--{PIPELINE[target]}={option_string(opts)}",
             "-o", "/dev/null"]]
