"""argus.measure: planning, execution, synthesis and attribution without a GPU.

Real tools are replaced by fakes injected through the executor's handlers;
the real argus-opt / argus-run command lines are checked against the
documented option names."""

import json
import os
import re
import threading

import pytest

from argus.measure import (ArtifactStore, LocalExecutor, Planner, ProbeItem, Query, Scope,
                           attribute, conflicts, entropy, make_handlers, partition)
from argus.measure import capabilities as caps
from argus.measure import collect, synthesis, transform
from argus.measure.program import Program, discover_async_sites

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMM2 = os.path.join(ROOT, "examples", "gemm_pipelined_2stage.mlir")
TMA = os.path.join(ROOT, "examples", "sm90a", "gemm_tma_ws.mlir")
LAUNCH = {"kernel": "gemm_pipelined_2stage", "grid": [64, 64, 1], "block": [128, 1, 1],
          "args": [{"name": "A", "dtype": "f16", "shape": [64, 64]}],
          "check": {"kind": "gemm", "A": 0, "B": 0, "C": 0, "M": 64, "N": 64, "K": 64}}
ALL = caps.KNOWN | set(caps.PENDING)


def query(**kw):
    kw.setdefault("asks", [("mainloop", "timeline"), ("wait", "duration"),
                           ("prologue", "duration"), ("epilogue", "duration")])
    kw.setdefault("scope", Scope(iterations=(0, 16)))
    kw.setdefault("launch", LAUNCH)
    return Query(GEMM2, **kw)


# --- planning ---------------------------------------------------------------

def test_conflicting_probes_are_partitioned_and_compatible_ones_batched():
    plan = Planner().plan(query())
    runs = {rid: r["items"] for rid, r in plan.runs.items()}
    timeline = [r for r in runs.values() if any(i.startswith("timeline:") for i in r)]
    # mainloop's timeline (its loop regions) and wait (inside the loop) never share a run
    assert len(timeline) == 2 and all(len(r) == 1 for r in timeline)
    boundary = [r for r in runs.values() if any(i.startswith("boundary:") for i in r)]
    assert boundary == [["boundary:prologue", "boundary:epilogue"]]
    assert conflicts(ProbeItem("timeline", "a"), ProbeItem("boundary", "b"))
    assert conflicts(ProbeItem("boundary", "a"), ProbeItem("boundary", "b")) is None


def test_completion_probes_batch_only_beyond_the_pipeline_depth():
    items = [ProbeItem("completion", "issue", "s", i) for i in range(8)]
    runs = partition(items, depth=2, max_batch=8)
    for run in runs:
        its = sorted(i.iteration for i in run)
        assert all(b - a > 2 for a, b in zip(its, its[1:]))
    assert len(runs) == 3            # 0,3,6 / 1,4,7 / 2,5
    assert sum(len(r) for r in runs) == 8


def test_reference_run_always_present_and_only_it_checks():
    for asks in ([("wait", "duration")], [("prologue", "duration")]):
        plan = Planner().plan(query(asks=asks))
        assert "reference" in plan.runs and plan.runs["reference"]["items"] == []
        ref = [plan.tasks[c] for c in plan.runs["reference"]["collects"]]
        assert ref and ref[0].options["check"] and not ref[0].options["probes"]
        others = [t for t in plan.by_op("argus-run") if t.options["run"] != "reference"]
        assert others and not any(t.options["check"] for t in others)


def test_prerequisites_added_recursively_and_unavailable_reported():
    # A compiler without the site-trace option (an older argus-opt).
    older = caps.KNOWN - {"argus-insert-probes:site-trace"}
    plan = Planner(capabilities=older).plan(query(asks=[("issue", "exposed")]))
    ops = {t.op for t in plan.tasks.values()}
    assert {"analysis:regions", "analysis:async-sites", "expand"} <= ops
    asks = {u["ask"] for u in plan.unavailable}
    # exposed needs completion which needs the site trace: all three named
    assert {"issue:exposed", "issue:completion", "issue:site-trace"} <= asks
    trace = [t for t in plan.by_op("instrument") if "site-trace" in t.options["insert_probes"]]
    assert trace and all(t.unavailable for t in trace)
    assert "site-trace" in " ".join(u for u in (t.unavailable for t in trace))
    # with today's pass options the same plan is available
    plan2 = Planner().plan(query(asks=[("issue", "exposed")]))
    assert not plan2.unavailable and not any(t.unavailable for t in plan2.tasks.values())


def test_expansion_from_discovery_one_query_many_probes():
    q = query(asks=[("produce", "completion")], scope=Scope(iterations=(0, 16)))
    q.program = TMA
    plan = Planner(capabilities=ALL).plan(q)
    targets = discover_async_sites(Program.load(TMA).text, "produce")
    assert len(targets) == 2                  # two TMA loads on the full barrier
    items = [i for r in plan.runs.values() for i in r["items"] if i.startswith("completion:")]
    assert len(items) == 2 * 16               # one per (site, iteration)
    assert len({i for i in items}) == 32


