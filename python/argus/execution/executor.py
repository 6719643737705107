"""Executing plans: the interface shared by the measurement planner
(argus.measure) and the agent loop (argus.agent.episode).

The interface a backend implements is one method::

    class Executor:
        def execute(self, plan: Plan, handlers) -> Execution

``handlers`` maps a task's ``op`` to a function ``fn(ctx) -> result``
(``TaskContext``: the task, its inputs' results, a scratch directory whose
files become part of the artifact, the device for a GPU collection, a
timeout), or is a ``HandlerRef`` ("module:factory" plus keyword arguments)
that any process can import to build that dict: a worker process or a
batch job runs CPU tasks from a ``HandlerRef``. Handlers are the only place
that touches tools; tests inject fakes. A GPU collection's handler may be
a ``CommandHandler``: ``prepare(ctx)`` writes the inputs (an argus-run
spec) and returns the commands, ``finish(ctx, codes)`` reads the outputs
into the result; locally it is called like any handler, on a batch system
the commands run in a job script that needs nothing but the tools they
name (argus-run; no Python, no MLIR). Backends:

* ``LocalExecutor`` (this module): CPU tasks in a process pool (threads
  when the handlers are a plain dict of closures), one worker per local
  GPU for collections;
* ``SlurmExecutor`` (slurm.py): CPU tasks as job arrays, GPU collections
  batched into ``--gres=gpu:1`` jobs, status from sacct / squeue;
* ``OfflineExecutor`` (offline.py): CPU tasks here, ready GPU collections
  written into one script that a person runs on a GPU host; they wait
  (status ``waiting``) until an execution finds their results.

The semantics every backend keeps:

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
* ``device`` tasks hold one device while they run (one collection per
  GPU at a time; with several devices, several collections run at once);
* a control task with ``expands`` calls ``plan.expand(plan, task, result)``
  and the new tasks join the schedule.
"""

from __future__ import annotations

import abc
import concurrent.futures as cf
import dataclasses
import importlib
import json
import multiprocessing
import os
import queue
import subprocess
import threading
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

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
    info: Dict[str, Any] = dataclasses.field(default_factory=dict)   # backend details

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
    def execute(self, plan: Plan, handlers) -> Execution:
        """Run ``plan`` with ``handlers`` (see the module docstring)."""


# --- handlers that other processes can rebuild ------------------------------------

@dataclasses.dataclass
class HandlerRef:
    """Handlers by name: ``factory`` is "package.module:function", called
    with ``kwargs`` (JSON values) to build the op -> handler dict. A worker
    process, or a batch job on another node, imports it the same way."""
    factory: str
    kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)

    def resolve(self) -> Dict[str, Callable]:
        mod, _, fn = self.factory.partition(":")
        if not mod or not fn:
            raise ValueError(f"handler factory {self.factory!r} is not 'module:function'")
        return getattr(importlib.import_module(mod), fn)(**self.kwargs)

    def to_json(self) -> dict:
        return {"factory": self.factory, "kwargs": self.kwargs}

    @classmethod
    def from_json(cls, d: dict) -> "HandlerRef":
        return cls(d["factory"], dict(d.get("kwargs") or {}))


Handlers = Union[Dict[str, Callable[[TaskContext], Any]], HandlerRef]
_RESOLVED: Dict[str, Dict[str, Callable]] = {}


def resolve_handlers(handlers: Handlers) -> Tuple[Dict[str, Callable], Optional[HandlerRef]]:
    """(op -> handler, the reference or None) for a dict or a HandlerRef;
    a reference is resolved once per process."""
    if isinstance(handlers, HandlerRef):
        k = json.dumps(handlers.to_json(), sort_keys=True)
        if k not in _RESOLVED:
            _RESOLVED[k] = handlers.resolve()
        return _RESOLVED[k], handlers
    return dict(handlers), None


@dataclasses.dataclass
class Command:
    """One command of a ``CommandHandler``: run in the task's working
    directory; ``stdout`` names a file there for its standard output;
    ``device_flag`` (e.g. "--device") is appended with the local device
    number when the executor assigns one (a Slurm job's GPU is device 0)."""
    argv: List[str]
    stdout: Optional[str] = None
    device_flag: Optional[str] = None


