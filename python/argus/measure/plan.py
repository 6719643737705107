"""Plans moved to argus.execution.plan (shared with the agent loop); this
module keeps ``argus.measure.plan`` imports working."""

from ..execution.plan import TASK_KINDS, Plan, Task  # noqa: F401
