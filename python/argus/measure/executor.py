"""Executing plans.

The interface a backend implements is one method::

    class Executor:
        def execute(self, plan: Plan, handlers: Handlers) -> Execution

``handlers`` maps a task's ``op`` to a function ``fn(ctx) -> result``
(``TaskContext``: the task, its inputs' results, a scratch directory whose
files become part of the artifact, the device for a GPU collection, a
timeout). Handlers are the only place that touches tools (handlers.py has
the real ones: argus-opt, argus-run, ncu); tests inject fakes. A backend
decides *where* a handler runs; the semantics every backend keeps:

* dependency-driven: a task starts when its inputs are done; a
  ``synthesize`` task starts when its inputs are terminal in any state
  (the report says what is missing); any other task whose input failed or
  is unavailable is ``skipped``;
* artifacts are content-addressed (artifacts.py): a task whose artifact
  exists is ``cached`` and not run, so a repeated query reuses everything
  and a rerun after a failure runs only what did not finish;
* a ``collect`` task that raises (a crash, a non-zero exit, a timeout) is
  retried once (``retries``); a second failure is recorded (``failed.json``)
  and reported; other tasks are not retried;
* ``device`` tasks hold one device lock while they run (one collection per
  GPU at a time; with several devices, several collections run at once);
* a control task with ``expands`` calls ``plan.expand(plan, task, result)``
  and the new tasks join the schedule.

``LocalExecutor`` runs everything in this process: a thread pool for the
tasks (CPU work concurrently; collections start subprocesses, so each GPU
run is an isolated process) and a queue of free devices as the per-GPU
locks. A Slurm backend (issue 14) implements ``execute`` by submitting
the same handlers as jobs and keeping the same store.
"""

from __future__ import annotations

import abc
import concurrent.futures as cf
import dataclasses
import queue
import subprocess
import threading
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

from .artifacts import ArtifactStore, task_key
from .plan import Plan, Task

TERMINAL = ("done", "cached", "failed", "skipped", "unavailable")


class TaskFailed(Exception):
    pass


@dataclasses.dataclass
class TaskContext:
    task: Task
    inputs: Dict[str, Any]          # input task id -> its result (None if it did not finish)
    input_status: Dict[str, str]
    workdir: str
    key: str
    store: ArtifactStore
    device: Optional[int] = None
    timeout: Optional[float] = None
    attempt: int = 1

    def input_files(self, task_id: str) -> Optional[str]:
        """The files directory of an input's artifact."""
        k = self.input_keys.get(task_id)
        return self.store.files(k) if k else None

    input_keys: Dict[str, str] = dataclasses.field(default_factory=dict)


Handlers = Dict[str, Callable[[TaskContext], Any]]


@dataclasses.dataclass
class TaskOutcome:
    status: str = "planned"
    key: Optional[str] = None
    result: Any = None
    attempts: int = 0
    errors: List[str] = dataclasses.field(default_factory=list)
    device: Optional[int] = None
    seconds: float = 0.0


@dataclasses.dataclass
class Execution:
    plan: Plan
    outcomes: Dict[str, TaskOutcome]

    def status(self, task_id: str) -> str:
        return self.outcomes[task_id].status

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes.values() if o.status == status)

    def ok(self) -> bool:
        return not any(o.status in ("failed", "skipped") for o in self.outcomes.values())

    def summary(self) -> dict:
        return {s: self.count(s) for s in TERMINAL if self.count(s)}

    def to_json(self) -> dict:
        return {tid: {"status": o.status, "key": o.key, "attempts": o.attempts,
                      "errors": o.errors, "device": o.device, "seconds": round(o.seconds, 3)}
                for tid, o in self.outcomes.items()}


class Executor(abc.ABC):
    @abc.abstractmethod
    def execute(self, plan: Plan, handlers: Handlers) -> Execution:
        """Run ``plan`` with ``handlers`` (see the module docstring)."""


