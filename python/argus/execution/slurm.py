"""The Slurm backend of the executor interface (issue 14; docs/Slurm.md).

    ex = SlurmExecutor(ArtifactStore("/shared/argus-artifacts"),
                       SlurmConfig(partition="gpu", account="proj", time_limit="00:30:00"))
    execution = ex.execute(plan, HandlerRef("argus.measure.handlers:make_handlers",
                                            {"tools": {...}}))

* CPU tasks (compile, verify, analyses, synthesis) that become ready
  together go out as one job array; each element runs
  ``python3 -m argus.execution.worker TASKS.json`` which commits the task's
  artifact into the store itself (so it needs the handlers as a
  ``HandlerRef``; ``cpu_tasks="local"`` runs them in this process instead).
* GPU collections (``device`` tasks, whose handler is a ``CommandHandler``)
  are prepared here (the argus-run spec is written into
  ``<store>/staging/<key>/``), then up to ``gpu_batch`` of them go into one
  ``--gres=gpu:1`` job whose script runs the commands one after another:
  nothing but argus-run and the shared artifact directory on the node. The
  script writes ``exit`` (and ``codes``) next to each collection's outputs;
  the driver takes a finished collection into the store as soon as its
  ``exit`` appears, even while the job still runs the others.
* Status: ``squeue --noheader --array --states=all --format=%i|%T|%r``
  for the live jobs; ``sacct --parsable2 --noheader -X
  --format=JobID,State,ExitCode`` for the final state of a job squeue no
  longer shows (when accounting is disabled, sacct fails and is not asked
  again: the final word is the job's exit / marker files).
* A job that ends (fails, times out, is preempted or cancelled) with tasks
  whose result did not arrive is resubmitted with just those tasks, up to
  ``max_resubmits`` times per task, and every resubmission is recorded in
  the task's errors; a task that ran and failed (a non-zero exit) follows
  the executor's rule (collections retried ``retries`` times). A collection
  whose command died of the signal that ended its job (the script may record
  that 143 before it is signalled itself) is one without a result, not a
  failure: which it was waits for the job's state (``_killed_with_job``).
* Results are never lost or recomputed: CPU results are committed by the
  worker; a collection's ``exit`` file stays in its staging directory until
  the driver takes it, so a resumed episode (same plan, same store) finds
  cached artifacts and finished collections and submits only the rest.
* Ctrl-C (KeyboardInterrupt) cancels every job of the episode (``scancel``)
  before it propagates.
* Progress: one line per change on ``progress`` (stderr by default),
  ``slurm: 2 queued, 1 running, 7 done, 0 failed | jobs: 1 pending, 1 running, 1 resubmitted``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from typing import Any, Dict, List, Optional, Tuple

from .artifacts import ArtifactStore
from .executor import (Command, CommandHandler, DagExecutor, Execution,
                       HandlerRef, LocalExecutor, TaskOutcome, resolve_handlers, task_payload)
from .plan import Plan

#: Slurm job states in which a job may still run (anything else is final).
LIVE_STATES = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED",
               "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED",
               "PREEMPTED_REQUEUE"}

#: A command's exit status (bash's 128 + signal) when a signal Slurm ends
#: jobs with killed it: SIGTERM then SIGKILL (scancel, time limit,
#: preemption), SIGINT / SIGHUP. Slurm signals a job's processes one by one,
#: children before the batch shell (proctrack/linuxproc: deepest first), so
#: the GPU job's script can still record such a status in ``exit`` before
#: it is signalled itself: whether the collection failed or its job was
#: ended is known only from the job's state (``SlurmExecutor._killed_with_job``).
KILL_STATUSES = frozenset(128 + s for s in (signal.SIGHUP, signal.SIGINT, signal.SIGKILL,
                                            signal.SIGTERM))

#: Final states of a job that ran to its end (its script's own exit, or an
#: out-of-memory kill of one of its commands): a command killed in such a
#: job failed by itself. Any other final state means the job was ended.
RAN_TO_END_STATES = {"COMPLETED", "OUT_OF_MEMORY"}


@dataclasses.dataclass
class SlurmConfig:
    """Where and how jobs go. Every field has a default; ``from_json``
    reads the same names from a dict (the CLIs' ``--slurm-config`` file)."""
    partition: Optional[str] = None          # both kinds of job
    gpu_partition: Optional[str] = None      # overrides partition for GPU jobs
    cpu_partition: Optional[str] = None      # overrides partition for CPU arrays
    account: Optional[str] = None
    qos: Optional[str] = None
    time_limit: str = "01:00:00"             # a GPU job (all its collections)
    cpu_time_limit: str = "00:30:00"         # one CPU array element
    gres: str = "gpu:1"
    cpus_per_task: int = 1                   # CPU array elements
    gpu_cpus: int = 1                        # GPU jobs (argus-run's host checks use threads)
    mem: Optional[str] = None                # --mem for every job
    sbatch_args: List[str] = dataclasses.field(default_factory=list)       # every job
    gpu_sbatch_args: List[str] = dataclasses.field(default_factory=list)
    cpu_sbatch_args: List[str] = dataclasses.field(default_factory=list)
    gpu_batch: int = 8                       # collections per GPU job
    batch_wait: float = 10.0                 # s to wait for a fuller GPU batch
    array_parallel: Optional[int] = None     # --array=0-N%P
    max_resubmits: int = 3                   # per task, for jobs that end without its result
    retries: int = 1                         # a collection that ran and failed
    poll_interval: float = 5.0
    collect_timeout: Optional[float] = 600.0  # per collection (coreutils timeout in the script)
    python: str = sys.executable             # for CPU array elements
    env: Dict[str, str] = dataclasses.field(default_factory=dict)  # exported into every job
    cpu_tasks: str = "slurm"                 # "slurm" (job arrays) or "local" (this process)
    local_workers: int = 2                   # threads for cpu_tasks="local"
    job_prefix: str = "argus"
    requeue: bool = False                    # let Slurm requeue (default: --no-requeue, we resubmit)
    commands: Dict[str, str] = dataclasses.field(default_factory=dict)  # sbatch/squeue/sacct/scancel paths
    progress: bool = True

    @classmethod
    def from_json(cls, d: dict) -> "SlurmConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        bad = set(d) - names
        if bad:
            raise ValueError(f"slurm config: unknown key(s) {', '.join(sorted(bad))} "
                             f"(known: {', '.join(sorted(names))})")
        return cls(**d)

    def cmd(self, name: str) -> str:
        return self.commands.get(name, name)


class SlurmError(RuntimeError):
    pass


class SlurmClient:
    """sbatch / squeue / sacct / scancel in parsable form."""

    def __init__(self, config: SlurmConfig, env: Optional[Dict[str, str]] = None):
        self.c = config
        self.env = env
        self.sacct_ok = True
        self.calls: Dict[str, int] = {}

    def _run(self, name: str, args: List[str], timeout: float = 60) -> subprocess.CompletedProcess:
        self.calls[name] = self.calls.get(name, 0) + 1
        return subprocess.run([self.c.cmd(name)] + args, capture_output=True, text=True,
                              timeout=timeout, env=self.env)

    def submit(self, script: str, args: List[str]) -> str:
        p = self._run("sbatch", ["--parsable"] + args + [script])
        if p.returncode != 0:
            raise SlurmError(f"sbatch failed ({p.returncode}): {p.stderr.strip()}")
        jid = p.stdout.strip().split(";")[0]
        if not jid.isdigit():
            raise SlurmError(f"sbatch printed no job id: {p.stdout!r}")
        return jid

    def squeue(self, job_ids: List[str]) -> Optional[Dict[str, List[Tuple[str, str]]]]:
        """job id -> [(state, reason)] per (array) element squeue shows, or
        None when squeue failed (nothing is known this time)."""
        if not job_ids:
            return {}
        fmt = ["--noheader", "--array", "--states=all", "--format=%i|%T|%r"]
        p = self._run("squeue", fmt + ["--jobs=" + ",".join(job_ids)])
        if p.returncode != 0:
            # an id squeue has forgotten makes --jobs fail: ask for our own jobs instead
            p = self._run("squeue", fmt + [f"--user={os.getuid()}"])
            if p.returncode != 0:
                return None
        res: Dict[str, List[Tuple[str, str]]] = {}
        want = set(job_ids)
        for line in p.stdout.splitlines():
            parts = line.strip().split("|")
            if len(parts) < 2:
                continue
            base = parts[0].split("_")[0]
            if base in want:
                res.setdefault(base, []).append((parts[1].strip(), parts[2] if len(parts) > 2
                                                 else ""))
        return res

    def sacct(self, job_ids: List[str]) -> Dict[str, List[Tuple[str, str]]]:
        """job id -> [(state, exit code)] from accounting; {} when accounting
        is disabled (then never asked again)."""
        if not job_ids or not self.sacct_ok:
            return {}
        p = self._run("sacct", ["--parsable2", "--noheader", "-X",
                                "--format=JobID,State,ExitCode", "--jobs=" + ",".join(job_ids)])
        if p.returncode != 0:
            if "disabled" in (p.stderr + p.stdout).lower():
                self.sacct_ok = False
            return {}
        res: Dict[str, List[Tuple[str, str]]] = {}
        for line in p.stdout.splitlines():
            parts = line.strip().split("|")
            if len(parts) >= 2:
                res.setdefault(parts[0].split("_")[0].split(".")[0], []).append(
                    (parts[1].split()[0] if parts[1] else "", parts[2] if len(parts) > 2 else ""))
        return res

    def cancel(self, job_ids: List[str]) -> None:
        if job_ids:
            self._run("scancel", list(job_ids))


@dataclasses.dataclass
class Job:
    id: str
    kind: str                   # "cpu" (an array, element i = tids[i]) or "gpu"
    name: str
    dir: str
    tids: List[str]
    submitted: float
    state: str = "PENDING"
    pending_tids: set = dataclasses.field(default_factory=set)
    #: collections whose ``exit`` holds a KILL_STATUSES status seen while the
    #: job was alive: a failure of their own, or killed by the job's end?
    suspect_tids: set = dataclasses.field(default_factory=set)

    def markers(self) -> Dict[str, str]:
        return {tid: os.path.join(self.dir, f"marker-{i}.json") for i, tid in enumerate(self.tids)}


class SlurmExecutor(DagExecutor):
    #: The store's subdirectory of this backend's job scripts and journals.
    STORE_SUBDIR = "slurm"
    #: Whether the GPU script exits 1 when a collection failed (the offline
    #: script, run by a person; a Slurm job's state stays COMPLETED).
    FAIL_EXIT = False

    def __init__(self, store: ArtifactStore, config: Optional[SlurmConfig] = None,
                 episode: Optional[str] = None, env: Optional[Dict[str, str]] = None,
                 progress_stream=None):
        self.store = store
        self.c = config or SlurmConfig()
        self.retries = self.c.retries
        self.episode = episode or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        self.client = SlurmClient(self.c, env)
        self.stream = progress_stream if progress_stream is not None else sys.stderr
        self.jobs: Dict[str, Job] = {}          # every job of this episode
        self.live: Dict[str, Job] = {}
        self.log: List[dict] = []                # what happened to each job
        self._n = 0
        self._last_line = None

    # -- the episode directory ------------------------------------------------
    def _jobdir(self, kind: str) -> Tuple[str, str]:
        self._n += 1
        name = f"{self.c.job_prefix}-{self.episode}-{kind}{self._n}"
        d = os.path.join(self.store.root, self.STORE_SUBDIR, self.episode, f"{kind}{self._n}")
        os.makedirs(d, exist_ok=True)
        return name, d

    def _journal(self, event: dict) -> None:
        event = dict(event, time=time.time())
        self.log.append(event)
        d = os.path.join(self.store.root, self.STORE_SUBDIR, self.episode)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "jobs.jsonl"), "a") as f:
            f.write(json.dumps(event) + "\n")

    def _common_args(self, kind: str, name: str, d: str) -> List[str]:
        c = self.c
        part = (c.gpu_partition if kind == "gpu" else c.cpu_partition) or c.partition
        args = [f"--job-name={name}", f"--chdir={d}"]
        if part:
            args.append(f"--partition={part}")
        if c.account:
            args.append(f"--account={c.account}")
        if c.qos:
            args.append(f"--qos={c.qos}")
        if c.mem:
            args.append(f"--mem={c.mem}")
        if not c.requeue:
            args.append("--no-requeue")
        if c.env:
            args.append("--export=ALL," + ",".join(f"{k}={v}" for k, v in c.env.items()))
        return args + list(c.sbatch_args)

    # -- submission -----------------------------------------------------------
    def _submit_cpu(self, plan: Plan, tids: List[str], out, ref: HandlerRef) -> Job:
        name, d = self._jobdir("cpu")
        payloads = []
        for i, tid in enumerate(tids):
            t = plan.tasks[tid]
            o = out[tid]
            payloads.append(task_payload(self.store, plan, t, out, o.attempts + 1,
                                         self.c.collect_timeout if t.kind == "collect" else None,
                                         ref, marker=os.path.join(d, f"marker-{i}.json")))
        with open(os.path.join(d, "tasks.json"), "w") as f:
            json.dump({"episode": self.episode, "tasks": payloads}, f, default=str)
        script = os.path.join(d, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/bash\n"
                    f"# argus: {len(tids)} CPU task(s) of episode {self.episode}, one per "
                    "array element (generated by argus.execution.slurm)\n"
                    f"exec {shlex.quote(self.c.python)} -m argus.execution.worker "
                    f"{shlex.quote(os.path.join(d, 'tasks.json'))} \"$SLURM_ARRAY_TASK_ID\"\n")
        os.chmod(script, 0o755)
        arr = f"0-{len(tids) - 1}" + (f"%{self.c.array_parallel}" if self.c.array_parallel else "")
        args = self._common_args("cpu", name, d) + [
            f"--array={arr}", f"--time={self.c.cpu_time_limit}",
            f"--cpus-per-task={self.c.cpus_per_task}", "--ntasks=1",
            f"--output={d}/slurm-%A_%a.out"] + list(self.c.cpu_sbatch_args)
        return self._submit("cpu", name, d, script, args, tids)

    def _gpu_block(self, tid: str, staging: str, cmds: List[Command], ok_codes) -> str:
        q = shlex.quote
        ok = " ".join(str(c) for c in ok_codes)
        # outputs start empty (a run again after its job was killed appends nothing
        # to the killed run's)
        outs = " ".join(q(o) for o in sorted({c.stdout or "stdout" for c in cmds}))
        lines = [f"# {tid}",
                 f"if cd {q(staging)} 2>/dev/null && [ ! -f exit ]; then",
                 f"  rm -f codes stderr {outs}; ok=1; r=0"]
        for c in cmds:
            argv = " ".join(q(a) for a in c.argv)
            if self.c.collect_timeout:
                argv = f"timeout -k 10 {int(self.c.collect_timeout)} {argv}"
            out = q(c.stdout) if c.stdout else "stdout"
            lines += ["  if [ $ok = 1 ]; then",
                      f"    {argv} >> {out} 2>> stderr; r=$?; echo $r >> codes",
                      f"    case \" {ok} \" in *\" $r \"*) ;; *) ok=0 ;; esac",
                      "  fi"]
        # A failed collection says so on the terminal (the script's stderr,
        # the job's log on Slurm): its exit status and the end of its stderr.
        lines += ["  echo $r > exit.tmp && mv -f exit.tmp exit",
                  "  if [ $ok = 1 ]; then ran=$((ran + 1)); else",
                  "    failed=$((failed + 1))",
                  f"    echo \"argus: collection {tid} failed (exit $r); the end of its "
                  f"stderr ({staging}/stderr):\" >&2",
                  "    tail -n 8 stderr | sed 's/^/    /' >&2",
                  "  fi", "fi", "cd /"]
        return "\n".join(lines)

    def _gpu_script(self, plan: Plan, items: List[Tuple[str, List[Command]]], out, ops,
                    preamble: str) -> str:
        """The bash script that runs the collections ``items`` one after
        another: ``preamble`` (lines ending in a newline), then one block each."""
        blocks = [self._gpu_block(tid, self.store.staging(out[tid].key), cmds,
                                  ops[plan.tasks[tid].op].ok_codes) for tid, cmds in items]
        # The last line: how many ran and failed; the exit status is 1 when
        # any failed (FAIL_EXIT; a Slurm job exits 0 and its collections'
        # `exit` files say what failed).
        tail = ('echo "argus: $ran collection(s) done, $failed failed" >&2\n'
                + ('[ $failed = 0 ] || exit 1\n' if self.FAIL_EXIT else '') + "exit 0\n")
        return ("#!/bin/bash\n" + preamble + "ran=0; failed=0\n" + "\n".join(blocks)
                + "\n" + tail)

    def _submit_gpu(self, plan: Plan, items: List[Tuple[str, List[Command]]], out, ops) -> Job:
        name, d = self._jobdir("gpu")
        script = os.path.join(d, "job.sh")
        with open(script, "w") as f:
            f.write(self._gpu_script(
                plan, items, out, ops,
                f"# argus: {len(items)} GPU collection(s) of episode {self.episode} on one "
                "GPU, one after another\n# (generated by argus.execution.slurm; needs only "
                "the tools named below and the shared artifact directory)\n"))
        os.chmod(script, 0o755)
        args = self._common_args("gpu", name, d) + [
            f"--gres={self.c.gres}", f"--time={self.c.time_limit}", "--ntasks=1",
            f"--cpus-per-task={self.c.gpu_cpus}",
            f"--output={d}/slurm-%j.out"] + list(self.c.gpu_sbatch_args)
        return self._submit("gpu", name, d, script, args, [tid for tid, _ in items])

    def _submit(self, kind, name, d, script, args, tids) -> Job:
        jid = self.client.submit(script, args)
        job = Job(jid, kind, name, d, list(tids), time.time(), pending_tids=set(tids))
        self.jobs[jid] = job
        self.live[jid] = job
        self._journal({"event": "submitted", "job": jid, "kind": kind, "name": name,
                       "tasks": list(tids)})
        return job

    # -- the loop ---------------------------------------------------------------
    def execute(self, plan: Plan, handlers) -> Execution:
        ops, ref = resolve_handlers(handlers)
        out: Dict[str, TaskOutcome] = {tid: TaskOutcome() for tid in plan.tasks}
        self._plan, self._out, self._ops = plan, out, ops
        self.jobs, self.live, self.log = {}, {}, []     # this execute()'s (the journal keeps all)
        self.cmds: Dict[str, List[Command]] = {}
        self.resubmits: Dict[str, int] = {}
        self.t0: Dict[str, float] = {}
        cpu_wait: List[str] = []
        gpu_wait: List[str] = []
        gpu_since: Optional[float] = None
        local = None
        local_running: Dict[Any, str] = {}
        if self.c.cpu_tasks == "local":
            import concurrent.futures as cf
            local = cf.ThreadPoolExecutor(max_workers=max(1, self.c.local_workers))
            helper = LocalExecutor(self.store, workers=1, devices=(), retries=self.retries,
                                   collect_timeout=self.c.collect_timeout)
        elif self.c.cpu_tasks != "slurm":
            raise ValueError(f"cpu_tasks must be 'slurm' or 'local', not {self.c.cpu_tasks!r}")
        try:
            while True:
                busy = {t for j in self.live.values() for t in j.pending_tids}
                busy |= set(cpu_wait) | set(gpu_wait) | set(local_running.values())
                progressed, ready = self.ready(plan, ops, out, busy)
                for tid in ready:
                    t = plan.tasks[tid]
                    self.t0[tid] = time.time()
                    if t.device:
                        if self._prepare_gpu(tid):
                            gpu_wait.append(tid)
                            gpu_since = gpu_since or time.time()
                    elif local is not None:
                        fut = local.submit(helper._run, plan, t, ops[t.op], out, None)
                        local_running[fut] = tid
                    elif ref is None:
                        out[tid].status = "failed"
                        out[tid].errors.append(
                            "CPU tasks on Slurm need the handlers as a HandlerRef "
                            "(or SlurmConfig(cpu_tasks='local'))")
                    else:
                        cpu_wait.append(tid)
                if cpu_wait:
                    self._submit_cpu(plan, cpu_wait, out, ref)
                    cpu_wait = []
                if gpu_wait and self._gpu_due(plan, out, gpu_wait, gpu_since, local_running):
                    while gpu_wait:
                        chunk, gpu_wait = gpu_wait[:self.c.gpu_batch], gpu_wait[self.c.gpu_batch:]
                        self._submit_gpu(plan, [(tid, self.cmds[tid]) for tid in chunk], out, ops)
                    gpu_since = None
                # local CPU tasks that finished
                for fut in [f for f in local_running if f.done()]:
                    tid = local_running.pop(fut)
                    fut.result()
                    self.finished(plan, tid, out)
                    progressed = True
                self._progress(out, gpu_wait)
                if not self.live and not gpu_wait and not local_running:
                    if not progressed:
                        break
                    continue
                if progressed:
                    continue
                self._wait_for_results(local_running)
                if self._poll():
                    continue
        except KeyboardInterrupt:
            ids = sorted(self.live)
            self.client.cancel(ids)
            for jid in ids:
                self._journal({"event": "cancelled", "job": jid, "why": "KeyboardInterrupt"})
            if self.c.progress and self.stream:
                print(f"\nslurm: interrupted: cancelled job(s) {', '.join(ids) or '(none)'}; "
                      f"rerun with the same artifact directory to resume", file=self.stream,
                      flush=True)
            raise
        finally:
            if local is not None:
                local.shutdown(wait=True)
        self._progress(out, [], final=True)
        ex = Execution(plan, out)
        ex.info = {"backend": "slurm", "episode": self.episode, "jobs": len(self.jobs),
                   "events": self.log, "sacct": self.client.sacct_ok,
                   "resubmitted": {k: v for k, v in self.resubmits.items() if v}}
        return ex

    def _wait_for_results(self, local_running) -> None:
        """Wait before the next status round (jobs' results arrive as files)."""
        time.sleep(self.c.poll_interval)

    def _gpu_due(self, plan, out, gpu_wait, since, local_running) -> bool:
        """Submit the waiting collections now, or wait for a fuller batch:
        wait while CPU work in flight may make more collections ready (at
        most ``batch_wait`` s, never beyond a full batch)."""
        if len(gpu_wait) >= self.c.gpu_batch or time.time() - (since or 0) >= self.c.batch_wait:
            return True
        cpu_busy = local_running or any(j.kind == "cpu" for j in self.live.values())
        if not cpu_busy:
            return True
        waiting = set(gpu_wait)
        return not any(t.device and out[tid].status == "planned" and tid not in waiting
                       for tid, t in plan.tasks.items())

    def _ctx(self, tid: str, work: str):
        plan, out = self._plan, self._out
        t = plan.tasks[tid]
        return self.context(plan, t, out, work, None, self.c.collect_timeout,
                            out[tid].attempts + 1)

    def _prepare_gpu(self, tid: str) -> bool:
        """Write the collection's inputs into its staging directory; False
        when nothing is left to run (a finished one from an interrupted
        episode was taken, or the handler had nothing to run)."""
        plan, out, ops = self._plan, self._out, self._ops
        t, o = plan.tasks[tid], out[tid]
        h = ops[t.op]
        if not isinstance(h, CommandHandler):
            o.status = "failed"
            o.errors.append(f"op {t.op!r}: a GPU collection on Slurm needs a CommandHandler "
                            "(its job runs commands, not Python)")
            return False
        st = self.store.staging(o.key)
        if os.path.isfile(os.path.join(st, "exit")) and \
                os.path.isfile(os.path.join(st, "cmds.json")) and self._resume_gpu(tid, st):
            return False
        if os.path.isdir(st):
            shutil.rmtree(st)
        os.makedirs(st)
        try:
            cmds = h.prepare(self._ctx(tid, st))
        except Exception as e:  # noqa: BLE001
            o.status = "failed"
            o.errors.append(f"prepare: {type(e).__name__}: {e}")
            self.store.fail(o.key, st, o.errors[-1], {"task": t.to_json()})
            return False
        with open(os.path.join(st, "cmds.json"), "w") as f:
            json.dump([dataclasses.asdict(c) for c in cmds], f)
        if not cmds:
            self._take_gpu(tid, None, codes=[])
            return False
        self.cmds[tid] = cmds
        return True

    def _resume_gpu(self, tid: str, st: str) -> bool:
        """A collection an earlier episode ran (its ``exit`` is in ``st``):
        taken when it succeeded (True); a failed one runs again (False)."""
        if self._read_exit(st) not in self._ops[self._plan.tasks[tid].op].ok_codes:
            return False
        self._journal({"event": "resumed", "task": tid, "key": self._out[tid].key})
        self._take_gpu(tid, None)
        return True

    @staticmethod
    def _read_exit(st: str) -> Optional[int]:
        try:
            return int(open(os.path.join(st, "exit")).read().strip())
        except (OSError, ValueError):
            return None

    def _take_gpu(self, tid: str, job: Optional[Job], codes=None) -> None:
        """A collection whose ``exit`` exists: its result into the store."""
        plan, out, ops = self._plan, self._out, self._ops
        t, o = plan.tasks[tid], out[tid]
        h = ops[t.op]
        st = self.store.staging(o.key)
        if codes is None:
            try:
                codes = [int(x) for x in open(os.path.join(st, "codes")).read().split()]
            except (OSError, ValueError):
                codes = [self._read_exit(st)]
        o.attempts += 1
        meta = {"task": t.to_json(), "attempts": o.attempts, "job": job.id if job else None}
        bad = [c for c in codes if c not in h.ok_codes]
        err = None
        if bad:
            tail = ""
            try:
                tail = open(os.path.join(st, "stderr"), errors="replace").read()[-1500:]
            except OSError:
                pass
            cmds = self.cmds.get(tid) or []
            cmd = (os.path.basename(cmds[len(codes) - 1].argv[0])
                   if 0 < len(codes) <= len(cmds) else "command")
            err = (f"attempt {o.attempts}: timed out after {self.c.collect_timeout} s"
                   if bad[0] == 124 else f"attempt {o.attempts}: {cmd} exited {bad[0]}: {tail}")
        else:
            try:
                result = h.finish(self._ctx(tid, st), codes)
            except Exception as e:  # noqa: BLE001
                err = f"attempt {o.attempts}: {type(e).__name__}: {e}"
        if err is None:
            self.store.commit(o.key, st, result, meta)
            o.result, o.status = result, "done"
            o.seconds = time.time() - self.t0.get(tid, time.time())
            self.finished(plan, tid, out)
            return
        o.errors.append(err)
        self.store.fail(o.key, st, err, meta)
        if o.attempts < self.tries(t):
            if self._prepare_gpu_again(tid):
                return
        o.status = "failed"
        o.seconds = time.time() - self.t0.get(tid, time.time())

    def _prepare_gpu_again(self, tid: str) -> bool:
        """Retry a collection that ran and failed: prepared afresh, in a job of its own."""
        if self._prepare_gpu(tid):
            self._submit_gpu(self._plan, [(tid, self.cmds[tid])], self._out, self._ops)
            return True
        return self._out[tid].status in ("done", "cached")

    def _killed_with_job(self, job: Job, tid: str, st: str, alive: bool) -> Optional[bool]:
        """A collection's ``exit`` exists: True when its command was killed
        by the end of its job (scancel, time limit, preemption; then it has
        no result and is resubmitted like the job's other missing tasks, not
        retried as a failure), False when it is the collection's own
        outcome, None while that is not known yet.

        Slurm signals the job's processes one by one, children first, so a
        command's ``128 + SIGTERM`` status (KILL_STATUSES) may be recorded by
        the script just before the script itself is killed. Slurm marks a job
        COMPLETING (or final) before it signals any of its processes, so the
        command died of a signal of its own (False) when a status round after
        its ``exit`` was first seen finds the job RUNNING, or when the job
        ran to its end (RAN_TO_END_STATES); a job that ended otherwise
        killed it (True). ``alive`` and ``job.state`` are this round's
        squeue, asked before the file was looked at."""
        code = self._read_exit(st)
        if code not in KILL_STATUSES or code in self._ops[self._plan.tasks[tid].op].ok_codes:
            return False
        if not alive:
            job.suspect_tids.discard(tid)
            return job.state not in RAN_TO_END_STATES
        if tid in job.suspect_tids and job.state == "RUNNING":
            job.suspect_tids.discard(tid)
            return False
        job.suspect_tids.add(tid)
        return None

    @staticmethod
    def _clear_exit(st: str) -> None:
        """Forget the recorded status of a collection killed with its job,
        so that the resubmitted job runs it again (its script skips a
        collection whose ``exit`` exists)."""
        for name in ("exit", "exit.tmp", "codes"):
            try:
                os.remove(os.path.join(st, name))
            except FileNotFoundError:
                pass

    def _take_cpu(self, tid: str, job: Job, marker: str) -> None:
        plan, out = self._plan, self._out
        t, o = plan.tasks[tid], out[tid]
        try:
            m = json.load(open(marker))
        except (OSError, ValueError):
            return
        o.attempts += 1
        if m.get("status") == "done" and self.store.has(o.key):
            o.result, o.status = self.store.load(o.key)["result"], "done"
            o.seconds = time.time() - self.t0.get(tid, time.time())
            self.finished(plan, tid, out)
            return
        o.errors.append(m.get("error") or f"attempt {o.attempts}: failed (job {job.id})")
        if o.attempts < self.tries(t):
            self._submit_cpu(plan, [tid], out, self._handlers_ref())
            return
        o.status = "failed"
        o.seconds = time.time() - self.t0.get(tid, time.time())

    def _handlers_ref(self) -> Optional[HandlerRef]:
        for j in self.jobs.values():
            if j.kind == "cpu":
                with open(os.path.join(j.dir, "tasks.json")) as f:
                    h = json.load(f)["tasks"][0]["handlers"]
                return HandlerRef.from_json(h) if h else None
        return None

    def _poll(self) -> bool:
        """One status round: take every result that arrived; a job that
        ended with tasks missing has them resubmitted (or failed past the
        limit). True when something changed."""
        if not self.live:
            return False
        ids = sorted(self.live)
        sq = self.client.squeue(ids)
        if sq is None:
            return False          # squeue failed: nothing is known, try again later
        changed = False
        ended: List[Job] = []
        for jid in ids:
            job = self.live[jid]
            elems = sq.get(jid, [])
            states = {s for s, _ in elems}
            alive = bool(states & LIVE_STATES)
            if states:
                job.state = ("RUNNING" if "RUNNING" in states else
                             "PENDING" if "PENDING" in states else sorted(states)[0])
            # results that arrived (also from a job still running)
            for tid, marker in job.markers().items():
                if tid not in job.pending_tids:
                    continue
                if job.kind == "gpu":
                    st = self.store.staging(self._out[tid].key)
                    if os.path.isfile(os.path.join(st, "exit")):
                        killed = self._killed_with_job(job, tid, st, alive)
                        if killed is None:
                            continue          # known once the job's state says
                        if killed:
                            # no result: missing, resubmitted with the job's others
                            self._clear_exit(st)
                            changed = True
                            continue
                        job.pending_tids.discard(tid)
                        self._take_gpu(tid, job)
                        changed = True
                elif os.path.isfile(marker):
                    job.pending_tids.discard(tid)
                    self._take_cpu(tid, job, marker)
                    changed = True
            if not alive:
                if not states:
                    final = self.client.sacct([jid]).get(jid)
                    job.state = final[0][0] if final else "GONE"
                ended.append(job)
        for job in ended:
            del self.live[job.id]
            changed = True
            self._journal({"event": "ended", "job": job.id, "state": job.state,
                           "missing": sorted(job.pending_tids)})
            missing = [t for t in job.tids if t in job.pending_tids]
            again = []
            for tid in missing:
                o = self._out[tid]
                n = self.resubmits.get(tid, 0) + 1
                self.resubmits[tid] = n
                msg = (f"job {job.id} ({job.name}) ended {job.state} without this task's result")
                if n > self.c.max_resubmits:
                    o.errors.append(msg + f"; gave up after {self.c.max_resubmits} resubmission(s)")
                    o.status = "failed"
                else:
                    o.errors.append(msg + f"; resubmitted ({n}/{self.c.max_resubmits})")
                    again.append(tid)
            if again:
                if job.kind == "gpu":
                    self._submit_gpu(self._plan, [(t, self.cmds[t]) for t in again],
                                     self._out, self._ops)
                else:
                    self._submit_cpu(self._plan, again, self._out, self._handlers_ref())
        return changed

    def _progress(self, out: Dict[str, TaskOutcome], gpu_wait, final: bool = False) -> None:
        if not self.c.progress or not self.stream:
            return
        queued = len(gpu_wait)
        running = 0
        for j in self.live.values():
            if j.state == "RUNNING":
                running += len(j.pending_tids)
            else:
                queued += len(j.pending_tids)
        done = sum(1 for o in out.values() if o.status in ("done", "cached"))
        failed = sum(1 for o in out.values() if o.status in ("failed", "skipped"))
        jp = sum(1 for j in self.live.values() if j.state != "RUNNING")
        jr = len(self.live) - jp
        rs = sum(1 for v in self.resubmits.values() if v)
        line = (f"slurm: {queued} queued, {running} running, {done} done, {failed} failed "
                f"| jobs: {jp} pending, {jr} running, {len(self.jobs)} submitted"
                + (f", {rs} task(s) resubmitted" if rs else ""))
        if line != self._last_line or final:
            self._last_line = line
            print(line, file=self.stream, flush=True)
