"""argus.kernelbench: evaluate Argus DSL solutions of KernelBench-format
tasks, with proofs that cannot be gamed (docs/Agents.md).

``evaluate(task, solution, Options(...))`` returns the JSON record of one
solution; ``python3 -m argus.kernelbench eval|suite`` is the command line."""

from .harness import ATOL, RTOL, Options, evaluate  # noqa: F401
from .report import summary, table  # noqa: F401
from .task import load_solution, load_task  # noqa: F401
from .timing import FAST_P, fast_p  # noqa: F401

__all__ = ["ATOL", "RTOL", "FAST_P", "Options", "evaluate", "fast_p", "load_solution",
           "load_task", "summary", "table"]