def test_dynamic_expansion_at_execution(tmp_path):
    plan = Planner(capabilities=ALL, eager=False).plan(query(asks=[("issue", "completion")],
                                                             scope=Scope(iterations=(0, 4))))
    before = len(plan.by_op("instrument"))
    calls = []
    h = fake_handlers(calls)
    ex = LocalExecutor(ArtifactStore(str(tmp_path)), workers=2).execute(plan, h)
    inst = plan.by_op("instrument")
    assert len(inst) > before
    sites = sum(len(t.options["items"]) for t in inst
                if t.options["items"][0]["kind"] == "completion")
    assert sites == 4                         # 1 cp.async group x 4 iterations
    assert ex.status(plan.by_op("report")[0].id) == "done"


def test_plan_json_and_text():
    plan = Planner().plan(query())
    j = json.loads(plan.dumps())
    assert j["schema"] == "argus.measure_plan/1"
    kinds = {t["kind"] for t in j["tasks"]}
    # control: the refinement of the batched boundary run (short regions alone)
    assert kinds == {"transform", "collect", "synthesize", "control"}
    assert "reference" in plan.to_text()
    plan.check_acyclic()


def test_query_validation():
    with pytest.raises(ValueError):
        Query(GEMM2, asks=[("wait", "latency")])
    with pytest.raises(ValueError):
        Planner().plan(query(asks=[("nope", "duration")]))
    with pytest.raises(ValueError):
        Scope(iterations=(5, 2))


# --- real command lines -------------------------------------------------------

def _doc_options():
    text = open(os.path.join(ROOT, "docs", "Lowering.md")).read()
    row = next(l for l in text.splitlines() if l.startswith("| `--argus-insert-probes`"))
    pipe = next(l for l in text.splitlines() if l.startswith("| `--argus-to-nvptx`"))
    return (set(re.findall(r"`([a-z-]+)=", row)), set(re.findall(r"`([a-z-]+)=", pipe)))


def test_transform_command_uses_documented_options():
    ip, pipe = _doc_options()
    plan = Planner().plan(query(scope=Scope(iterations=(0, 16), warps=(0, 1))))
    t = [t for t in plan.by_op("instrument") if "iteration-window" in t.options["insert_probes"]][0]
    cmds = transform.instrument_commands("argus-opt", GEMM2, "p.mlir", "m.ptx",
                                         t.options["insert_probes"])
    first = cmds[0][2]
    assert first.startswith("--argus-insert-probes=")
    names = set(re.findall(r"([a-z-]+)=", first.split("=", 1)[1]))
    assert names <= ip and {"regions", "signals", "iteration-window", "scope-warps"} <= names
    assert "iteration-window=0:16" in first and "scope-warps=0,1" in first
    second = cmds[1][2]
    assert second.startswith("--argus-to-nvptx=")
    assert set(re.findall(r"([a-z-]+)=", second.split("=", 1)[1])) <= pipe | {"probes", "dump"}
    # The pipeline keeps the plan the first call recorded (scope included).
    assert second == f"--argus-to-nvptx=probes=1 format=isa dump=m.ptx"
    # pending options are never emitted for available recipes
    assert not set(caps.PENDING) & {f"argus-insert-probes:{n}" for n in names}


@pytest.mark.skipif(not os.path.exists("/work/main/build/bin/argus-opt")
                    and not os.environ.get("ARGUS_OPT"), reason="argus-opt not built")
def test_instrument_command_runs_with_real_argus_opt(tmp_path):
    tool = os.environ.get("ARGUS_OPT", "/work/main/build/bin/argus-opt")
    assert caps.detect(tool) >= {f"argus-insert-probes:{o}" for o in caps.INSERT_PROBES_OPTIONS}
    opts = transform.insert_probes_options([ProbeItem("timeline", "wait")],
                                           Scope(iterations=(0, 16)).to_json(), capacity=64)
    cmd = transform.instrument_commands(tool, GEMM2, str(tmp_path / "p.mlir"),
                                        str(tmp_path / "m.ptx"), opts)[0]
    import subprocess
    subprocess.run(cmd, check=True, capture_output=True)
    out = (tmp_path / "p.mlir").read_text()
    assert "argus_probes" in out and "iteration_hi = 16" in out


@pytest.mark.skipif(not os.path.exists("/work/main/build/bin/argus-opt")
                    and not os.environ.get("ARGUS_OPT"), reason="argus-opt not built")