class CommandHandler:
    """A handler made of commands. ``prepare(ctx)`` writes the inputs into
    ``ctx.workdir`` (paths in them absolute: input artifacts live in the
    store) and returns the commands; ``finish(ctx, codes)`` reads the
    outputs there into the result (raise to fail). A command whose exit
    code is not in ``ok_codes`` fails the task (later ones do not run).
    ``prepare`` returning no commands means there is nothing to run:
    ``finish(ctx, [])`` gives the result at once."""
    ok_codes: Sequence[int] = (0,)

    def prepare(self, ctx: TaskContext) -> List[Command]:
        raise NotImplementedError

    def finish(self, ctx: TaskContext, codes: List[int]) -> Any:
        raise NotImplementedError

    def __call__(self, ctx: TaskContext) -> Any:
        codes = []
        for c in self.prepare(ctx):
            argv = list(c.argv)
            if c.device_flag and ctx.device is not None:
                argv += [c.device_flag, str(ctx.device)]
            out = open(os.path.join(ctx.workdir, c.stdout), "w") if c.stdout else \
                subprocess.DEVNULL
            try:
                p = subprocess.run(argv, cwd=ctx.workdir, stdout=out, stderr=subprocess.PIPE,
                                   text=True, timeout=ctx.timeout)
            finally:
                if c.stdout:
                    out.close()
            codes.append(p.returncode)
            if p.returncode not in self.ok_codes:
                raise RuntimeError(f"{os.path.basename(argv[0])} exited {p.returncode}: "
                                   f"{(p.stderr or '')[-2000:]}")
        return self.finish(ctx, codes)


# --- running one task from a picklable payload (worker processes, batch jobs) ------

def task_payload(store: ArtifactStore, plan: Plan, t: Task, out: Dict[str, TaskOutcome],
                 attempt: int, timeout: Optional[float], ref: Optional[HandlerRef],
                 marker: Optional[str] = None) -> dict:
    return {"task": t.to_json(), "key": out[t.id].key, "store": store.root,
            "inputs": {i: out[i].result for i in t.inputs},
            "input_status": {i: out[i].status for i in t.inputs},
            "input_keys": {i: out[i].key for i in t.inputs if out[i].key},
            "attempt": attempt, "timeout": timeout, "marker": marker,
            "handlers": ref.to_json() if ref else None}


def _write_json_atomic(path: str, obj: Any) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, default=str)
    os.replace(tmp, path)


def run_payload(payload: dict, handlers: Optional[Dict[str, Callable]] = None) -> dict:
    """Run one task (a ``task_payload``) and commit its artifact (or record
    its failure) in the store; the outcome is returned and, when the payload
    names a marker file, written there (how a batch job reports back).
    A result already in the store is not recomputed."""
    t0 = time.time()
    store = ArtifactStore(payload["store"])
    key = payload["key"]
    d = payload["task"]
    t = Task(**{k: v for k, v in d.items()})
    meta = {"task": d}
    if store.has(key):
        res = {"status": "done", "result": store.load(key)["result"], "error": None,
               "seconds": 0.0, "cached": True}
    else:
        if handlers is None:
            handlers, _ = resolve_handlers(HandlerRef.from_json(payload["handlers"]))
        work = store.workdir(key)
        ctx = TaskContext(t, payload["inputs"], payload["input_status"], work, key, store,
                          None, payload.get("timeout"), payload.get("attempt", 1),
                          dict(payload.get("input_keys") or {}))
        try:
            if t.op not in handlers:
                raise TaskFailed(f"no handler for op {t.op!r}")
            result = handlers[t.op](ctx)
            store.commit(key, work, result, {**meta, "attempts": ctx.attempt,
                                             "host": os.uname().nodename})
            res = {"status": "done", "result": result, "error": None}
        except Exception as e:  # noqa: BLE001 - every failure is recorded
            msg = f"attempt {ctx.attempt}: " + (
                f"timed out after {e.timeout} s" if isinstance(e, subprocess.TimeoutExpired)
                else f"{type(e).__name__}: {e}")
            store.fail(key, work, msg + "\n" + traceback.format_exc(), meta)
            res = {"status": "failed", "result": None, "error": msg}
        res["seconds"] = time.time() - t0
    if payload.get("marker"):
        os.makedirs(os.path.dirname(payload["marker"]), exist_ok=True)
        _write_json_atomic(payload["marker"], {k: v for k, v in res.items() if k != "result"})
    return res


def _pool_entry(payload: dict) -> dict:
    return run_payload(payload)


# --- the scheduling every backend shares -----------------------------------------

