"""``suite DIR``: every task of a directory, each in a child process.

Layout: ``DIR/tasks/NAME.py`` (KernelBench format) and
``DIR/solutions/NAME.py`` (``--solutions`` names another directory); a task
without a solution is listed as such. Each task is evaluated by
``python3 -m argus.kernelbench eval`` in its own process with a time limit:
a crash (a fault, a killed process) or a hang (the limit) becomes that
task's record and the run goes on. Records are appended to a JSON-lines log
as they finish (``--log``), so an interrupted suite loses nothing; with
``--resume`` the tasks already in the log are not run again.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
from typing import List, Optional, Sequence


def pairs(directory: str, solutions: Optional[str] = None):
    tdir = os.path.join(directory, "tasks")
    if not os.path.isdir(tdir):
        tdir = directory
    sdir = solutions or os.path.join(directory, "solutions")
    out = []
    for t in sorted(glob.glob(os.path.join(tdir, "*.py"))):
        name = os.path.splitext(os.path.basename(t))[0]
        if name.startswith("_"):
            continue
        s = os.path.join(sdir, name + ".py")
        out.append((name, t, s if os.path.isfile(s) else None))
    return out


def run_one(name: str, task: str, solution: Optional[str], args: Sequence[str],
            timeout_s: float) -> dict:
    if solution is None:
        return {"task": name, "task_path": task, "status": "no solution", "accepted": False,
                "correct": None, "reasons": ["no solution file"], "failure": "error"}
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"argus-kb-{os.getpid()}-{name}.json")
    cmd = [sys.executable, "-m", "argus.kernelbench", "eval", task, solution, "--json", out,
           "--quiet", *args]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p) 
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return {"task": name, "task_path": task, "solution_path": solution, "status": "rejected",
                "accepted": False, "correct": None, "failure": "timeout",
                "reasons": [f"timeout: no result within {timeout_s:g} s (a hang): killed"],
                "seconds": round(time.time() - t0, 2)}
    try:
        with open(out) as f:
            rec = json.load(f)
        os.unlink(out)
        return rec
    except (OSError, ValueError):
        tail = (p.stderr or p.stdout or "").strip().splitlines()[-5:]
        return {"task": name, "task_path": task, "solution_path": solution, "status": "rejected",
                "accepted": False, "correct": None, "failure": "fault",
                "reasons": [f"fault: the evaluation exited with code {p.returncode} and no "
                            f"record: {' | '.join(tail)}"],
                "seconds": round(time.time() - t0, 2)}


def run_suite(directory: str, solutions: Optional[str] = None, args: Sequence[str] = (),
              timeout_s: float = 1800.0, log: Optional[str] = None, resume: bool = False,
              only: Optional[List[str]] = None, progress=None) -> List[dict]:
    done = {}
    if log and resume and os.path.exists(log):
        with open(log) as f:
            for line in f:
                line = line.strip()
                if line:
                    r = json.loads(line)
                    done[r.get("task")] = r
    records = []
    for name, task, sol in pairs(directory, solutions):
        if only and name not in only:
            continue
        if name in done:
            records.append(done[name])
            continue
        rec = run_one(name, task, sol, args, timeout_s)
        records.append(rec)
        if log:
            with open(log, "a") as f:
                f.write(json.dumps(rec) + "\n")
        if progress:
            progress(rec)
    return records
