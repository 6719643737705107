"""Collections: the argus-run spec and command of a probe or reference run,
and the ncu command of a hardware-metric run.

A launch spec (docs/Runtime.md) is the query's template (grid, block,
shared memory, args, check) completed per run: ``module`` is the run's PTX,
``probes`` is set only for a probed run (``capacity_per_warp``,
``warps_per_block``, ``warp_size``, ``clock``, ``regions`` id -> name,
``timeline_warps``), and ``check`` is kept only in the reference run:
correctness is checked once per program version, not once per probe
variant (a probe run's outputs are those of the same program).
"""

from __future__ import annotations

import copy
from typing import Dict, List, Optional

SPEC_KEYS = {"name", "module", "format", "kernel", "grid", "block", "cluster", "shared_mem",
             "args", "check", "probes", "warmup", "repetitions", "device", "backend"}
PROBE_KEYS = {"capacity_per_warp", "warps_per_block", "warp_size", "clock", "clock_hz",
              "regions", "timeline_warps"}


def launch_spec(template: dict, module: str, *, name: str, probes: Optional[dict] = None,
                check: bool = False, warmup: Optional[int] = None,
                repetitions: Optional[int] = None) -> dict:
    unknown = set(k for k in template if not k.startswith("_") and k != "comment") - SPEC_KEYS
    if unknown:
        raise ValueError(f"launch template: unknown key(s) {', '.join(sorted(unknown))}")
    spec = copy.deepcopy({k: v for k, v in template.items() if k != "probes"})
    spec["name"] = name
    spec["module"] = module
    spec.setdefault("format", "ptx" if module.endswith(".ptx") else "auto")
    if not check:
        spec.pop("check", None)
    if probes is not None:
        bad = set(probes) - PROBE_KEYS
        if bad:
            raise ValueError(f"probes: unknown key(s) {', '.join(sorted(bad))}")
        spec["probes"] = dict(probes)
    if warmup is not None:
        spec["warmup"] = warmup
    if repetitions is not None:
        spec["repetitions"] = repetitions
    return spec


def probes_section(template: dict, regions: Dict[int, str], capacity: int, clock: str,
                   warp_size: int = 32, timeline_warps: int = 256) -> dict:
    block = template.get("block", [1])
    if isinstance(block, int):
        block = [block]
    threads = 1
    for b in block:
        threads *= int(b)
    return {"capacity_per_warp": int(capacity), "warps_per_block": -(-threads // warp_size),
            "warp_size": warp_size, "clock": clock,
            "regions": {str(k): v for k, v in sorted(regions.items())},
            "timeline_warps": timeline_warps}


def argus_run_command(argus_run: str, spec_path: str, report_path: str,
                      device: Optional[int] = None) -> List[str]:
    cmd = [argus_run, spec_path, "--report", report_path, "--quiet"]
    if device is not None:
        cmd += ["--device", str(device)]
    return cmd


def ncu_command(ncu: str, argus_run: str, spec_path: str, kernel: str, report_base: str,
                device: Optional[int] = None) -> List[str]:
    """ncu over argus-run on the unprobed spec: the SourceCounters section
    (per-instruction executed counts, PC sampling stall reasons) and
    WarpStateStats into ``report_base.ncu-rep``, clocks left alone (the
    reference run's are not locked either)."""
    cmd = [ncu, "--clock-control", "none", "--section", "SourceCounters",
           "--section", "WarpStateStats", "--kernel-name", kernel, "--launch-count", "1",
           "-f", "-o", report_base, argus_run, spec_path, "--quiet"]
    if device is not None:
        cmd += ["--device", str(device)]
    return cmd


def ncu_export_command(ncu: str, report_base: str) -> List[str]:
    """ncu's source page as CSV: one row per SASS instruction (pcmap.py)."""
    return [ncu, "--import", report_base + ".ncu-rep", "--page", "source", "--csv",
            "--print-source", "sass"]


def ptxas_command(ptxas: str, ptx: str, cubin: str, arch: str) -> List[str]:
    """The cubin ncu profiles and nvdisasm reads: one binary for both, so
    their addresses agree (the driver's own JIT could compile differently)."""
    return [ptxas, f"-arch={arch}", "-lineinfo", "-o", cubin, ptx]


def nvdisasm_command(nvdisasm: str, cubin: str) -> List[str]:
    return [nvdisasm, "--print-line-info", "-c", cubin]


def ptx_target(ptx_text: str) -> str:
    """The ``.target`` of a PTX module (``sm_90a``)."""
    for line in ptx_text.splitlines():
        parts = line.split()
        if parts[:1] == [".target"] and len(parts) > 1:
            return parts[1].rstrip(",")
    raise ValueError("PTX without a .target directive")