class DagExecutor(Executor):
    """Dependency-driven scheduling over the artifact store; subclasses say
    where a ready task runs."""
    store: ArtifactStore
    retries: int = 1

    def tries(self, t: Task) -> int:
        return 1 + (self.retries if t.kind == "collect" else 0)

    def ready(self, plan: Plan, ops, out: Dict[str, TaskOutcome], busy) -> Tuple[bool, List[str]]:
        """Resolve what can be resolved without running (unavailable,
        skipped, cached, no handler) and return the tasks to start now
        (their keys set, status "running")."""
        progressed = False
        ready: List[str] = []
        for tid in list(plan.tasks):
            out.setdefault(tid, TaskOutcome())
        # A snapshot: a cached control task expands the plan during the walk.
        for tid, t in list(plan.tasks.items()):
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
                if t.expands:
                    # Expand now, as after a run: tasks that take the new
                    # ones as inputs (the synthesis) see them still planned.
                    self.finished(plan, tid, out)
                    for new in plan.tasks:
                        out.setdefault(new, TaskOutcome())
                continue
            if t.op not in ops:
                o.status = "failed"
                o.errors.append(f"no handler for op {t.op!r}")
                progressed = True
                continue
            o.status = "running"
            ready.append(tid)
            progressed = True
        return progressed, ready

    def finished(self, plan: Plan, tid: str, out: Dict[str, TaskOutcome]) -> None:
        """After a task reached done/cached: a control task expands the plan."""
        t = plan.tasks[tid]
        o = out[tid]
        if t.expands and o.status in ("done", "cached") and plan.expand:
            plan.expand(plan, t, (o.result or {}).get("targets", []))

    def context(self, plan: Plan, t: Task, out, work: str, device, timeout, attempt) -> TaskContext:
        return TaskContext(t, {i: out[i].result for i in t.inputs},
                           {i: out[i].status for i in t.inputs}, work, out[t.id].key, self.store,
                           device, timeout, attempt, {i: out[i].key for i in t.inputs if out[i].key})


class LocalExecutor(DagExecutor):
    """Everything on this machine. CPU tasks run in a process pool of
    ``workers`` processes when the handlers are a ``HandlerRef`` (threads
    when they are a dict of closures, which cannot cross processes); GPU
    collections run on one worker thread per device in ``devices`` (each
    starts its tool as a subprocess, so each GPU run is an isolated
    process). ``processes``: "auto" (a pool iff a HandlerRef), True, False."""

    def __init__(self, store: ArtifactStore, workers: int = 2, devices=(0,),
                 collect_timeout: Optional[float] = 600.0, retries: int = 1,
                 processes: Union[str, bool] = "auto"):
        self.store = store
        self.workers = max(1, workers)
        self.devices = list(devices)
        self.collect_timeout = collect_timeout
        self.retries = retries
        self.processes = processes

    def execute(self, plan: Plan, handlers: Handlers) -> Execution:
        ops, ref = resolve_handlers(handlers)
        use_procs = ref is not None if self.processes == "auto" else bool(self.processes)
        if use_procs and ref is None:
            raise ValueError("a process pool needs handlers given as a HandlerRef")
        out: Dict[str, TaskOutcome] = {tid: TaskOutcome() for tid in plan.tasks}
        free: "queue.Queue[int]" = queue.Queue()
        for d in self.devices:
            free.put(d)
        running: Dict[cf.Future, str] = {}
        procs = None
        if use_procs:
            procs = cf.ProcessPoolExecutor(max_workers=self.workers,
                                           mp_context=multiprocessing.get_context("spawn"))
        threads = cf.ThreadPoolExecutor(
            max_workers=(len(self.devices) if use_procs else self.workers + len(self.devices))
            or 1)
        t0s: Dict[str, float] = {}
        try:
            while True:
                progressed, ready = self.ready(plan, ops, out, set(running.values()))
                for tid in ready:
                    t = plan.tasks[tid]
                    if procs is not None and not t.device:
                        t0s[tid] = time.time()
                        running[self._submit_proc(procs, plan, t, out, ref, 1)] = tid
                    else:
                        running[threads.submit(self._run, plan, t, ops[t.op], out, free)] = tid
                if not running:
                    if not progressed:
                        break
                    continue
                done, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    tid = running.pop(fut)
                    res = fut.result()   # _run records everything; re-raise only bugs
                    if res is not None:  # a process-pool task: apply its outcome here
                        t, o = plan.tasks[tid], out[tid]
                        o.attempts += 1
                        if res["status"] == "done":
                            o.status, o.result = "done", res["result"]
                            o.seconds = time.time() - t0s[tid]
                        else:
                            o.errors.append(res["error"])
                            if o.attempts < self.tries(t):
                                running[self._submit_proc(procs, plan, t, out, ref,
                                                          o.attempts + 1)] = tid
                                continue
                            o.status = "failed"
                            o.seconds = time.time() - t0s[tid]
                    self.finished(plan, tid, out)
        finally:
            threads.shutdown(wait=True)
            if procs is not None:
                procs.shutdown(wait=True, cancel_futures=True)
        return Execution(plan, out)

    def _submit_proc(self, procs, plan, t, out, ref, attempt):
        timeout = self.collect_timeout if t.kind == "collect" else None
        return procs.submit(_pool_entry, task_payload(self.store, plan, t, out, attempt,
                                                      timeout, ref))

    def _run(self, plan: Plan, t: Task, fn, out, free) -> None:
        o = out[t.id]
        tries = self.tries(t)
        meta = {"task": t.to_json()}
        t0 = time.time()
        for attempt in range(1, tries + 1):
            o.attempts = attempt
            work = self.store.workdir(o.key)
            device = free.get() if t.device else None
            o.device = device
            try:
                ctx = self.context(plan, t, out, work, device,
                                   self.collect_timeout if t.kind == "collect" else None,
                                   attempt)
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