def test_scope_reaches_the_ptx_with_real_argus_opt(tmp_path):
    # The planner's two calls with a warp scope give the PTX of the pipeline's
    # own scope option, not the unscoped one: the scope is in the kernel.
    tool = os.environ.get("ARGUS_OPT", "/work/main/build/bin/argus-opt")
    assert "argus-to-nvptx:probe-scope-warps" in caps.detect(tool)
    import subprocess
    opts = transform.insert_probes_options([ProbeItem("timeline", "wait")],
                                           Scope(warps=(1,)).to_json(), capacity=64)
    for cmd in transform.instrument_commands(tool, GEMM2, str(tmp_path / "p.mlir"),
                                             str(tmp_path / "planned.ptx"), opts):
        subprocess.run(cmd, check=True, capture_output=True)
    for name, extra in (("scoped", "probe-scope-warps=1 "), ("unscoped", "")):
        subprocess.run([tool, GEMM2, "--argus-to-nvptx=probes=1 probe-regions=wait "
                        f"probe-signals=timeline {extra}dump={tmp_path / name}.ptx",
                        "-o", "/dev/null"], check=True, capture_output=True)
    planned = (tmp_path / "planned.ptx").read_text()
    assert planned != (tmp_path / "unscoped.ptx").read_text()
    assert planned == (tmp_path / "scoped.ptx").read_text()


def test_argus_run_spec_and_command():
    spec = collect.launch_spec(LAUNCH, "/a/m.ptx", name="run01-r0",
                               probes=collect.probes_section(LAUNCH, {3: "wait"}, 64, "globaltimer"))
    assert spec["probes"]["warps_per_block"] == 4 and spec["probes"]["regions"] == {"3": "wait"}
    assert "check" not in spec                 # checked once, in the reference run
    ref = collect.launch_spec(LAUNCH, "/a/m.ptx", name="reference-r0", check=True)
    assert "check" in ref and "probes" not in ref
    runtime_doc = open(os.path.join(ROOT, "docs", "Runtime.md")).read()
    for k in spec["probes"]:
        assert f'"{k}"' in runtime_doc
    cmd = collect.argus_run_command("argus-run", "s.json", "r.json", device=1)
    assert cmd[1:] == ["s.json", "--report", "r.json", "--quiet", "--device", "1"]
    for flag in ("--report", "--quiet", "--device"):
        assert flag in runtime_doc
    with pytest.raises(ValueError):
        collect.launch_spec({"bogus": 1}, "m.ptx", name="x")


# --- execution ------------------------------------------------------------------

def fake_report(run, region_names, base=100.0):
    regs = []
    for i, n in enumerate(region_names):
        its = [{"iteration": k, "count": 10, "mean": base + 10 * i + k, "min": base, "max": base + 50,
                "p50": base, "p90": base} for k in range(20)]
        regs.append({"id": i + 1, "name": n, "unit": "ns", "mean": {"value": base + 10 * i},
                     "p50": {"value": base}, "count": {"value": 200}, "min": {"value": base - 5},
                     "max": {"value": base + 60}, "per_iteration": {"iterations": its},
                     "timelines": {"warps": [{"block": 0, "warp": w, "intervals":
                                              [[0, 5, k] for k in range(20)]} for w in range(4)]}})
    return {"schema": "argus.run_report/1",
            "timing": {"median": {"value": 0.5 + 0.01 * len(region_names), "provenance": "derived"}},
            "check": {"passed": True}, "probes": {"regions": regs} if regs else None}


def fake_handlers(calls, fail=None, lock=None):
    """Fakes for the tool-backed ops; ``fail``: {task-id-substring: times}."""
    real = make_handlers()
    fail = dict(fail or {})
    lock = lock or threading.Lock()

    def maybe_fail(ctx):
        with lock:
            calls.append(ctx.task.id)
            for k, n in fail.items():
                if k in ctx.task.id and n > 0:
                    fail[k] = n - 1
                    raise RuntimeError(f"injected failure of {ctx.task.id}")

    def lower(ctx):
        maybe_fail(ctx)
        open(os.path.join(ctx.workdir, "module.ptx"), "w").write("// fake\n")
        return {"module": "module.ptx"}

    def run(ctx):
        maybe_fail(ctx)
        spec_path, _ = __import__("argus.measure.handlers", fromlist=["x"]).write_spec(ctx)
        spec = json.load(open(spec_path))
        names = list((spec.get("probes") or {}).get("regions", {}).values())
        return {"report": fake_report(ctx.task.options["run"], names), "run": ctx.task.options["run"]}

    def counted(fn):
        def h(ctx):
            maybe_fail(ctx)
            return fn(ctx)
        return h

    h = {k: counted(v) for k, v in real.items()}
    h.update({"lower": lower, "instrument": lower, "argus-run": run})
    return h


