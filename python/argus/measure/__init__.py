"""argus.measure: the region measurement planner (issue 16; docs/Measure.md).

    from argus.measure import Query, Scope, Planner, LocalExecutor, ArtifactStore, make_handlers
    q = Query("k.mlir", asks=[("mainloop", "timeline"), ("wait", "duration")],
              scope=Scope(iterations=(0, 16)), launch=spec_template, repeats=3)
    plan = Planner().plan(q)
    print(plan.to_text())
    ex = LocalExecutor(ArtifactStore("artifacts")).execute(plan, make_handlers(tools))
"""

from .artifacts import ArtifactStore, task_key  # noqa: F401
from .attribution import attribute, entropy, weights  # noqa: F401
from .effects import ProbeItem, conflicts, partition  # noqa: F401
from .executor import Execution, Executor, LocalExecutor, TaskContext  # noqa: F401
from .handlers import make_handlers  # noqa: F401
from .plan import Plan, Task  # noqa: F401
from .planner import Planner  # noqa: F401
from .program import Program, Target  # noqa: F401
from .query import SIGNALS, Query, Scope, parse_ask  # noqa: F401
from .recipes import REGISTRY, Recipe  # noqa: F401
from .report import text_summary  # noqa: F401
