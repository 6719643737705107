"""The agent loop: propose a kernel variant, build it with the DSL, verify
its tag invariants, compile it, measure it (here, or as a batch for
``argus-run --batch`` on a GPU host), and feed the record back to the policy.

    task = GemmTask(M=1024, N=1024, K=1024)
    loop = AgentLoop(task, KnowledgeBasePolicy(start=Variant(wait=1)), Budget(steps=10))
    records = loop.run()

See docs/Python.md for the record schema and the Policy interface.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import argus
from .gemm import Variant, build_gemm, copy_layout  # noqa: F401
from .knowledge import KNOWLEDGE_BASE, applicable, apply
from .repair import RULES, propose_repair  # noqa: F401


@dataclasses.dataclass
class Task:
    """What to optimise: a reference function, shapes and a tolerance."""
    name: str
    shapes: Dict[str, int]
    reference: Callable
    atol: float = 1e-2
    rtol: float = 1e-2
    target: str = "sm_90a"

    def flops(self) -> float:
        return 0.0


@dataclasses.dataclass
class GemmTask(Task):
    """C[M,N] = A[M,K] @ B[K,N], f16 inputs, f32 output, row-major."""

    def __init__(self, M=1024, N=1024, K=1024, target="sm_90a", atol=1e-2, rtol=1e-2):
        super().__init__(name=f"gemm_{M}x{N}x{K}", shapes={"M": M, "N": N, "K": K},
                         reference=lambda A, B: A.astype("float32") @ B.astype("float32"),
                         atol=atol, rtol=rtol, target=target)

    def flops(self) -> float:
        s = self.shapes
        return 2.0 * s["M"] * s["N"] * s["K"]

    def fits(self, v: Variant) -> Optional[str]:
        s = self.shapes
        if s["M"] % v.tile_m or s["N"] % v.tile_n or s["K"] % v.tile_k:
            return "the problem is not a multiple of the tile"
        if s["K"] // v.tile_k < v.stages:
            return "fewer k-slabs than pipeline stages"
        if v.wg_swizzle > 1 and (s["M"] // v.tile_m) % v.wg_swizzle:
            return "block rows are not a multiple of the workgroup-swizzle group"
        return None

    def check_spec(self) -> dict:
        s = self.shapes
        return {"kind": "gemm", "A": 0, "B": 3, "C": 6, "M": s["M"], "N": s["N"], "K": s["K"],
                "layout": "row-major", "atol": self.atol, "rtol": self.rtol}


@dataclasses.dataclass
class Budget:
    """``steps``: records in the history (including restored ones) at which
    ``run()`` stops; ``seconds``: wall-clock limit of one ``run()``."""
    steps: int = 10
    seconds: Optional[float] = None


class Policy:
    """The interface a policy implements (the built-in one, or a user's,
    e.g. one that asks an LLM)."""

    def propose(self, history: List[dict]) -> Optional[Variant]:
        """The next variant to try, given every record so far (None: stop)."""
        raise NotImplementedError

    def observe(self, record: dict) -> None:
        """The record of the last proposal (also called again when batch
        measurements arrive, with ``record["update"] = True``)."""


class KnowledgeBasePolicy(Policy):
    """Bandit search over the knowledge base from the best verified variant,
    with counterexample-guided repair of violated variants.

    * A violated record whose counterexample matches a repair rule is
      repaired first (the fix and its reason go into ``note``).
    * Otherwise each knowledge-base entry is an arm of a UCB1 bandit;
      reward 1 for a verified build (scaled by relative speed once measured),
      0 for a failure. The chosen move is applied to the incumbent (best
      verified variant so far; the start variant before that)."""

    def __init__(self, start: Optional[Variant] = None, kb: Sequence[dict] = KNOWLEDGE_BASE,
                 seed: int = 0, c: float = 1.0):
        self.start = start or Variant()
        self.kb = [e for e in kb if applicable(e, self.start.target)]
        self.rng = random.Random(seed)
        self.c = c
        self.counts = {e["name"]: 0 for e in self.kb}
        self.rewards = {e["name"]: 0.0 for e in self.kb}
        self.tried = set()
        self.pending_repair = None
        self.incumbent: Optional[Variant] = None
        self.best_time: Optional[float] = None
        self.note = ""
        self._arm_of: Dict[str, str] = {}

    def _ucb(self, name: str, total: int) -> float:
        n = self.counts[name]
        if n == 0:
            return float("inf")
        return self.rewards[name] / n + self.c * math.sqrt(2 * math.log(max(total, 1)) / n)

    def propose(self, history):
        if not history:
            self.note = "start variant"
            self.tried.add(self.start.key())
            return self.start
        if self.pending_repair is not None:
            v, self.pending_repair = self.pending_repair, None
            if v.key() not in self.tried:
                self.tried.add(v.key())
                return v
        base = self.incumbent or self.start
        total = sum(self.counts.values())
        arms = sorted(self.kb, key=lambda e: (-self._ucb(e["name"], total), self.rng.random()))
        for e in arms:
            v = apply(e, base)
            if v.key() in self.tried:
                continue
            self.tried.add(v.key())
            self.note = f"knowledge base: {e['name']} ({e['category']})"
            self._arm_of[v.key()] = e["name"]
            self.counts[e["name"]] += 1
            return v
        return None

    def observe(self, record):
        v = Variant.from_dict(record["variant"])
        arm = self._arm_of.get(v.key())
        ok = record["status"] in ("verified", "compiled", "measured", "pending")
        correct = record.get("correct") is not False
        t = record.get("time_ms")
        # Only variants whose checks are all proved (or that could not be
        # verified at all) become the incumbent; "unknown" ones are measured
        # but never preferred.
        proved = (record.get("verification") or {}).get("proved", True)
        if record.get("update"):
            # A batch measurement arrived: credit the speed.
            if t and correct and proved:
                if self.best_time is None or t < self.best_time:
                    self.best_time = t
                    self.incumbent = v
                if arm:
                    self.rewards[arm] += self.best_time / t
            return
        if ok and correct and proved:
            if arm:
                self.rewards[arm] += 1.0
            better = self.incumbent is None or (t is not None and (self.best_time is None or
                                                                   t < self.best_time))
            if better:
                self.incumbent = v
                if t is not None:
                    self.best_time = t
        if record["status"] == "violated":
            fix = propose_repair(record, v)
            if fix is not None:
                changes, why = fix
                self.pending_repair = v.replace(**changes)
                self.note = "repair: " + why
                record.setdefault("policy", {})["next_repair"] = why


def _check_dict(c) -> dict:
    return {"kind": c.kind, "predicate": c.predicate, "op": c.op, "location": c.location,
            "python_line": c.py_line, "status": c.status, "reason": c.reason,
            "counterexamples": [cx.raw for cx in c.counterexamples]}


class AgentLoop:
    """Runs a policy on a task within a budget; see the module docstring.

    ``measure``: "auto" (run locally when a GPU and argus-run exist, else
    write a batch when ``batch_dir`` is set), "local", "batch" or "none"."""

    def __init__(self, task: GemmTask, policy: Policy, budget: Budget = Budget(),
                 log_path: Optional[str] = None, measure: str = "auto",
                 batch_dir: Optional[str] = None, verify: bool = True, compile: bool = True):
        self.task = task
        self.policy = policy
        self.budget = budget
        self.log_path = log_path
        self.measure = measure
        self.batch_dir = batch_dir
        self.do_verify = verify
        self.do_compile = compile
        self.history: List[dict] = []

    # -- one step ----------------------------------------------------------
    def evaluate(self, v: Variant) -> dict:
        rec: Dict[str, Any] = {"step": len(self.history), "variant": v.to_dict(),
                               "summary": v.short(), "status": None, "violations": [],
                               "errors": [], "verification": None, "time_ms": None,
                               "tflops": None, "correct": None, "regions": None,
                               "note": getattr(self.policy, "note", "")}
        t0 = time.time()
        why = self.task.fits(v)
        if why:
            rec.update(status="rejected", errors=[why])
            return rec
        try:
            k = build_gemm(v)
            k.module()
        except argus.FeatureUnavailable as e:
            rec.update(status="unsupported", errors=[str(e)])
            return rec
        except argus.ArgusError as e:
            rec.update(status="build_error", errors=[str(e)])
            return rec
        rec["kernel"] = k.name
        if self.do_verify:
            try:
                r = k.verify(raise_on_violation=False)
                rec["verification"] = {"summary": r.summary(), "proved": r.proved,
                                       "unknown": [_check_dict(c) for c in r.unknown]}
                rec["violations"] = [_check_dict(c) for c in r.violated]
                if r.violated:
                    rec["status"] = "violated"
                    rec["verify_s"] = round(time.time() - t0, 3)
                    return rec
                rec["status"] = "verified" if r.proved else "unknown"
            except argus.FeatureUnavailable as e:
                rec["status"] = "unverified"
                rec["errors"].append(str(e))
            except argus.ArgusError as e:
                rec.update(status="verify_error")
                rec["errors"].append(str(e))
                return rec
        rec["verify_s"] = round(time.time() - t0, 3)
        if not self.do_compile:
            return rec
        try:
            ck = k.compile()
            rec["asm_bytes"] = len(ck.asm)
            self._last_compiled = ck
        except argus.FeatureUnavailable as e:
            rec["errors"].append(str(e))
            return rec
        except argus.ArgusError as e:
            rec["status"] = "compile_error"
            rec["errors"].append(str(e))
            return rec
        if rec["status"] == "verified":
            rec["status"] = "compiled"
        self._measure(rec, v, ck)
        return rec

    def _spec(self, v: Variant, ck, module_path: str, name: str) -> dict:
        s = self.task.shapes
        return ck.launch_spec(module_path, s, v.grid(s["M"], s["N"]), name=name,
                              check=self.task.check_spec(), outputs=("C",))

    def _measure(self, rec: dict, v: Variant, ck) -> None:
        mode = self.measure
        if mode == "auto":
            from .. import runtime as _runtime
            from ..compile import find_argus_run, gpu_available
            runner = _runtime.available() or find_argus_run()
            mode = "local" if gpu_available() and runner else (
                "batch" if self.batch_dir else "none")
        if mode == "batch" and self.batch_dir and rec["status"] in ("compiled", "unknown"):
            os.makedirs(self.batch_dir, exist_ok=True)
            name = f"step{rec['step']:03d}"
            ptx = os.path.join(self.batch_dir, name + ".ptx")
            ck.write(ptx)
            with open(os.path.join(self.batch_dir, name + ".json"), "w") as f:
                json.dump(self._spec(v, ck, name + ".ptx", name), f, indent=1)
            rec["batch"] = name
            rec["batch_dir"] = os.path.abspath(self.batch_dir)
            rec["status"] = "pending"
        elif mode == "local" and rec["status"] in ("compiled", "unknown"):
            rep, error = self._run_local(v, ck)
            if rep is None:
                rec["errors"].append(error)
            else:
                from ..compile import _value
                self._apply_run(rec, _value((rep.get("timing") or {}).get("median")),
                                (rep.get("check") or {}).get("passed"),
                                (rep.get("probes") or {}).get("regions"))

    def _run_local(self, v: Variant, ck):
        """(run report, None) of one variant on this machine's GPU, or (None,
        error). In process through the runtime library, as
        ``CompiledKernel.run`` does; through an ``argus-run`` process only
        when ``$ARGUS_RUN`` is set or the library is not built."""
        from .. import runtime as _runtime
        if not os.environ.get("ARGUS_RUN") and _runtime.available():
            try:
                return _runtime.run(self._spec(v, ck, "k.ptx", ck.name), ck.binary).report, None
            except _runtime.RuntimeFailure as e:
                return None, f"run failed ({e.kind}): {str(e)[-500:]}"
        import subprocess
        import tempfile
        from ..compile import find_argus_run
        with tempfile.TemporaryDirectory() as d:
            ck.write(os.path.join(d, "k.ptx"))
            with open(os.path.join(d, "s.json"), "w") as f:
                json.dump(self._spec(v, ck, "k.ptx", ck.name), f)
            p = subprocess.run([find_argus_run(), os.path.join(d, "s.json"), "--report",
                                os.path.join(d, "r.json"), "--quiet"], capture_output=True,
                               text=True)
            if not os.path.exists(os.path.join(d, "r.json")):
                return None, f"argus-run failed ({p.returncode}): {p.stderr[-500:]}"
            with open(os.path.join(d, "r.json")) as f:
                return json.load(f), None

    def _apply_run(self, rec, time_ms, passed, regions):
        rec["time_ms"] = time_ms
        rec["correct"] = passed
        rec["regions"] = regions
        if time_ms:
            rec["tflops"] = self.task.flops() / (time_ms * 1e-3) / 1e12
        rec["status"] = "measured" if passed is not False else "incorrect"

    # -- the loop -------------------------------------------------------------
    def step(self) -> Optional[dict]:
        v = self.policy.propose(self.history)
        if v is None:
            return None
        rec = self.evaluate(v)
        self.policy.observe(rec)
        self.history.append(rec)
        self._log(rec)
        return rec

    def run(self) -> List[dict]:
        t0 = time.time()
        while len(self.history) < self.budget.steps:
            if self.budget.seconds is not None and time.time() - t0 > self.budget.seconds:
                break
            if self.step() is None:
                break
        return self.history

    def _log(self, rec: dict) -> None:
        if self.log_path:
            with open(self.log_path, "a") as f:
                f.write(json.dumps(rec, default=str) + "\n")

    # -- batch measurement ------------------------------------------------------
    def resume(self, batch_dir: Optional[str] = None) -> int:
        """Read ``DIR/results.json`` written by ``argus-run --batch DIR`` and
        update the pending records (and tell the policy). Returns how many
        records were updated."""
        d = batch_dir or self.batch_dir
        path = os.path.join(d, "results.json")
        with open(path) as f:
            try:
                res = json.load(f)
            except ValueError as e:
                raise ValueError(f"{path} is not valid JSON: {e}") from None
        if not isinstance(res, dict) or not isinstance(res.get("results", []), list) or \
                not all(isinstance(r, dict) for r in res.get("results", [])):
            raise ValueError(f"{path} is not an argus-run --batch results file "
                             "(expected an object with a list of result objects)")
        by_name = {r.get("name"): r for r in res.get("results", [])}
        n = 0
        for rec in self.history:
            r = by_name.get(rec.get("batch"))
            if r is None or rec["status"] != "pending":
                continue
            if rec.get("batch_dir") and os.path.abspath(d) != rec["batch_dir"]:
                continue
            if r.get("status") == "error":
                rec["status"] = "run_error"
                rec["errors"].append(json.dumps(r.get("error")))
            else:
                tm = (r.get("time_ms") or {}).get("median")
                self._apply_run(rec, tm, (r.get("check") or {}).get("passed"), r.get("probes"))
            upd = dict(rec, update=True)
            self.policy.observe(upd)
            self._log(upd)
            n += 1
        return n

    def load_history(self, log_path: str) -> None:
        """Restore the history (and policy state) from a JSON-lines log.
        Raises ValueError naming the line when the log is not one this loop
        wrote (nothing is restored then)."""
        records = []
        with open(log_path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    raise ValueError(f"{log_path}:{n}: not a JSON record ({e})") from None
                if not isinstance(rec, dict) or not isinstance(rec.get("step"), int) or \
                        (not rec.get("update") and not isinstance(rec.get("variant"), dict)) \
                        or not isinstance(rec.get("status", ""), str):
                    raise ValueError(f"{log_path}:{n}: not an argus-agent record (needs "
                                     "'step', 'status' and 'variant')")
                if not rec.get("update"):
                    try:
                        Variant.from_dict(rec["variant"])
                    except (TypeError, ValueError, KeyError) as e:
                        raise ValueError(f"{log_path}:{n}: invalid variant ({e})") from None
                records.append(rec)
        for rec in records:
            if rec.get("update"):
                for h in self.history:
                    if h["step"] == rec["step"]:
                        h.update({k: v for k, v in rec.items() if k != "update"})
                self.policy.observe(rec)
                continue
            self.history.append(rec)
            if isinstance(self.policy, KnowledgeBasePolicy):
                v = Variant.from_dict(rec["variant"])
                self.policy.tried.add(v.key())
            self.policy.observe(rec)

    def best(self) -> Optional[dict]:
        def proved(r):
            return (r.get("verification") or {}).get("proved", True)
        ok = [r for r in self.history
              if r["status"] == "measured" and r.get("time_ms") and proved(r)]
        if ok:
            return min(ok, key=lambda r: r["time_ms"])
        ok = [r for r in self.history if r["status"] in ("compiled", "verified", "pending")]
        return ok[0] if ok else None


def format_table(records: List[dict]) -> str:
    rows = [("step", "variant", "status", "checks", "time_ms", "TFLOP/s", "note")]
    for r in records:
        ver = (r.get("verification") or {}).get("summary", "")
        if r["status"] == "violated":
            ver = f"{len(r['violations'])} violated: " + ", ".join(
                sorted({f"{c['kind']}@{c['op']}:{c['python_line']}" for c in r["violations"]}))
        t = f"{r['time_ms']:.4f}" if r.get("time_ms") else "-"
        tf = f"{r['tflops']:.1f}" if r.get("tflops") else "-"
        note = r.get("note", "")
        if r.get("errors") and r["status"] not in ("compiled", "pending", "measured"):
            note = (note + " | " if note else "") + r["errors"][0].splitlines()[0][:80]
        rows.append((str(r["step"]), r["summary"], r["status"], ver, t, tf, note))
    w = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        out.append("  ".join(c.ljust(w[i]) for i, c in enumerate(row[:-1])) + "  " + row[-1])
    return "\n".join(out)


def format_regions(regions: Optional[List[dict]], limit: int = 8) -> List[str]:
    """The region report of a measured variant (argus-run's ``probes.regions``)
    as lines for a model or a person: each region's mean interval, how many
    intervals, and its share of the probed time (nested regions count in
    their parents too), the largest first; regions inside loops also give
    their first and last iteration's mean."""
    from ..compile import _value
    rows = []
    for r in regions or []:
        mean, count = _value(r.get("mean")), _value(r.get("count"))
        if mean is None or not count:
            continue
        total = _value(r.get("total"))
        rows.append((total if total is not None else mean * count, r, mean, count))
    if not rows:
        return []
    whole = sum(t for t, *_ in rows) or 1.0
    out = []
    for total, r, mean, count in sorted(rows, key=lambda x: -x[0])[:limit]:
        line = (f"  region {r.get('name')}: mean {mean:.0f} {r.get('unit', '')} over {count} "
                f"intervals, {total / whole:.0%} of the probed time")
        its = (r.get("per_iteration") or {}).get("iterations") or []
        if len(its) > 1:
            line += (f"; iteration {its[0]['iteration']}: {its[0]['mean']:.0f}, "
                     f"iteration {its[-1]['iteration']}: {its[-1]['mean']:.0f}")
        out.append(line)
    return out


def format_feedback(record: dict) -> str:
    """One step record as text for a model: the status, the verification
    results with one counterexample per violation (thread, slot, block,
    loop iterations, elements with their tags, the program point), errors,
    the time, and where the time goes (the variant's region report, when it
    was measured with probes)."""
    lines = [f"attempt {record['step']}: {record['summary']} -> {record['status']}"]
    ver = record.get("verification") or {}
    if ver.get("summary"):
        lines.append(f"  verification: {ver['summary']}")
    for c in record.get("violations", []):
        lines.append(f"  VIOLATED {c['kind']}: {c['predicate']}")
        lines.append(f"    at {c['op']} ({c['location']})")
        for cx in c.get("counterexamples", [])[:1]:
            blk = cx.get("block", {})
            lines.append(f"    thread {cx.get('thread')} (warp {cx.get('warp')}, lane "
                         f"{cx.get('lane')}), slot {cx.get('slot')}, block {blk}")
            for l in cx.get("loops", []):
                lines.append(f"    loop {l.get('loop')} iteration {l.get('iv')}")
            for e in cx.get("elements", []):
                lines.append(f"    element {e.get('operand')} {e.get('tile_coords')} "
                             f"{e.get('memory', '')} tags {e.get('tags')}")
            for n in cx.get("notes", []):
                lines.append(f"    note: {n}")
    for e in record.get("errors", []):
        lines.append(f"  error: {e.splitlines()[0]}")
    if record.get("time_ms"):
        lines.append(f"  time {record['time_ms']:.4f} ms, correct={record.get('correct')}")
    lines += format_regions(record.get("regions"))
    return "\n".join(lines)