def test_execution_report_and_reuse_on_repeated_query(tmp_path):
    store = ArtifactStore(str(tmp_path))
    calls = []
    plan = Planner().plan(query(repeats=2))
    ex = LocalExecutor(store, workers=2).execute(plan, fake_handlers(calls))
    assert ex.ok(), ex.to_json()
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    assert rep["schema"] == "argus.measure_report/1"
    w = rep["regions"]["wait"]["duration"]
    assert w["mean"]["provenance"] == "derived" and w["runs"] == 2
    assert w["mean"]["across_runs"]["n"] == 2
    # iteration window 0:16 applied: 16 iterations x 10 intervals per run
    assert w["intervals"]["value"] == 2 * 16 * 10
    assert rep["kernel"]["time"]["provenance"] == "derived"
    n = len(calls)
    assert n == len(plan.tasks)
    # the same query again: every task is a cache hit, no handler runs
    calls.clear()
    plan2 = Planner().plan(query(repeats=2))
    ex2 = LocalExecutor(store, workers=2).execute(plan2, fake_handlers(calls))
    assert calls == [] and ex2.count("cached") == len(plan2.tasks)
    # another scope changes the keys of what depends on it
    plan3 = Planner().plan(query(repeats=2, scope=Scope(iterations=(0, 8))))
    ex3 = LocalExecutor(store, workers=2).execute(plan3, fake_handlers(calls))
    assert calls and ex3.count("cached") > 0


def test_plans_share_a_run_of_the_same_items_whatever_its_number(tmp_path):
    """Run numbers label runs in their plan; the artifact is keyed by what
    is collected. The iso query's run01 (wait alone) is the full query's
    run of the same item, which the second plan takes from the store and
    reports under its own number."""
    store = ArtifactStore(str(tmp_path))
    calls = []
    iso = Planner().plan(query(asks=[("wait", "duration")]))
    assert LocalExecutor(store).execute(iso, fake_handlers(calls)).ok()
    full = Planner().plan(query())
    rid = next(r for r, v in full.runs.items() if v["items"] == ["timeline:wait"])
    assert rid != "run01"
    calls.clear()
    ex = LocalExecutor(store).execute(full, fake_handlers(calls))
    assert ex.ok(), ex.to_json()
    shared = full.runs[rid]["collects"][0]
    assert ex.outcomes[shared].status == "cached" and shared not in calls
    rep = ex.outcomes[full.by_op("report")[0].id].result
    assert rep["regions"]["wait"]["duration"]["mean"]["value"] is not None


def test_failed_task_reruns_alone(tmp_path):
    store = ArtifactStore(str(tmp_path))
    calls = []
    plan = Planner().plan(query())
    bad = plan.by_op("instrument")[0].id
    ex = LocalExecutor(store).execute(plan, fake_handlers(calls, fail={bad: 1}))
    assert ex.status(bad) == "failed" and ex.outcomes[bad].attempts == 1  # transforms: no retry
    dependents = [t.id for t in plan.dependents(bad)]
    assert dependents and all(ex.status(d) == "skipped" for d in dependents)
    assert store.failure(ex.outcomes[bad].key)
    # rerun: only the failed transform and what depends on it run
    calls.clear()
    plan2 = Planner().plan(query())
    ex2 = LocalExecutor(store).execute(plan2, fake_handlers(calls))
    assert ex2.ok()
    ran = set(calls)
    assert bad in ran and set(dependents) <= ran
    assert plan2.by_op("report")[0].id in ran
    assert len(ran) == 1 + len(dependents) + 1
    assert store.failure(ex2.outcomes[bad].key) is None


def test_collection_retried_once_then_reported(tmp_path):
    store = ArtifactStore(str(tmp_path))
    plan = Planner().plan(query())
    col = [t.id for t in plan.by_op("argus-run") if t.options["run"] != "reference"]
    calls = []
    ex = LocalExecutor(store).execute(plan, fake_handlers(calls, fail={col[0]: 1, col[1]: 2}))
    assert ex.status(col[0]) == "done" and ex.outcomes[col[0]].attempts == 2
    assert ex.status(col[1]) == "failed" and ex.outcomes[col[1]].attempts == 2
    assert len(ex.outcomes[col[1]].errors) == 2
    # the synthesis still runs and names what is missing; nothing collected is lost
    rep = ex.outcomes[plan.by_op("report")[0].id]
    assert rep.status == "done"
    assert {m["task"] for m in rep.result["missing_inputs"]} == {col[1]}
    calls.clear()
    ex2 = LocalExecutor(store).execute(Planner().plan(query()), fake_handlers(calls))
    assert col[1] in calls and col[0] not in calls and ex2.ok()


def test_timeout_counts_as_failure_and_is_retried(tmp_path):
    import subprocess
    plan = Planner().plan(query(asks=[("wait", "duration")]))
    col = [t.id for t in plan.by_op("argus-run") if t.options["run"] != "reference"][0]
    h = fake_handlers([])
    n = {"k": 0}
    inner = h["argus-run"]

    def slow(ctx):
        if ctx.task.id == col and n["k"] == 0:
            n["k"] += 1
            raise subprocess.TimeoutExpired(["argus-run"], ctx.timeout)
        return inner(ctx)
    h["argus-run"] = slow
    ex = LocalExecutor(ArtifactStore(str(tmp_path)), collect_timeout=5).execute(plan, h)
    assert ex.status(col) == "done" and "timed out" in ex.outcomes[col].errors[0]


