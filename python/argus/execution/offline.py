"""Offline GPU collections: the CPU work here, the GPU work as one script
that a person runs on a GPU host (docs/Measure.md, "Offline collections").

For a CPU host with argus-opt but no GPU, and a GPU host with argus-run
(and ncu) but no MLIR and no argus Python package:

    ex = OfflineExecutor(ArtifactStore("/data/argus-art"), SlurmConfig(collect_timeout=600))
    execution = ex.execute(plan, handlers)
    execution.info   # {"backend": "offline", "script": "/data/argus-art/offline/collect-<episode>.sh",
                     #  "waiting": [task ids], "episode": ..., "events": [...]}

* CPU tasks run in this process (threads), as with
  ``SlurmConfig(cpu_tasks="local")``.
* Every GPU collection that becomes ready is prepared into its staging
  directory as for a Slurm job and goes into ONE bash script,
  ``<store>/offline/collect-<episode>.sh`` (``collect.sh`` next to it links
  to the newest), made of the Slurm GPU job's blocks: one collection after
  another on one GPU, each command under coreutils ``timeout``
  (``collect_timeout``), ``codes`` / ``stderr`` / ``exit`` left in the
  staging directory. Nothing is submitted, polled or waited for: the
  execution returns with those tasks ``waiting`` (not terminal, not
  failed) and their dependents not run.
* The script runs on the GPU host with the artifact directory at the same
  absolute path (copied there, or a symlink to the copy); it needs only the
  tools its commands name.
* Bring the directory back and execute the same plan again: a collection
  whose ``exit`` is there is taken. A bad exit is a failed attempt: with
  ``retries`` left the collection is prepared afresh into the next script,
  past them it fails. Dependents of what was taken run; collections they
  make ready go into a new script. Repeat until nothing waits.
* A prepared collection's attempt number and earlier errors are kept in its
  staging directory (``attempt.json``), so retries count across executions.

The ``SlurmConfig`` fields that apply: ``retries``, ``collect_timeout``,
``local_workers``.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import os
import shlex
from typing import List, Optional, Tuple

from .artifacts import ArtifactStore
from .executor import Command, Execution
from .plan import Plan
from .slurm import SlurmConfig, SlurmExecutor

#: In a collection's staging directory: {"attempt": n, "errors": [earlier attempts' errors]}.
ATTEMPT_FILE = "attempt.json"


class OfflineExecutor(SlurmExecutor):
    STORE_SUBDIR = "offline"
    FAIL_EXIT = True

    def __init__(self, store: ArtifactStore, config: Optional[SlurmConfig] = None,
                 episode: Optional[str] = None):
        # No progress line: nothing is queued or polled; the caller reports
        # what waits (Execution.info).
        super().__init__(store, dataclasses.replace(config or SlurmConfig(), cpu_tasks="local",
                                                    progress=False), episode)

    def execute(self, plan: Plan, handlers) -> Execution:
        self.script_items: List[Tuple[str, List[Command]]] = []
        ex = super().execute(plan, handlers)
        waiting = [tid for tid, _ in self.script_items]
        for tid in waiting:
            ex.outcomes[tid].status = "waiting"
        script = self._write_script(plan) if waiting else None
        ex.info = {"backend": "offline", "episode": self.episode, "script": script,
                   "waiting": waiting, "events": self.log}
        return ex

    # -- the SlurmExecutor steps that differ ------------------------------------------
    def _submit_gpu(self, plan: Plan, items: List[Tuple[str, List[Command]]], out, ops) -> None:
        """Into the script, written once the execution has nothing left to do."""
        self.script_items += items

    def _wait_for_results(self, local_running) -> None:
        # No jobs: only this process's CPU tasks can change anything.
        cf.wait(list(local_running), return_when=cf.FIRST_COMPLETED)

    def _prepare_gpu(self, tid: str) -> bool:
        if not super()._prepare_gpu(tid):
            return False
        o = self._out[tid]
        with open(os.path.join(self.store.staging(o.key), ATTEMPT_FILE), "w") as f:
            json.dump({"attempt": o.attempts + 1, "errors": o.errors}, f)
        return True

    def _resume_gpu(self, tid: str, st: str) -> bool:
        """Taken whatever its exit: a failed run is an attempt of the
        collection's retries, counted from ``attempt.json``."""
        o = self._out[tid]
        try:
            with open(os.path.join(st, ATTEMPT_FILE)) as f:
                attempt = json.load(f)
        except (OSError, ValueError):
            attempt = {}
        o.attempts = attempt.get("attempt", 1) - 1
        o.errors = list(attempt.get("errors", []))
        with open(os.path.join(st, "cmds.json")) as f:   # names the failing command
            self.cmds[tid] = [Command(**c) for c in json.load(f)]
        self._journal({"event": "taken", "task": tid, "key": o.key, "exit": self._read_exit(st)})
        self._take_gpu(tid, None)
        return True

    def _write_script(self, plan: Plan) -> str:
        d = os.path.join(self.store.root, self.STORE_SUBDIR)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"collect-{self.episode}.sh")
        root = self.store.root
        first_staging = self.store.staging(self._out[self.script_items[0][0]].key)
        missing = (f"argus: {first_staging} not found: this script needs the artifact "
                   f"directory {root} at the same path on this host (copied after the script "
                   "was written, or a symlink to the copy)")
        preamble = (
            f"# argus: {len(self.script_items)} GPU collection(s) of episode {self.episode}, "
            "one after another on one GPU\n"
            "# (generated by argus.execution.offline). Run it on the GPU host with the "
            f"artifact directory at\n# the same path, {root}:\n#   bash {path}\n"
            "# then bring the directory back and run the same command again. It needs only "
            "the\n# tools named below; the GPU is argus-run's default (CUDA_VISIBLE_DEVICES "
            "picks it).\n"
            f"if [ ! -d {shlex.quote(first_staging)} ]; then\n"
            f"  echo {shlex.quote(missing)} >&2\n  exit 2\nfi\n")
        with open(path, "w") as f:
            f.write(self._gpu_script(plan, self.script_items, self._out, self._ops, preamble))
        os.chmod(path, 0o755)
        # collect.sh: the newest script under a name that stays the same
        link = os.path.join(d, "collect.sh")
        tmp = f"{link}.{os.getpid()}.tmp"
        os.symlink(os.path.basename(path), tmp)
        os.replace(tmp, link)
        self._journal({"event": "script", "path": path,
                       "tasks": [tid for tid, _ in self.script_items]})
        return path
