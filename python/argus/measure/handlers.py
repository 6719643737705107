"""The real task handlers (op -> fn(TaskContext)), for LocalExecutor.

* ``analysis:regions`` / ``analysis:async-sites`` / ``analysis:sync-sites``:
  the IR analyses of program.py (CPU);
* ``lower`` / ``instrument``: argus-opt (transform.py's command lines);
  the PTX, the probed IR and the commands land in the artifact;
* ``argus-run``: writes the launch spec (collect.py) and runs argus-run
  on the task's device; the run report is the result (a
  ``CommandHandler``: on Slurm the job script runs the same argus-run
  command on the node, with no Python there);
* ``analysis:pc-regions``: argus-opt lowers the unprobed kernel with line
  info and writes its line -> region table (transform.py);
* ``ncu``: ptxas -lineinfo, ncu over argus-run on that cubin, ncu's source
  page and nvdisasm's line info (collect.py), also a ``CommandHandler``;
  ``finish`` attributes the per-PC counters to regions (pcmap.py,
  attribution.py);
* ``expand``: returns the discovery's targets (the executor expands);
* ``report``: synthesis (report.py).

``make_handlers(tools)`` binds the tool paths; tests replace entries.
``HandlerRef("argus.measure.handlers:make_handlers", {"tools": {...}})``
names the same handlers for worker processes and batch jobs.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Dict, Optional

from ..execution.executor import Command, CommandHandler
from . import attribution, collect, pcmap, report, synthesis, transform
from .program import Program


def _run(cmd, timeout=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited {p.returncode}: "
                           f"{(p.stderr or p.stdout)[-2000:]}")
    return p


def make_handlers(tools: Optional[Dict[str, str]] = None) -> dict:
    tools = dict(tools or {})
    opt = tools.get("argus-opt", "argus-opt")
    run = tools.get("argus-run", "argus-run")
    ncu = tools.get("ncu", "ncu")
    ptxas = tools.get("ptxas", "ptxas")
    nvdisasm = tools.get("nvdisasm", "nvdisasm")

    def regions(ctx):
        return {name: i.to_json() for name, i in
                Program.load(ctx.task.options["source"]).regions().items()}

    def sites(kind):
        def h(ctx):
            prog = Program.load(ctx.task.options["source"])
            found = getattr(prog, kind)(ctx.task.options["region"])
            return {"targets": [t.to_json() for t in found]}
        return h

    def expand(ctx):
        disc = next(iter(ctx.inputs.values())) or {}
        return {"targets": disc.get("targets", [])}

    def refine(ctx):
        """The regions of a batched run whose mean duration (over its repeats)
        is below the threshold: the executor measures them again alone."""
        reports = [(res or {}).get("report") for res in ctx.inputs.values()]
        means = {}
        for name in ctx.task.options["regions"]:
            d = synthesis.duration_from_runs(reports, name)
            if d is not None:
                means[name] = d["mean"]["value"]
        short = [n for n, m in means.items() if m < ctx.task.options["below_ns"]]
        return {"targets": short, "means": means}

    def lower(ctx):
        module = os.path.join(ctx.workdir, "module.ptx")
        cmds = transform.reference_commands(opt, ctx.task.options["source"], module,
                                            ctx.task.options.get("target", "nvptx"))
        for c in cmds:
            _run(c)
        return {"module": "module.ptx", "commands": cmds}

    def line_table(ctx):
        module = os.path.join(ctx.workdir, "module.ptx")
        lines = os.path.join(ctx.workdir, "lines.json")
        cmds = transform.lineinfo_commands(opt, ctx.task.options["source"], module, lines,
                                           ctx.task.options.get("target", "nvptx"))
        for c in cmds:
            _run(c)
        return {"module": "module.ptx", "lines": "lines.json", "commands": cmds}

    def instrument(ctx):
        probed = os.path.join(ctx.workdir, "probed.mlir")
        module = os.path.join(ctx.workdir, "module.ptx")
        cmds = transform.instrument_commands(opt, ctx.task.options["source"], probed, module,
                                             ctx.task.options["insert_probes"],
                                             ctx.task.options.get("target", "nvptx"))
        for c in cmds:
            _run(c)
        # Every region of the instrumented module by ID, the regions made
        # for sites included (their IDs are chosen by the pass).
        regions = {str(i.id): name for name, i in Program.load(probed).regions().items()}
        # In how many iterations each asynchronous site's wait follows its
        # issue (MeasurementSites): the site trace pairs them by it.
        sites = Program.load(ctx.task.options["source"]).sites()
        distance = {s["site"]: s.get("distance") for v in sites["async_sites"].values()
                    for s in v}
        return {"module": "module.ptx", "probed": "probed.mlir", "commands": cmds,
                "probe_regions": regions, "site_distance": distance}

    class ArgusRun(CommandHandler):
        def prepare(self, ctx):
            spec_path, report_path = write_spec(ctx)
            cmd = collect.argus_run_command(run, spec_path, report_path)
            return [Command(cmd, device_flag="--device")]

        def finish(self, ctx, codes):
            with open(os.path.join(ctx.workdir, "report.json")) as f:
                src = ctx.task.inputs[0]
                return {"report": json.load(f), "spec": "spec.json",
                        "run": ctx.task.options["run"],
                        "site_distance": (ctx.inputs[src] or {}).get("site_distance", {})}

    class NcuRun(CommandHandler):
        """ptxas -lineinfo makes the cubin; ncu profiles argus-run on it and
        exports its source page; nvdisasm gives the line of every PC of the
        same cubin."""

        def prepare(self, ctx):
            src = ctx.task.inputs[0]
            ptx = os.path.join(ctx.input_files(src), (ctx.inputs[src] or {})["module"])
            with open(ptx) as f:
                arch = collect.ptx_target(f.read())
            cubin = os.path.join(ctx.workdir, "module.cubin")
            spec_path, _ = write_spec(ctx, module=cubin)
            base = os.path.join(ctx.workdir, "ncu")
            kernel = json.load(open(spec_path))["kernel"]
            return [Command(collect.ptxas_command(ptxas, ptx, cubin, arch)),
                    Command(collect.ncu_command(ncu, run, spec_path, kernel, base),
                            device_flag="--device"),
                    Command(collect.ncu_export_command(ncu, base), stdout="source.csv"),
                    Command(collect.nvdisasm_command(nvdisasm, cubin), stdout="sass.txt")]

        def finish(self, ctx, codes):
            src = ctx.task.inputs[0]
            with open(os.path.join(ctx.input_files(src), ctx.inputs[src]["lines"])) as f:
                lines = json.load(f)
            with open(os.path.join(ctx.workdir, "source.csv")) as f:
                counters = pcmap.ncu_source_table(f.read())
            with open(os.path.join(ctx.workdir, "sass.txt")) as f:
                sass = f.read()
            kernel = json.load(open(os.path.join(ctx.workdir, "spec.json")))["kernel"]
            pc_line = pcmap.sass_lines(sass, kernel if kernel in pcmap.functions(sass) else None)
            owners = pcmap.pc_regions(pc_line, lines)
            return {"hw": attribution.attribute(counters, owners),
                    "parents": pcmap.region_parents(lines),
                    "pcs": {"profiled": len(counters), "with_line": len(pc_line),
                            "in_table": len(owners)},
                    "source_csv": "source.csv", "sass": "sass.txt"}

    return {"analysis:regions": regions,
            "analysis:async-sites": sites("async_sites"),
            "analysis:sync-sites": sites("sync_sites"),
            "analysis:pc-regions": line_table,
            "expand": expand, "refine": refine, "lower": lower, "instrument": instrument,
            "argus-run": ArgusRun(), "ncu": NcuRun(), "report": report.synthesize_task}


def write_spec(ctx, module: Optional[str] = None):
    """The run's launch spec in the task's workdir (module from the
    transform input's artifact, unless given)."""
    t = ctx.task
    src = t.inputs[0]
    files = ctx.input_files(src)
    lowered = (ctx.inputs[src] or {}).get("module", "module.ptx")
    if module is None:
        module = os.path.join(files, lowered)
    template = t.options.get("launch") or {}
    probes = None
    if t.options.get("probes"):
        regions = {int(k): v for k, v in t.options.get("regions", {}).items()}
        made = (ctx.inputs[src] or {}).get("probe_regions", {})
        for rid, name in made.items():
            if name in t.options.get("made_regions", ()):
                regions[int(rid)] = name
        probes = collect.probes_section(template, regions,
                                        t.options.get("capacity", 4096),
                                        t.options.get("clock", "globaltimer"))
    spec = collect.launch_spec(template, module, name=f"{t.options.get('run', t.op)}-r{t.options.get('repeat', 0)}",
                               probes=probes, check=t.options.get("check", False))
    # The lowered module's own launch needs (docs/Lowering.md's ABI JSON next
    # to the PTX): probes take shared memory of their own, so an instrumented
    # kernel asks for more dynamic shared memory than the template's.
    abi = _module_abi(os.path.join(files, lowered + ".json"), spec["kernel"]) if files else None
    if abi and "dynamic_smem" in abi:
        spec["shared_mem"] = int(abi["dynamic_smem"])
    spec_path = os.path.join(ctx.workdir, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1)
    return spec_path, os.path.join(ctx.workdir, "report.json")


def _module_abi(path: str, kernel: str) -> Optional[dict]:
    """The kernel's entry of the launch ABI argus-opt dumped beside the
    lowered module (``module.ptx.json``), if there is one."""
    try:
        with open(path) as f:
            return json.load(f).get("kernels", {}).get(kernel)
    except (OSError, ValueError):
        return None
