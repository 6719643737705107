"""Per-task overhead of the Slurm backend against the local one, on the
throw-away single-node cluster of the tests (test/python/slurm_cluster.py).

    PYTHONPATH=build/python:python /usr/bin/python3 bench/slurm/overhead.py [REPEATS]

Runs one measurement plan (test_measure's query, REPEATS repeats: 4 CPU
transforms + 1 analysis + 1 synthesis, 4 x REPEATS collections) with a
stand-in argus-run that copies a canned report (so the numbers are the
executor's cost, not the tool's), once with LocalExecutor and once with
SlurmExecutor, and prints wall times per task.
"""
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTS = os.path.join(ROOT, "test", "python")
sys.path[:0] = [TESTS, os.path.join(ROOT, "python")]

import slurm_cluster  # noqa: E402
from test_measure import fake_report, query  # noqa: E402
from argus.execution import ArtifactStore, HandlerRef, LocalExecutor  # noqa: E402
from argus.execution.slurm import SlurmConfig, SlurmExecutor  # noqa: E402
from argus.measure import Planner  # noqa: E402


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    d = tempfile.mkdtemp(prefix="argus-slurm-bench-")
    canned = os.path.join(d, "canned.json")
    json.dump(fake_report("x", ["wait", "mainloop", "prologue", "epilogue"]), open(canned, "w"))
    run = os.path.join(d, "argus-run")
    open(run, "w").write('#!/bin/sh\nrep=""; while [ $# -gt 0 ]; do [ "$1" = --report ] && '
                         f'rep=$2; shift; done\ncp "{canned}" "$rep"\n')
    os.chmod(run, 0o755)
    ref = HandlerRef("slurm_fakes:measure_handlers", {"argus_run": run})
    plan = Planner().plan(query(repeats=repeats))
    n = len(plan.tasks)
    ncol = sum(1 for t in plan.tasks.values() if t.device)
    t0 = time.time()
    ex = LocalExecutor(ArtifactStore(os.path.join(d, "local")), workers=2).execute(plan, ref)
    local = time.time() - t0
    assert ex.ok()
    c = slurm_cluster.LocalSlurm(os.path.join(d, "cluster"))
    c.start()
    try:
        os.environ["SLURM_CONF"] = c.conf
        cfg = SlurmConfig(poll_interval=0.25, batch_wait=2.0, progress=False, env={
            "PYTHONPATH": ":".join([TESTS, os.path.join(ROOT, "python"),
                                    os.environ.get("PYTHONPATH", "")])})
        t0 = time.time()
        ex = SlurmExecutor(ArtifactStore(os.path.join(d, "slurm")), cfg).execute(
            Planner().plan(query(repeats=repeats)), ref)
        slurm = time.time() - t0
        assert ex.ok(), ex.to_json()
        jobs = ex.info["jobs"]
    finally:
        c.stop()
    print(json.dumps({"tasks": n, "collections": ncol, "local_s": round(local, 2),
                      "slurm_s": round(slurm, 2), "slurm_jobs": jobs,
                      "local_per_task_s": round(local / n, 3),
                      "slurm_per_task_s": round(slurm / n, 3),
                      "overhead_per_task_s": round((slurm - local) / n, 3),
                      "overhead_per_job_s": round((slurm - local) / jobs, 3)}))


if __name__ == "__main__":
    main()