def test_gpu_collections_serialized_per_device(tmp_path):
    plan = Planner().plan(query(repeats=3))
    h = fake_handlers([])
    active, peak, lk = {}, {"max": 0, "per_dev": 0}, threading.Lock()
    inner = h["argus-run"]

    def run(ctx):
        import time
        with lk:
            active[ctx.device] = active.get(ctx.device, 0) + 1
            peak["per_dev"] = max(peak["per_dev"], active[ctx.device])
            peak["max"] = max(peak["max"], sum(active.values()))
        time.sleep(0.02)
        with lk:
            active[ctx.device] -= 1
        return inner(ctx)
    h["argus-run"] = run
    ex = LocalExecutor(ArtifactStore(str(tmp_path)), workers=4, devices=(0, 1)).execute(plan, h)
    assert ex.ok()
    assert peak["per_dev"] == 1 and peak["max"] == 2


# --- synthesis -------------------------------------------------------------------

def test_completion_join_by_operation_and_iteration():
    probe = {("tma#0", 3): 900.0, ("tma#0", 4): 700.0, ("tma#1", 3): 500.0}
    # reference timestamps live on another run's clock: only their
    # differences within that run matter
    ref = {("tma#0", 3): {"issue": 10_000.0, "wait_begin": 10_400.0},
           ("tma#0", 4): {"issue": 50.0, "wait_begin": 850.0},
           ("tma#1", 4): {"issue": 0.0, "wait_begin": 100.0}}
    j = synthesis.join_completion(probe, ref)
    rows = {(r["site"], r["iteration"]): r for r in j["rows"]}
    assert rows[("tma#0", 3)]["exposed_latency"]["value"] == 500.0
    assert rows[("tma#0", 4)]["exposed_latency"]["value"] == 0.0
    assert j["unmatched"] == [["tma#1", 3]]     # not joined to iteration 4 of tma#1
    assert all(r["exposed_latency"]["provenance"] == "derived" for r in j["rows"])


def test_band_statistics():
    b = synthesis.band([1, 2, 3, 4, 5])
    assert b["mean"] == 3 and b["min"] == 1 and b["p80"] == pytest.approx(4.2)
    assert synthesis.percentile(list(range(1, 101)), 0.5) == 50.5


# --- attribution -------------------------------------------------------------------

def test_attribution_weights_sum_to_totals_and_entropy():
    pc_metrics = {0x10: {"inst": 100, "stall": 40}, 0x20: {"inst": 60, "stall": 6},
                  0x30: {"inst": 30, "stall": 9}, 0x40: {"inst": 7, "stall": 0}}
    pc_regions = {0x10: {"mma": 4}, 0x20: {"mma": 1, "issue": 2}, 0x30: {"issue": 3}}
    a = attribute(pc_metrics, pc_regions)
    for m in ("inst", "stall"):
        s = sum(a["regions"][r][m]["value"] for r in a["regions"])
        assert s + a["unattributed"].get(m, 0) == pytest.approx(a["totals"][m])
    assert a["regions"]["mma"]["inst"]["value"] == pytest.approx(100 + 20)
    assert a["regions"]["issue"]["inst"]["value"] == pytest.approx(40 + 30)
    assert a["unattributed"]["inst"] == 7
    assert all(f["provenance"] == "attributed" for r in a["regions"].values() for f in r.values())
    # unshared only: entropy 0
    solo = attribute({1: {"inst": 5}, 2: {"inst": 3}}, {1: {"a": 2}, 2: {"b": 1}})
    assert solo["regions"]["a"]["inst"]["entropy"] == 0.0
    assert solo["regions"]["b"]["inst"]["entropy"] == 0.0
    h = entropy({"mma": 1 / 3, "issue": 2 / 3})
    assert h == pytest.approx(0.9183, abs=1e-4)
    # mma: 100 inst from an unshared PC, 20 from the shared one
    assert a["regions"]["mma"]["inst"]["entropy"] == pytest.approx(20 * h / 120)
    assert a["regions"]["issue"]["inst"]["entropy"] == pytest.approx(40 * h / 70)


