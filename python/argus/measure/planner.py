"""The planner: a query -> a plan (DAG of tasks).

1. Bind: load the program version, check the regions exist.
2. Close: each (region, signal) resolves to a recipe; its ``signal:``
   prerequisites are added recursively (exposed -> completion ->
   site-trace), its ``analysis:`` prerequisites become analysis tasks
   (region structure once per program, site discovery per region).
3. Check capabilities: a recipe whose pass options are missing is
   unavailable; so is every signal that needs it. Its tasks stay in the
   plan, marked, and are never executed.
4. Expand: a recipe with ``expands`` gets a control task fed by the
   discovery; its targets become one probe item per (site, iteration of the
   window). With ``eager=True`` (the default) the discovery (a CPU analysis
   of the IR) runs while planning and the plan shows every probe; with
   ``eager=False`` the control task expands the plan when the executor runs
   it.
5. Partition: probe items go into runs by their effects (effects.py):
   compatible items are batched (at most ``max_batch`` per run), conflicting
   ones separated. Each run is an instrument transform and ``repeats``
   collections. A reference run (the unprobed kernel, the only run that
   checks results) is always added; hardware metrics get one ncu run.
6. Synthesize: one task over every collection.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from . import capabilities as caps_mod
from .attribution import nested_in
from .effects import ProbeItem, partition
from .plan import Plan, Task
from .program import Program, Target
from .query import Query
from .recipes import ANALYSIS_REQUIRES, REGISTRY, Recipe
from .transform import DEFAULT_CLOCK, insert_probes_options, option_string

DEFAULT_WINDOW = (0, 16)
#: Analyses of the whole program rather than of one region (their summaries).
WHOLE_PROGRAM_ANALYSES = {
    "analysis:pc-regions": "lower the unprobed kernel with line info and its line -> region table"}


def discover(program: Program, analysis: str, region: str) -> List[Target]:
    """Run a discovery analysis on the IR (the compiler's MeasurementSites)."""
    if analysis == "analysis:async-sites":
        return program.async_sites(region)
    if analysis == "analysis:sync-sites":
        return program.sync_sites(region)
    raise KeyError(analysis)


class Planner:
    def __init__(self, capabilities=None, registry: Dict[str, Recipe] = None,
                 max_batch: int = 8, capacity: int = 4096, eager: bool = True,
                 isolate_below_ns: Optional[float] = 5000.0,
                 toolchain: Optional[str] = None):
        self.capabilities = frozenset(caps_mod.KNOWN if capabilities is None else capabilities)
        self.registry = dict(REGISTRY if registry is None else registry)
        self.max_batch = max_batch
        self.capacity = capacity
        self.eager = eager
        # Boundary probes batch, but a short region moves when any other
        # region is probed (bench/measure/RESULTS.md: up to +91% under
        # ~1 us per warp): after a batched run, the regions it measured
        # shorter than this are measured again alone (None: never).
        self.isolate_below_ns = isolate_below_ns
        # The compiler's identity (capabilities.toolchain_id): part of every
        # task's binding, so artifacts of another argus-opt are not reused.
        self.toolchain = toolchain

    # -- closure ----------------------------------------------------------
    def closure(self, asks: Sequence[Tuple[str, str]]) -> List[Tuple[str, str]]:
        """(region, signal) pairs with every ``signal:`` prerequisite added,
        prerequisites first."""
        out: List[Tuple[str, str]] = []

        def visit(region, signal, stack):
            if (region, signal) in out:
                return
            if signal not in self.registry:
                raise ValueError(f"no recipe for signal {signal!r}")
            if signal in stack:
                raise ValueError(f"recipe cycle through {signal}")
            for p in self.registry[signal].prerequisites:
                if p.startswith("signal:"):
                    visit(region, p[len("signal:"):], stack + (signal,))
            out.append((region, signal))
        for r, s in asks:
            visit(r, s, ())
        return out

    def missing(self, signal: str, _seen=()) -> List[str]:
        """Missing capabilities of ``signal``'s recipe, its analyses and its
        prerequisite signals."""
        rec = self.registry[signal]
        miss = list(rec.missing(self.capabilities))
        for p in rec.prerequisites:
            if p.startswith("analysis:"):
                miss += [c for c in ANALYSIS_REQUIRES.get(p, ()) if c not in self.capabilities]
            elif p.startswith("signal:") and p[7:] not in _seen:
                miss += self.missing(p[7:], _seen + (signal,))
        return list(dict.fromkeys(miss))

    # -- planning ---------------------------------------------------------
    def plan(self, query: Query, program: Optional[Program] = None) -> Plan:
        program = program or Program.load(query.program)
        regions = program.regions()
        for r, _ in query.asks:
            if r not in regions:
                raise ValueError(f"no region named {r!r} in {query.program} (regions: "
                                 f"{', '.join(regions) or 'none'})")
        scope = query.scope.to_json()
        for role in query.scope.roles:
            if role not in {i.role for i in regions.values()}:
                raise ValueError(f"no warp role named {role!r} in {query.program}")
        plan = Plan(query.to_json(), program.version)
        plan.expand = self._expand_dynamic
        ctx = _Ctx(self, plan, program, query, regions, scope)
        if "argus-to-nvptx:probe-scope-warps" not in self.capabilities and (
                query.scope.warps or query.scope.blocks or query.scope.iterations
                or query.scope.roles):
            plan.notes.append(
                "scope is applied to the records at synthesis: --argus-to-nvptx re-runs "
                "argus-insert-probes without scope-warps/scope-blocks/iteration-window "
                "(an argus-opt older than the pipeline's probe-scope options), so every warp and "
                "iteration writes records")

        t_regions = plan.add(Task(plan.new_id("transform", "regions"), "transform",
                                  "analysis:regions",
                                  options={"source": program.path,
                                           "summary": "region structure of the IR"},
                                  binding=ctx.binding(None, scoped=False)))
        ctx.analysis["analysis:regions"] = t_regions.id

        # Reference run: always (the unprobed kernel; the one checked run).
        t_ref = plan.add(Task(plan.new_id("transform", "reference"), "transform", "lower",
                              inputs=[t_regions.id],
                              options={"source": program.path, "probes": False,
                                       "target": query.target,
                                       "summary": "lower the unprobed kernel"},
                              binding=ctx.binding(None, scoped=False)))
        ctx.reference_transform = t_ref.id
        ctx.add_collections("reference", t_ref.id, [], "unprobed reference (checked)",
                            probes=False)

        synth = Task(plan.new_id("synthesize", "report"), "synthesize", "report",
                     inputs=[t_regions.id], options={"asks": [list(a) for a in query.asks],
                                                     "scope": scope,
                                                     "depth": program.pipeline_depth(),
                                                     "summary": "join runs into the region "
                                                                "report"},
                     binding=ctx.binding(None))
        items: List[Tuple[ProbeItem, Optional[str]]] = []
        for region, signal in self.closure(query.asks):
            rec = self.registry[signal]
            miss = self.missing(signal)
            if miss:
                plan.unavailable.append({"ask": f"{region}:{signal}", "missing": miss,
                                         "pending": {m: caps_mod.PENDING.get(m, "")
                                                     for m in miss}})
            why = f"missing {', '.join(miss)}" if miss else None
            if rec.expands:
                t_disc = ctx.analysis_task(rec.expands, region)
                ctl = Task(plan.new_id("control", f"expand-{signal}-{region}"), "control",
                           "expand", inputs=[t_disc],
                           options={"signal": signal, "region": region,
                                    "window": list(query.scope.iterations or DEFAULT_WINDOW),
                                    "summary": f"one {rec.probe_kind} probe per "
                                               f"{rec.expands[9:]} target and iteration"},
                           binding=ctx.binding(region), unavailable=why)
                if self.eager:
                    targets = discover(program, rec.expands, region)
                    ctl.options["targets"] = [t.site for t in targets]
                    plan.add(ctl)
                    items += [(it, why) for it in ctx.expand_items(signal, region,
                                                                   targets, ctl.options["window"])]
                    ctx.control_of[signal, region] = ctl.id
                else:
                    ctl.expands = True
                    plan.add(ctl)
                    ctx.pending.append(ctl.id)
                if not query.scope.iterations:
                    plan.notes.append(f"{region}:{signal}: no iteration window given; "
                                      f"expanded over iterations {DEFAULT_WINDOW[0]}:"
                                      f"{DEFAULT_WINDOW[1]}")
                synth.inputs.append(ctl.id)
                continue
            for p in rec.prerequisites:
                if p.startswith("analysis:") and p != "analysis:regions":
                    # the line table is the whole program's: one task for all regions
                    scope = "*" if p in WHOLE_PROGRAM_ANALYSES else region
                    t_an = ctx.analysis_task(p, scope, unavailable=why)
                    if t_an not in synth.inputs:
                        synth.inputs.append(t_an)
            if rec.probe_kind is None:
                continue
            kind = rec.probe_kind
            if kind == "boundary" and regions[region].in_loop:
                kind = "timeline"
            covers = ()
            if kind == "timeline" and not regions[region].in_loop:
                # The per-iteration timeline of an outer region: its regions
                # inside loops, probed together.
                parents = {n: i.parent for n, i in regions.items()}
                covers = tuple(n for n, i in regions.items() if i.in_loop and
                               nested_in(n, region, parents))
                if not covers:
                    raise ValueError(f"{region}:timeline: {region} is not inside a loop and "
                                     "holds no region that is (no per-iteration records)")
            items.append((ProbeItem(kind, region, covers=covers), why))
        ctx.add_item_runs(items)
        synth.inputs += [i for i in ctx.early if i not in synth.inputs]
        plan.add(synth)
        ctx.synth = synth.id
        ctx._sync_runs()
        plan.check_acyclic()
        return plan

    def _expand_dynamic(self, plan: Plan, task: Task, targets: List[dict]) -> List[Task]:
        """Called by the executor with a control task's result (the
        discovery's targets): adds the probe runs and feeds them to the
        synthesis."""
        ctx: _Ctx = plan._ctx
        before = set(plan.tasks)
        if task.op == "refine":
            # The short regions of a batched run, each in a run of its own.
            for region in targets:
                ctx.add_item_runs([(ProbeItem("boundary", region), task.unavailable)])
            return [plan.tasks[i] for i in plan.tasks if i not in before]
        sig, region = task.options["signal"], task.options["region"]
        tg = [Target(**t) if isinstance(t, dict) else t for t in targets]
        why = task.unavailable
        ctx.control_of[sig, region] = task.id
        ctx.add_item_runs([(it, why) for it in ctx.expand_items(sig, region, tg,
                                                                task.options["window"])])
        return [plan.tasks[i] for i in plan.tasks if i not in before]


class _Ctx:
    """Planning state of one plan (kept on the plan for dynamic expansion)."""

    def __init__(self, planner, plan, program, query, regions, scope):
        self.planner, self.plan, self.program, self.query = planner, plan, program, query
        self.regions, self.scope = regions, scope
        self.analysis: Dict[str, str] = {}
        self.control_of: Dict[tuple, str] = {}
        self.pending: List[str] = []
        self.reference_transform = None
        self.synth = None
        self.run_no = 0
        self.early: List[str] = []
        plan._ctx = self

    def binding(self, region, scoped: bool = True):
        """What a task is bound to; analyses and the reference run do not
        depend on the scope (their artifacts are shared across scopes)."""
        b = {"program_version": self.program.version, "region": region,
             "scope": self.scope if scoped else None, "backend": self.query.target}
        if self.planner.toolchain:
            b["toolchain"] = self.planner.toolchain
        return b

    def analysis_task(self, name: str, region: str, unavailable=None) -> str:
        key = f"{name}:{region}"
        if key in self.analysis:
            return self.analysis[key]
        miss = [c for c in ANALYSIS_REQUIRES.get(name, ())
                if c not in self.planner.capabilities]
        t = self.plan.add(Task(self.plan.new_id("transform", f"{name[9:]}-{region}"),
                               "transform", name, inputs=[self.analysis["analysis:regions"]],
                               options={"source": self.program.path, "region": region,
                                        "summary": WHOLE_PROGRAM_ANALYSES.get(
                                            name, f"discover {name[9:]} in {region}")},
                               binding=self.binding(region, scoped=False),
                               unavailable=(f"missing {', '.join(miss)}" if miss else None)))
        self.analysis[key] = t.id
        return t.id

    def expand_items(self, signal, region, targets, window) -> List[ProbeItem]:
        kind = self.planner.registry[signal].probe_kind
        lo, hi = window
        if kind == "completion":
            return [ProbeItem("completion", region, t.site, i)
                    for t in targets for i in range(lo, hi)]
        if kind in ("site-trace", "sync"):
            return [ProbeItem(kind, region, t.site) for t in targets]
        raise ValueError(f"recipe {signal} does not expand")

    def role_warps(self):
        roles = self.query.scope.roles
        if not roles:
            return None
        warps = []
        for info in self.regions.values():
            if info.role in roles and info.role_warps:
                warps += [w for w in range(*info.role_warps) if w not in warps]
        return sorted(warps)

    def add_item_runs(self, items: List[Tuple[ProbeItem, Optional[str]]]):
        why = {}
        for it, w in items:
            if w:
                why[it.key] = w
        probe = [it for it, _ in items if it.kind != "hw"]
        hw = [it for it, _ in items if it.kind == "hw"]
        depth = self.program.pipeline_depth()
        for run in partition(probe, depth, self.planner.max_batch):
            self.add_run(run, why)
        if hw:
            self.add_hw_run(partition(hw, depth, max_batch=10 ** 6)[0], why)

    def add_run(self, run: List[ProbeItem], why: Dict):
        self.run_no += 1
        rid = f"run{self.run_no:02d}"
        clock = DEFAULT_CLOCK[self.query.target]
        opts = insert_probes_options(run, self.scope, capacity=self.planner.capacity,
                                     clock=clock, role_warps=self.role_warps())
        missing = sorted({why[it.key] for it in run if it.key in why})
        inputs = [self.analysis["analysis:regions"]]
        for it in run:
            for sig in ("completion", "site-trace", "sync", "wait"):
                c = self.control_of.get((sig, it.region))
                if c and c not in inputs:
                    inputs.append(c)
        t = self.plan.add(Task(self.plan.new_id("transform", f"instrument-{rid}"), "transform",
                               "instrument", inputs=inputs,
                               options={"source": self.program.path, "target": self.query.target,
                                        "insert_probes": opts,
                                        "items": [it.to_json() for it in run],
                                        "summary": f'--argus-insert-probes="{option_string(opts)}"'},
                               binding=self.binding(run[0].region if len({i.region for i in run}) == 1 else None),
                               unavailable="; ".join(missing) or None))
        probed = [r for r in opts.get("regions", "").split(",") if r]
        # The regions argus-insert-probes makes for sites get their IDs
        # there; the run's spec takes them from the instrumented module.
        collects = self.add_collections(rid, t.id, run, "", probes=True,
                                        regions={self.regions[r].id: r for r in probed},
                                        made_regions=made_regions(run),
                                        capacity=self.planner.capacity, clock=clock)
        boundary = [it.region for it in run if it.kind == "boundary"]
        below = self.planner.isolate_below_ns
        if below is not None and len(boundary) > 1:
            # Decided at execution, from this run's durations.
            ctl = self.plan.add(Task(self.plan.new_id("control", f"refine-{rid}"), "control",
                                     "refine", inputs=collects,
                                     options={"regions": boundary, "below_ns": below,
                                              "summary": f"regions of {rid} shorter than "
                                                         f"{below:g} ns again, each alone"},
                                     binding=self.binding(None),
                                     unavailable=self.plan.tasks[t.id].unavailable))
            ctl.expands = True
            self._feed(ctl.id)

    def add_hw_run(self, run: List[ProbeItem], why: Dict):
        miss = sorted({why[it.key] for it in run if it.key in why})
        pcmap = self.analysis_task("analysis:pc-regions", "*")
        t = self.plan.add(Task(self.plan.new_id("collect", "ncu"), "collect", "ncu",
                               inputs=[pcmap],
                               options={"items": [it.to_json() for it in run],
                                        "launch": self.query.launch,
                                        "summary": "ncu source counters of the unprobed kernel"},
                               binding=self.binding(None), device=True,
                               unavailable="; ".join(miss) or None))
        self.plan.runs["ncu"] = {"items": [it.label() for it in run], "collects": [t.id],
                                 "why": "hardware metrics: ncu replay"}
        self._feed(t.id)

    def add_collections(self, rid, transform_id, run, why, probes: bool, **extra):
        unavailable = self.plan.tasks[transform_id].unavailable
        ids = []
        for rep in range(self.query.repeats):
            t = self.plan.add(Task(self.plan.new_id("collect", f"{rid}-r{rep}"), "collect",
                                   "argus-run", inputs=[transform_id],
                                   options={"run": rid, "repeat": rep, "probes": probes,
                                            "check": not probes and rep == 0,
                                            "launch": self.query.launch, **extra,
                                            "summary": f"argus-run {rid} repeat {rep}"},
                                   binding=self.binding(None, scoped=probes), device=True,
                                   unavailable=unavailable))
            ids.append(t.id)
            self._feed(t.id)
        self.plan.runs[rid] = {"items": [it.label() for it in run], "collects": ids,
                               "why": why or _why_separate(run)}
        self._sync_runs()
        return ids

    def _sync_runs(self):
        if self.synth is not None:
            self.plan.tasks[self.synth].options["runs_items"] = {
                r: v["items"] for r, v in self.plan.runs.items()}
            # A collection's result may come from another plan's run of the
            # same items (run numbers are not part of the key): the report
            # groups results by this plan's numbers.
            self.plan.tasks[self.synth].options["run_of"] = {
                c: r for r, v in self.plan.runs.items() for c in v["collects"]}

    def _feed(self, tid):
        if self.synth is not None:
            self.plan.add_input(self.synth, tid)
        else:
            self.early.append(tid)


def made_regions(run: List[ProbeItem]) -> List[str]:
    """The regions argus-insert-probes makes for the run's site items
    (SiteRegions.cpp): ``SITE`` for a sync site, ``completion:SITE``, and
    ``issue:SITE`` / ``wait:SITE`` for the site trace."""
    out: List[str] = []
    for it in run:
        names = {"sync": [it.site], "completion": [f"completion:{it.site}"],
                 "site-trace": [f"issue:{it.site}", f"wait:{it.site}"]}.get(it.kind, [])
        out += [n for n in names if n not in out]
    return out


def _why_separate(run: List[ProbeItem]) -> str:
    kinds = sorted({it.kind for it in run})
    return f"{len(run)} {'/'.join(kinds)} item(s) batched"
