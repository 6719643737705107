"""argus-measure: plan (and run) a region measurement query.

    argus-measure plan K.mlir --ask mainloop:timeline --ask wait:duration --iterations 0:16 [--json]
    argus-measure run  K.mlir --ask wait:duration --launch spec.json --artifacts DIR [--devices 0,1]
                       [--slurm-config slurm.json]   (run on Slurm: docs/Slurm.md)
                       [--offline]   (GPU collections as a script for another host)
    argus-measure recipes

--offline runs the CPU tasks here and writes every ready GPU collection into
one script, DIR/offline/collect-<episode>.sh (DIR/offline/collect.sh links to
the newest): run it with bash on the GPU host, with the artifact directory
at the same absolute path there (a copy, or a symlink to one), bring the
directory back and run the same command again, until it prints the report
(docs/Measure.md, "Offline collections").

Exit codes of run: 0 every task finished; 1 some task failed or was skipped
(the report says what is missing); 2 a bad query or argument; 3 (--offline)
collections wait for the script named on stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..tools import find_tool
from . import capabilities
from .executor import HandlerRef, LocalExecutor
from .artifacts import ArtifactStore
from .planner import Planner
from .query import Query, Scope, parse_ask
from .recipes import REGISTRY
from .report import text_summary


def _check_scope_warps(program: str, scope: Scope) -> None:
    """--warps against the program's kernels: a warp index the largest
    kernel block does not have would select nothing (ValueError)."""
    if not scope.warps:
        return
    try:
        text = open(program).read()
    except OSError:
        return  # the planner reports an unreadable program
    most = 0
    for m in re.finditer(r"#argus\.kernel<([^>]*)>", text):
        block = re.search(r"block\s*=\s*\[([\d,\s]+)\]", m.group(1))
        target = re.search(r'target\s*=\s*"([^"]*)"', m.group(1))
        if not block:
            continue
        threads = 1
        for d in block.group(1).split(","):
            if d.strip():
                threads *= int(d)
        lanes = 64 if target and target.group(1).startswith("gfx") else 32
        most = max(most, (threads + lanes - 1) // lanes)
    if most and scope.warps[-1] >= most:
        raise ValueError(f"--warps: warp {scope.warps[-1]} is beyond the kernel's block "
                         f"({most} warp{'s' if most != 1 else ''}: indices 0-{most - 1})")


def _print_failures(ex) -> None:
    """Every failed task's own errors on stderr (they are also in the
    artifact's failed.json): the report only says what is missing."""
    for tid, o in ex.outcomes.items():
        if o.status != "failed":
            continue
        op = ex.plan.tasks[tid].op if tid in ex.plan.tasks else "?"
        errors = [e for e in o.errors if e] or ["(no error recorded)"]
        print(f"argus-measure: task {tid} ({op}) failed: {errors[-1].strip()}",
              file=sys.stderr)
        for e in errors[:-1]:
            print(f"  an earlier attempt: {e.strip()}", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="argus-measure", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("plan", "run"):
        p = sub.add_parser(name)
        p.add_argument("program")
        p.add_argument("--ask", action="append", required=True, help="REGION:SIGNAL")
        p.add_argument("--roles", default="")
        p.add_argument("--warps", default="")
        p.add_argument("--blocks", default="")
        p.add_argument("--iterations", default="", help="lo:hi")
        p.add_argument("--repeats", type=int, default=1)
        p.add_argument("--max-batch", type=int, default=8)
        p.add_argument("--isolate-below-ns", type=float, default=5000.0,
                       help="after a batched run of region durations, measure the regions "
                            "shorter than this again, each alone (0: never)")
        p.add_argument("--argus-opt", default=None,
                       help="detect capabilities from this argus-opt's --help")
        p.add_argument("--json", action="store_true")
        if name == "plan":
            # The plan is the same for every backend; --offline says which of
            # its tasks `run --offline` would put into the collection script.
            p.add_argument("--offline", action="store_true",
                           help="also list the GPU collections that `run --offline` "
                                "writes into a script for the GPU host")
        if name == "run":
            p.add_argument("--launch", required=True, help="argus-run spec template")
            p.add_argument("--artifacts", required=True)
            p.add_argument("--argus-run", default=None,
                           help="the argus-run to launch with (default: the one next to "
                                "this install, else on PATH; with --offline: argus-run "
                                "on the GPU host's PATH)")
            p.add_argument("--ncu", default="ncu")
            p.add_argument("--ptxas", default="ptxas",
                           help="hw signal: the GPU host's ptxas (makes the profiled cubin)")
            p.add_argument("--nvdisasm", default="nvdisasm",
                           help="hw signal: the GPU host's nvdisasm (line info of each PC)")
            p.add_argument("--perfetto", metavar="TRACE.json", default=None,
                           help="also write the report as a Perfetto / chrome://tracing "
                                "trace (one lane per warp, named by its role)")
            p.add_argument("--devices", default="0")
            p.add_argument("--workers", type=int, default=2)
            p.add_argument("--timeout", type=float, default=600)
            backend = p.add_mutually_exclusive_group()
            backend.add_argument("--slurm-config", metavar="JSON",
                                 help="run on Slurm with this SlurmConfig (docs/Slurm.md); "
                                      "--artifacts must be on a shared file system")
            backend.add_argument("--offline", action="store_true",
                                 help="CPU tasks here, GPU collections into a script to run "
                                      "on the GPU host (exit code 3 while any wait)")
    sub.add_parser("recipes")
    a = ap.parse_args(argv)
    if a.cmd == "recipes":
        print(json.dumps({k: r.to_json() for k, r in REGISTRY.items()}, indent=1))
        return 0
    try:
        launch = json.load(open(a.launch)) if a.cmd == "run" else None
        scope = Scope.parse(a.roles, a.warps, a.blocks, a.iterations)
        _check_scope_warps(a.program, scope)
        q = Query(a.program, asks=[parse_ask(x) for x in a.ask], scope=scope,
                  launch=launch, repeats=a.repeats)
        caps = capabilities.detect(a.argus_opt) if a.argus_opt else None
        plan = Planner(capabilities=caps, max_batch=a.max_batch,
                       isolate_below_ns=a.isolate_below_ns or None,
                       toolchain=capabilities.toolchain_id(a.argus_opt or "argus-opt")).plan(q)
    except (ValueError, OSError) as e:
        print(f"argus-measure: {e}", file=sys.stderr)
        return 2
    if a.cmd == "plan":
        gpu = [tid for tid, t in plan.tasks.items() if t.device]
        if a.json:
            text = plan.dumps()
            if a.offline:
                doc = json.loads(text)
                doc["offline_collections"] = gpu
                text = json.dumps(doc, indent=1)
            print(text)
        else:
            print(plan.to_text())
            if a.offline:
                print(f"offline: {len(gpu)} GPU collection(s) go into the script that "
                      "`argus-measure run --offline` writes (DIR/offline/collect.sh): "
                      + (", ".join(gpu) or "none"))
        return 0
    # argus-opt runs here: the one next to this package's install (or build
    # tree) before PATH (argus.find_tool). argus-run likewise, except for
    # --offline, whose script runs on another host with its own.
    tools = {"argus-opt": a.argus_opt or find_tool("argus-opt") or "argus-opt",
             "argus-run": a.argus_run or ("argus-run" if a.offline else
                                          find_tool("argus-run") or "argus-run"),
             "ncu": a.ncu, "ptxas": a.ptxas, "nvdisasm": a.nvdisasm}
    handlers = HandlerRef("argus.measure.handlers:make_handlers", {"tools": tools})
    if a.offline:
        from ..execution.offline import OfflineExecutor
        from ..execution.slurm import SlurmConfig
        executor = OfflineExecutor(ArtifactStore(a.artifacts),
                                   SlurmConfig(collect_timeout=a.timeout, local_workers=a.workers))
    elif a.slurm_config:
        from ..execution.slurm import SlurmConfig, SlurmExecutor
        try:
            cfg = SlurmConfig.from_json(dict(json.load(open(a.slurm_config)),
                                             collect_timeout=a.timeout))
        except (ValueError, OSError, TypeError) as e:
            print(f"argus-measure: --slurm-config: {e}", file=sys.stderr)
            return 2
        executor = SlurmExecutor(ArtifactStore(a.artifacts), cfg)
    else:
        executor = LocalExecutor(ArtifactStore(a.artifacts), workers=a.workers,
                                 devices=[int(d) for d in a.devices.split(",") if d],
                                 collect_timeout=a.timeout)
    ex = executor.execute(plan, handlers)
    if ex.info.get("waiting"):
        print(f"offline: {len(ex.info['waiting'])} collection(s) waiting: run "
              f"'bash {ex.info['script']}' on the GPU host (artifact directory at the same "
              "path), then run this command again", file=sys.stderr)
        return 3
    _print_failures(ex)
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    out = {"report": rep, "execution": ex.to_json(), "plan": plan.to_json()}
    if a.perfetto and rep:
        from . import perfetto
        from .program import Program
        perfetto.write(rep, a.perfetto, perfetto.warp_roles(Program.load(a.program).regions()))
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        print(text_summary(rep) if rep else "no report")
        print(json.dumps(ex.summary()))
    return 0 if ex.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