def test_discovery_is_the_compilers_analysis():
    # The key loop's header spans two lines; the text scan this analysis
    # replaced took the loop for straight-line code.
    fa = Program.load(os.path.join(ROOT, "examples", "flash_attention_fwd.mlir"))
    regions = fa.regions()
    assert not regions["kv_loop"].in_loop and regions["load_kv"].in_loop
    assert regions["load_kv"].parent == "kv_loop"
    # TMA copies complete on their own ring's wait (by SSA value).
    tma = Program.load(TMA)
    targets = tma.async_sites("produce")
    assert [t.site for t in targets] == ["tma@produce#0", "tma@produce#1"]
    assert all(t.completion.startswith("argus.mbarrier.wait (line 140)") for t in targets)
    assert tma.pipeline_depth() == 4
    with pytest.raises(ValueError, match="two IDs"):
        Program("""
func.func @a() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  argus.region.begin "r" id 1
  argus.region.end id 1
  return
}
func.func @b() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  argus.region.begin "r" id 2
  argus.region.end id 2
  return
}
""").regions()


def test_sync_signal_end_to_end_with_real_argus_opt(tmp_path):
    """asks=(mainloop, sync): discovery -> sync-sites on argus-insert-probes
    (the pass makes a probed region per site) -> the PTX times them -> the
    run spec names the new regions by the IDs the pass chose -> the report
    gives each site's time."""
    tool = os.environ.get("ARGUS_OPT", os.path.join(ROOT, "build", "bin", "argus-opt"))
    if not os.path.exists(tool):
        pytest.skip("argus-opt not built")
    plan = Planner().plan(query(asks=[("mainloop", "sync"), ("mainloop", "wait")]))
    assert not plan.unavailable, plan.unavailable
    inst = [t for t in plan.by_op("instrument")]
    assert inst and all(not t.unavailable for t in inst)
    sites = {"wait_group@mainloop#0", "barrier@mainloop#0"}
    # the real instrument handler runs both argus-opt calls
    store = ArtifactStore(str(tmp_path / "art"))
    calls = []
    h = fake_handlers(calls)
    h["instrument"] = make_handlers({"argus-opt": tool})["instrument"]
    ex = LocalExecutor(store, workers=1).execute(plan, h)
    assert ex.ok(), ex.to_json()
    t = next(t for t in plan.by_op("instrument") if "sync-sites" in t.options["insert_probes"])
    assert set(t.options["insert_probes"]["sync-sites"].split(",")) == sites
    made = ex.outcomes[t.id].result["probe_regions"]
    assert {made[k] for k in made if made[k] in sites} == sites
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    sync = rep["regions"]["mainloop"]["sync"]
    assert set(sync) == sites and all(v["mean"]["provenance"] == "derived" for v in sync.values())
    wait = rep["regions"]["mainloop"]["wait"]
    assert set(wait["sites"]) == sites and wait["per_iteration"]["iterations"]
    from argus.measure.report import text_summary
    text = text_summary(rep)
    assert "sync       wait_group@mainloop#0: mean" in text and "wait       " in text


def test_site_trace_pairs_issue_and_wait_per_block():
    def reg(name, warps):
        return {"name": name, "timelines": {"warps": warps}}
    rep = {"probes": {"regions": [
        reg("issue:S", [{"block": 0, "warp": 0, "intervals": [[100, 150, 3], [900, 950, 4]]},
                        {"block": 0, "warp": 1, "intervals": [[120, 160, 3]]},
                        {"block": 1, "warp": 0, "intervals": [[200, 230, 3]]},
                        {"block": 2, "warp": 0, "intervals": [[50, 60, 3]]}]),
        reg("wait:S", [{"block": 0, "warp": 4, "intervals": [[400, 900, 3]]},
                       {"block": 1, "warp": 4, "intervals": [[700, 800, 3]]}])]}}
    ref = synthesis.site_trace_from_runs([rep], ["S"])
    # blocks 0 and 1 recorded both (block 2 never waited, iteration 4 has no wait):
    # slack 300 and 500, per block from the first warp's begin
    assert set(ref) == {("S", 3)} and ref[("S", 3)]["blocks"] == 2
    assert ref[("S", 3)]["wait_begin"] - ref[("S", 3)]["issue"] == 400
    probe = synthesis.completion_from_runs(
        {"r1": [{"probes": {"regions": [{"name": "completion:S", "per_iteration": {
            "iterations": [{"iteration": 3, "mean": 900.0}, {"iteration": 4, "mean": 10.0}]}}]}}]},
        [("r1", "S", 3)])
    assert probe == {("S", 3): 900.0}
    j = synthesis.join_completion(probe, ref)
    assert j["rows"][0]["exposed_latency"]["value"] == 500.0
    # A wait at the top of the loop completes the previous iteration's group
    # (distance 1): issue of iteration 3 pairs with the wait of iteration 4.
    rep["probes"]["regions"][1]["timelines"]["warps"].append(
        {"block": 0, "warp": 5, "intervals": [[1000, 1100, 4]]})
    ref1 = synthesis.site_trace_from_runs([rep], ["S"], distance={"S": 1})
    assert set(ref1) == {("S", 3)} and ref1[("S", 3)]["blocks"] == 1
    assert ref1[("S", 3)]["wait_begin"] - ref1[("S", 3)]["issue"] == 900
    assert synthesis.site_trace_from_runs([rep], ["S"], distance={"S": None}) == {}


