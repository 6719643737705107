"""Agent episodes on an executor (local or Slurm; argus.execution).

Each round the policy proposes up to ``per_round`` variants; every variant
is two tasks of one plan:

* ``agent:build`` (CPU, kind transform): build with the DSL, verify the tag
  invariants, compile; the artifact holds the record, ``module.ptx`` and
  an argus-run ``spec.json`` when the variant can be measured;
* ``agent:measure`` (GPU collection, a ``CommandHandler``): argus-run on
  that spec; its artifact holds ``report.json`` (exit 6, a failed check,
  is a result: the record says ``incorrect``).

The executor runs the round (on Slurm: the builds as one job array, the
measurements batched into one ``--gres=gpu:1`` job), then the records go
to the policy in step order and the next round starts. Artifacts are keyed
by the variant and the task, so a rerun of an episode with the same policy
and artifact directory recomputes nothing.

    loop = AgentLoop(GemmTask(512, 512, 512), KnowledgeBasePolicy(), Budget(steps=8))
    ex = SlurmExecutor(ArtifactStore("/shared/art"), SlurmConfig(partition="gpu"))
    Episode(loop, ex, handlers_ref(loop.task, argus_run="argus-run"), per_round=4).run()
"""

from __future__ import annotations

import json
import os
from typing import Any, List, Optional, Sequence

from ..execution import Command, CommandHandler, Executor, HandlerRef, Plan, Task


def task_json(task) -> dict:
    s = task.shapes
    return {"M": s["M"], "N": s["N"], "K": s["K"], "target": task.target, "atol": task.atol,
            "rtol": task.rtol}


def handlers_ref(task, argus_run: str = "argus-run", argus_run_args: Sequence[str] = (),
                 verify: bool = True) -> HandlerRef:
    """The episode's handlers by name (for worker processes and Slurm jobs)."""
    return HandlerRef("argus.agent.episode:make_handlers",
                      {"task": task_json(task), "argus_run": argus_run,
                       "argus_run_args": list(argus_run_args), "verify": verify})


def _median(timing: dict) -> Optional[float]:
    m = (timing or {}).get("median")
    return m.get("value") if isinstance(m, dict) else m


def make_handlers(task: dict, argus_run: str = "argus-run",
                  argus_run_args: Sequence[str] = (), verify: bool = True) -> dict:
    from . import AgentLoop, GemmTask, Policy, Variant

    gemm = GemmTask(**task)

    def build(ctx):
        v = Variant.from_dict(ctx.task.options["variant"])
        loop = AgentLoop(gemm, Policy(), measure="none", verify=verify)
        rec = loop.evaluate(v)
        ck = getattr(loop, "_last_compiled", None)
        rec["measurable"] = False
        if rec["status"] in ("compiled", "unknown") and ck is not None:
            ck.write(os.path.join(ctx.workdir, "module.ptx"))
            with open(os.path.join(ctx.workdir, "spec.json"), "w") as f:
                json.dump(loop._spec(v, ck, "module.ptx", ck.name), f, indent=1)
            rec["measurable"] = True
        return rec

    class Measure(CommandHandler):
        ok_codes = (0, 6)      # 6: the result check failed (the report is written)

        def prepare(self, ctx):
            b = ctx.task.inputs[0]
            if not (ctx.inputs.get(b) or {}).get("measurable"):
                return []
            files = ctx.input_files(b)
            with open(os.path.join(files, "spec.json")) as f:
                spec = json.load(f)
            spec["module"] = os.path.join(files, "module.ptx")
            with open(os.path.join(ctx.workdir, "spec.json"), "w") as f:
                json.dump(spec, f, indent=1)
            return [Command([argus_run, "spec.json", "--report", "report.json", "--quiet"]
                            + list(argus_run_args), device_flag="--device")]

        def finish(self, ctx, codes):
            if not codes:
                return {"measured": False}
            with open(os.path.join(ctx.workdir, "report.json")) as f:
                rep = json.load(f)
            return {"measured": True, "exit": codes[-1], "time_ms": _median(rep.get("timing")),
                    "passed": (rep.get("check") or {}).get("passed"),
                    "regions": (rep.get("probes") or {}).get("regions")}

    return {"agent:build": build, "agent:measure": Measure()}


class Episode:
    """Runs ``loop``'s policy within its budget on ``executor``, a round of
    ``per_round`` proposals at a time (see the module docstring)."""

    def __init__(self, loop, executor: Executor, handlers, per_round: int = 4):
        self.loop = loop
        self.executor = executor
        self.handlers = handlers
        self.per_round = max(1, per_round)
        self.executions: List[Any] = []

    def plan_round(self, proposals) -> Plan:
        tj = task_json(self.loop.task)
        plan = Plan({"agent": self.loop.task.name, "round": len(self.executions)},
                    self.loop.task.name)
        for step, v, _ in proposals:
            b = plan.add(Task(f"s{step:03d}-build", "transform", "agent:build",
                              options={"variant": v.to_dict(), "task": tj,
                                       "verify": self.loop.do_verify}))
            plan.add(Task(f"s{step:03d}-measure", "collect", "agent:measure", inputs=[b.id],
                          options={"repeat": 0}, device=True))
        return plan

    def run_round(self) -> List[dict]:
        loop = self.loop
        n = min(self.per_round, loop.budget.steps - len(loop.history))
        proposals, pending = [], []
        for _ in range(max(0, n)):
            v = loop.policy.propose(loop.history + pending)
            if v is None:
                break
            step = len(loop.history) + len(proposals)
            proposals.append((step, v, getattr(loop.policy, "note", "")))
            pending.append({"step": step, "variant": v.to_dict(), "status": "pending"})
        if not proposals:
            return []
        plan = self.plan_round(proposals)
        ex = self.executor.execute(plan, self.handlers)
        self.executions.append(ex)
        recs = []
        for step, v, note in proposals:
            bo = ex.outcomes[f"s{step:03d}-build"]
            mo = ex.outcomes[f"s{step:03d}-measure"]
            if bo.result:
                rec = dict(bo.result)
            else:
                rec = {"variant": v.to_dict(), "summary": v.short(), "status": "build_error",
                       "violations": [], "errors": list(bo.errors), "verification": None,
                       "time_ms": None, "tflops": None, "correct": None, "regions": None}
            rec.update(step=step, note=note)
            rec.pop("measurable", None)
            m = mo.result or {}
            if m.get("measured"):
                loop._apply_run(rec, m.get("time_ms"), m.get("passed"), m.get("regions"))
            elif mo.status == "failed":
                rec["status"] = "run_error"
                rec["errors"] = list(rec.get("errors") or []) + mo.errors
            rec["execution"] = {"build": bo.status, "measure": mo.status,
                                "measure_attempts": mo.attempts}
            loop.policy.observe(rec)
            loop.history.append(rec)
            loop._log(rec)
            recs.append(rec)
        return recs

    def run(self) -> List[dict]:
        while len(self.loop.history) < self.loop.budget.steps:
            if not self.run_round():
                break
        return self.loop.history
