"""argus.execution: running task DAGs (measurement plans, agent episodes)
on this machine or on a Slurm cluster, with content-addressed artifacts.

    from argus.execution import ArtifactStore, LocalExecutor, HandlerRef
    from argus.execution.slurm import SlurmConfig, SlurmExecutor
    ex = SlurmExecutor(ArtifactStore("/shared/artifacts"), SlurmConfig(partition="gpu"))
    execution = ex.execute(plan, HandlerRef("argus.measure.handlers:make_handlers", {...}))

See docs/Measure.md ("Executor", "Offline collections") and docs/Slurm.md.
"""

from .artifacts import ArtifactStore, canonical, task_key  # noqa: F401
from .executor import (TERMINAL, Command, CommandHandler, DagExecutor, Execution,  # noqa: F401
                       Executor, HandlerRef, Handlers, LocalExecutor, TaskContext, TaskFailed,
                       TaskOutcome, resolve_handlers, run_payload, task_payload)
from .plan import TASK_KINDS, Plan, Task  # noqa: F401