def test_exposed_latency_end_to_end_with_real_argus_opt(tmp_path):
    """asks=(mainloop, exposed): discovery -> completion-site / site-trace on
    argus-insert-probes (forced waits and trace regions made by the pass) ->
    the run specs name the made regions -> the report joins completion and
    trace by (site, iteration)."""
    tool = os.environ.get("ARGUS_OPT", os.path.join(ROOT, "build", "bin", "argus-opt"))
    if not os.path.exists(tool):
        pytest.skip("argus-opt not built")
    plan = Planner().plan(query(asks=[("mainloop", "exposed")], scope=Scope(iterations=(0, 2))))
    assert not plan.unavailable, plan.unavailable
    store = ArtifactStore(str(tmp_path / "art"))
    h = fake_handlers([])
    h["instrument"] = make_handlers({"argus-opt": tool})["instrument"]
    ex = LocalExecutor(store, workers=1).execute(plan, h)
    assert ex.ok(), ex.to_json()
    site = "cp.async-group@mainloop#0"
    made = set()
    for t in plan.by_op("instrument"):
        made |= set(ex.outcomes[t.id].result["probe_regions"].values())
    assert {f"completion:{site}", f"issue:{site}", f"wait:{site}"} <= made
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    rows = rep["regions"]["mainloop"]["exposed"]["rows"]
    assert {(r["site"], r["iteration"]) for r in rows} == {(site, 0), (site, 1)}
    for r in rows:
        lat, slack = r["completion_latency"]["value"], r["overlap"]["value"]
        assert r["exposed_latency"]["value"] == max(0.0, lat - slack)
        assert r["exposed_latency"]["provenance"] == "derived"


def test_perfetto_trace_lanes_per_warp_role_and_completion_on_the_reference():
    from argus.measure import perfetto
    rep = {"schema": "argus.measure_report/1", "program_version": "v1", "regions": {
        "produce": {
            "timeline": {"load": {"timelines": {"warps": [
                {"block": 0, "warp": 0, "intervals": [[1000, 3000, 0], [4000, 5000, 1]]},
                {"block": 1, "warp": 4, "intervals": [[2000, 2500, 0]]}]}}},
            "site-trace": {"rows": [{"site": "tma@produce#0", "iteration": 0,
                                     "issue": {"value": 1000.0}, "wait_begin": {"value": 1800.0},
                                     "blocks": 2}]},
            "exposed": {"rows": [{"site": "tma@produce#0", "iteration": 0,
                                  "completion_latency": {"value": 1200.0},
                                  "overlap": {"value": 800.0},
                                  "exposed_latency": {"value": 400.0}},
                                 {"site": "tma@produce#0", "iteration": 7,   # no reference
                                  "completion_latency": {"value": 900.0}}]}}}}
    tr = perfetto.to_trace(rep, {0: "producer", 4: "consumer"})
    json.dumps(tr)  # serialisable
    ev = tr["traceEvents"]
    spans = [e for e in ev if e["ph"] == "X" and e.get("cat") == "region"]
    assert [(e["pid"], e["tid"], e["ts"], e["dur"]) for e in spans] == \
        [(0, 0, 1.0, 2.0), (0, 0, 4.0, 1.0), (1, 4, 2.0, 0.5)]
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev if e["ph"] == "M"}
    assert names[(0, 0)] == "warp 0 (producer)" and names[(1, 4)] == "warp 4 (consumer)"
    assert names[(0, None)] == "block 0"
    comp = [e for e in ev if e.get("cat") == "completion"]
    # drawn from the reference issue of the same operation and iteration only
    assert len(comp) == 1 and comp[0]["ts"] == 1.0 and comp[0]["dur"] == 1.2
    assert comp[0]["args"]["exposed_latency"] == 400.0
    assert len([e for e in ev if e.get("cat") == "site-trace"]) == 2