class LocalExecutor(Executor):
    def __init__(self, store: ArtifactStore, workers: int = 2, devices=(0,),
                 collect_timeout: Optional[float] = 600.0, retries: int = 1):
        self.store = store
        self.workers = max(1, workers)
        self.devices = list(devices)
        self.collect_timeout = collect_timeout
        self.retries = retries

    def execute(self, plan: Plan, handlers: Handlers) -> Execution:
        out: Dict[str, TaskOutcome] = {tid: TaskOutcome() for tid in plan.tasks}
        free: "queue.Queue[int]" = queue.Queue()
        for d in self.devices:
            free.put(d)
        lock = threading.Lock()
        running: Dict[cf.Future, str] = {}
        with cf.ThreadPoolExecutor(max_workers=self.workers + len(self.devices)) as pool:
            while True:
                for tid in list(plan.tasks):
                    out.setdefault(tid, TaskOutcome())
                progressed = self._schedule(plan, handlers, out, pool, running, free, lock)
                if not running:
                    if not progressed:
                        break
                    continue
                done, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    tid = running.pop(fut)
                    fut.result()   # _run records everything; re-raise only bugs
                    t = plan.tasks[tid]
                    o = out[tid]
                    if t.expands and o.status in ("done", "cached") and plan.expand:
                        plan.expand(plan, t, (o.result or {}).get("targets", []))
        return Execution(plan, out)

    # -- scheduling -----------------------------------------------------
    def _schedule(self, plan, handlers, out, pool, running, free, lock) -> bool:
        progressed = False
        busy = set(running.values())
        for tid, t in plan.tasks.items():
            o = out[tid]
            if o.status != "planned" or tid in busy:
                continue
            if t.unavailable:
                o.status = "unavailable"
                o.errors.append(t.unavailable)
                progressed = True
                continue
            states = [out[i].status for i in t.inputs]
            if any(s not in TERMINAL for s in states):
                continue
            if t.kind != "synthesize" and any(s not in ("done", "cached") for s in states):
                o.status = "skipped"
                bad = [i for i in t.inputs if out[i].status not in ("done", "cached")]
                o.errors.append(f"input(s) not available: {', '.join(bad)}")
                progressed = True
                continue
            if t.kind == "synthesize" and any(
                    plan.tasks[i].expands and i not in busy and out[i].status == "planned"
                    for i in t.inputs):
                continue
            o.key = task_key(t.kind, t.op, t.options, t.binding,
                             [out[i].key if out[i].status in ("done", "cached") else
                              f"missing:{plan.tasks[i].op}:{out[i].status}" for i in t.inputs])
            if self.store.has(o.key):
                rec = self.store.load(o.key)
                o.status, o.result = "cached", rec["result"]
                progressed = True
                continue
            if t.op not in handlers:
                o.status = "failed"
                o.errors.append(f"no handler for op {t.op!r}")
                progressed = True
                continue
            o.status = "running"
            fut = pool.submit(self._run, plan, t, handlers[t.op], out, free)
            running[fut] = tid
            progressed = True
        return progressed

    def _run(self, plan: Plan, t: Task, fn, out, free) -> None:
        o = out[t.id]
        tries = 1 + (self.retries if t.kind == "collect" else 0)
        meta = {"task": t.to_json()}
        t0 = time.time()
        for attempt in range(1, tries + 1):
            o.attempts = attempt
            work = self.store.workdir(o.key)
            device = free.get() if t.device else None
            o.device = device
            try:
                ctx = TaskContext(t, {i: out[i].result for i in t.inputs},
                                  {i: out[i].status for i in t.inputs}, work, o.key, self.store,
                                  device, self.collect_timeout if t.kind == "collect" else None,
                                  attempt, {i: out[i].key for i in t.inputs if out[i].key})
                result = fn(ctx)
            except Exception as e:  # noqa: BLE001 - every failure is recorded
                if isinstance(e, subprocess.TimeoutExpired):
                    msg = f"attempt {attempt}: timed out after {e.timeout} s"
                else:
                    msg = f"attempt {attempt}: {type(e).__name__}: {e}"
                o.errors.append(msg)
                self.store.fail(o.key, work, msg + "\n" + traceback.format_exc(), meta)
                continue
            finally:
                if device is not None:
                    free.put(device)
            self.store.commit(o.key, work, result, {**meta, "attempts": attempt,
                                                    "device": device})
            o.result, o.status = result, "done"
            o.seconds = time.time() - t0
            return
        o.status = "failed"
        o.seconds = time.time() - t0
