"""The executor interface and the local backend moved to
argus.execution (shared by the planner and the agent loop, with the Slurm
backend in argus.execution.slurm); this module keeps
``argus.measure.executor`` imports working."""

from ..execution.executor import (TERMINAL, Command, CommandHandler, Execution, Executor,  # noqa: F401
                                  HandlerRef, Handlers, LocalExecutor, TaskContext, TaskFailed,
                                  TaskOutcome, resolve_handlers)
