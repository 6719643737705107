"""Content-addressed artifacts.

A task's artifact key is ``sha256`` over its kind, op, options and binding
(canonical JSON) and the keys of its inputs' artifacts, so the same task
on the same inputs has the same key in every plan: a repeated query finds
its artifacts and skips the work; a changed program version, option or
upstream result changes every key downstream.

Layout under the artifact directory::

    <key[:2]>/<key>/result.json   the task's result (JSON) + metadata: written last, atomically
    <key[:2]>/<key>/files/...     files the task wrote (IR, PTX, specs, run reports)
    <key[:2]>/<key>/failed.json   the last failure (kept until a success replaces it)
    staging/<key>/                a collection's fixed working directory on a
                                  batch system (spec, report, ``exit``); moved
                                  into the artifact when its result is taken
    slurm/                        the Slurm backend's job scripts, task lists, logs
    offline/                      the offline backend's scripts (collect-<episode>.sh) and journals

A directory without ``result.json`` is not an artifact: a crash mid-task
leaves nothing that could be mistaken for a result, and the task reruns.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from typing import Any, Dict, List, Optional


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


#: Task options that only label a task in its plan ("run": a run's number
#: there): two plans that collect the same thing share its artifact.
LABEL_OPTIONS = frozenset({"summary", "run"})


def task_key(kind: str, op: str, options: dict, binding: dict, input_keys: List[str]) -> str:
    opts = {k: v for k, v in options.items() if k not in LABEL_OPTIONS}
    h = hashlib.sha256()
    h.update(canonical({"kind": kind, "op": op, "options": opts, "binding": binding,
                        "inputs": list(input_keys)}).encode())
    return h.hexdigest()


class ArtifactStore:
    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        os.makedirs(self.root, exist_ok=True)

    def dir(self, key: str) -> str:
        return os.path.join(self.root, key[:2], key)

    def files(self, key: str) -> str:
        return os.path.join(self.dir(key), "files")

    def has(self, key: str) -> bool:
        return os.path.isfile(os.path.join(self.dir(key), "result.json"))

    def load(self, key: str) -> Optional[dict]:
        try:
            with open(os.path.join(self.dir(key), "result.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def workdir(self, key: str) -> str:
        """A fresh scratch directory for a task attempt; ``commit`` moves
        its contents into the artifact."""
        os.makedirs(os.path.join(self.root, "tmp"), exist_ok=True)
        return tempfile.mkdtemp(prefix=key[:12] + "-", dir=os.path.join(self.root, "tmp"))

    def staging(self, key: str) -> str:
        """A collection's working directory when it runs elsewhere (a Slurm
        job): fixed per key, so a resumed episode finds what an interrupted
        one left (a finished command's ``exit`` file and outputs)."""
        return os.path.join(self.root, "staging", key)

    def commit(self, key: str, work: str, result: Any, meta: dict) -> dict:
        d = self.dir(key)
        os.makedirs(d, exist_ok=True)
        files = self.files(key)
        if os.path.isdir(files):
            shutil.rmtree(files)
        shutil.move(work, files)
        record = {"key": key, "result": result, "meta": meta, "time": time.time()}
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=1, default=str)
        os.replace(tmp, os.path.join(d, "result.json"))
        try:
            os.unlink(os.path.join(d, "failed.json"))
        except OSError:
            pass
        return record

    def fail(self, key: str, work: Optional[str], error: str, meta: dict) -> None:
        d = self.dir(key)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "failed.json"), "w") as f:
            json.dump({"key": key, "error": error, "meta": meta, "time": time.time()}, f,
                      indent=1, default=str)
        if work and os.path.isdir(work):
            keep = os.path.join(d, "failed-files")
            shutil.rmtree(keep, ignore_errors=True)
            shutil.move(work, keep)

    def failure(self, key: str) -> Optional[dict]:
        try:
            with open(os.path.join(self.dir(key), "failed.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None