def test_short_boundary_regions_of_a_batched_run_are_measured_again_alone(tmp_path):
    """A batched boundary run measures prologue short (300 ns) and epilogue
    long: the refine control task adds a run with prologue alone, and the
    report takes prologue from it (the batched value is perturbed: 300 there,
    200 alone), epilogue from the batched run."""
    plan = Planner().plan(query(asks=[("prologue", "duration"), ("epilogue", "duration")]))
    refine = plan.by_op("refine")
    assert len(refine) == 1 and refine[0].expands
    batched = [rid for rid, r in plan.runs.items() if len(r["items"]) == 2][0]
    assert refine[0].inputs == plan.runs[batched]["collects"]

    def run(ctx):
        from argus.measure.handlers import write_spec
        spec = json.load(open(write_spec(ctx)[0]))
        names = list((spec.get("probes") or {}).get("regions", {}).values())
        alone = len(names) == 1
        regs = [{"id": i + 1, "name": n, "unit": "ns",
                 "mean": {"value": {"prologue": 200.0 if alone else 300.0}.get(n, 50000.0)},
                 "count": {"value": 4}, "min": {"value": 1}, "max": {"value": 1},
                 "p50": {"value": 1}} for i, n in enumerate(names)]
        return {"report": {"timing": {"median": 0.5}, "check": {"passed": True},
                           "probes": {"regions": regs} if regs else None},
                "run": ctx.task.options["run"]}

    h = fake_handlers([])
    h["argus-run"] = run
    ex = LocalExecutor(ArtifactStore(str(tmp_path)), workers=1).execute(plan, h)
    assert ex.ok(), ex.to_json()
    assert ex.outcomes[refine[0].id].result["targets"] == ["prologue"]
    alone = [rid for rid, r in plan.runs.items() if r["items"] == ["boundary:prologue"]]
    assert len(alone) == 1
    rep = ex.outcomes[plan.by_op("report")[0].id].result
    assert rep["regions"]["prologue"]["duration"]["mean"]["value"] == 200.0
    assert rep["regions"]["epilogue"]["duration"]["mean"]["value"] == 50000.0
    # never with isolate_below_ns=None
    assert not Planner(isolate_below_ns=None).plan(
        query(asks=[("prologue", "duration"), ("epilogue", "duration")])).by_op("refine")


def test_iteration_window_applies_to_loop_regions_only():
    """argus-run reports a region outside loops with one per-iteration entry
    whose iteration is null (seen on the H200): a query's iteration window
    must not drop it (it did: every boundary duration came back missing)."""
    boundary = {"name": "prologue", "unit": "ns", "mean": {"value": 199.0},
                "p50": {"value": 192.0}, "count": {"value": 32}, "min": {"value": 128.0},
                "max": {"value": 288.0},
                "per_iteration": {"iterations": [{"iteration": None, "count": 32, "mean": 199.0,
                                                  "min": 128.0, "max": 288.0}]}}
    rep = {"probes": {"regions": [boundary]}}
    d = synthesis.duration_from_runs([rep], "prologue", window=(0, 16))
    assert d["mean"]["value"] == 199.0 and d["intervals"]["value"] == 32
    loop = dict(boundary, name="wait", per_iteration={"iterations": [
        {"iteration": i, "count": 4, "mean": 10.0 * i, "min": 0.0, "max": 99.0}
        for i in range(32)]})
    w = synthesis.duration_from_runs([{"probes": {"regions": [loop]}}], "wait", window=(0, 16))
    assert w["intervals"]["value"] == 64 and w["mean"]["value"] == 75.0


def test_duration_of_a_region_outside_loops_is_not_taken_from_its_timeline_run():
    """(mainloop, duration) and (mainloop, timeline) in one query: the
    timeline run probes the loop regions mainloop covers, not mainloop, so
    its duration comes from the boundary run (it came back missing)."""
    from argus.measure import report
    runs_items = {"run01": ["boundary:prologue", "boundary:mainloop"],
                  "run02": ["timeline:mainloop"]}
    assert report._run_for("mainloop", "duration", runs_items, in_loop=False) == "run01"
    assert report._run_for("mainloop", "timeline", runs_items, in_loop=False) == "run02"
    loop = {"run01": ["timeline:wait", "boundary:x"], "run02": ["timeline:wait"]}
    assert report._run_for("wait", "duration", loop, in_loop=True) == "run02"


def test_a_rebuilt_compiler_never_reuses_artifacts(tmp_path):
    """Every task is bound to the argus-opt binary's hash: the same query
    with another compiler runs everything again (the artifacts of the old
    one would describe other code)."""
    exe = tmp_path / "argus-opt"
    exe.write_bytes(b"#!/bin/sh\\necho one\\n")
    exe.chmod(0o755)
    one = caps.toolchain_id(str(exe))
    assert one and len(one) == 16 and caps.toolchain_id(str(tmp_path / "none")) is None
    store = ArtifactStore(str(tmp_path / "art"))
    calls = []
    plan = Planner(toolchain=one).plan(query(asks=[("wait", "duration")]))
    assert LocalExecutor(store).execute(plan, fake_handlers(calls)).ok()
    calls.clear()
    same = Planner(toolchain=one).plan(query(asks=[("wait", "duration")]))
    assert LocalExecutor(store).execute(same, fake_handlers(calls)).ok() and calls == []
    exe.write_bytes(b"#!/bin/sh\\necho two\\n")
    two = caps.toolchain_id(str(exe))
    assert two != one
    rebuilt = Planner(toolchain=two).plan(query(asks=[("wait", "duration")]))
    ex = LocalExecutor(store).execute(rebuilt, fake_handlers(calls))
    assert ex.ok() and len(calls) == len(rebuilt.tasks) and ex.count("cached") == 0
