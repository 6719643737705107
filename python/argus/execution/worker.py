"""Run CPU tasks of a Slurm job array (or by hand):

    python3 -m argus.execution.worker TASKS.json [INDEX]

TASKS.json is ``{"tasks": [payload, ...]}`` as the Slurm backend writes it
(executor.task_payload: the task, its inputs' results and artifact keys,
the store, the handler reference, a marker path). INDEX defaults to
``$SLURM_ARRAY_TASK_ID``. The task's artifact is committed to the store
(a result already there is not recomputed) and its outcome written to the
marker file; the exit status is 0 when the task ran (done or failed: the
marker says which) and 2 on a usage error.
"""

from __future__ import annotations

import json
import os
import sys

from .executor import run_payload


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    index = argv[1] if len(argv) > 1 else os.environ.get("SLURM_ARRAY_TASK_ID")
    if index is None or not index.isdigit():
        print("argus.execution.worker: no task index (give INDEX or run in a job array)",
              file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        tasks = json.load(f)["tasks"]
    i = int(index)
    if i >= len(tasks):
        print(f"argus.execution.worker: index {i} out of range ({len(tasks)} tasks)",
              file=sys.stderr)
        return 2
    res = run_payload(tasks[i])
    print(f"argus worker: {tasks[i]['task']['id']}: {res['status']}"
          + (f": {res['error']}" if res.get("error") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
