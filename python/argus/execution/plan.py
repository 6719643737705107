"""Plans: a DAG of transform / collect / synthesize / control tasks (the
paper's Figure 3), printable as text and JSON.

Every task is bound to a program version, a region (or none), a scope and
a backend; ``options`` is everything else that determines its output, so
(kind, op, options, the inputs' artifact keys) address its artifact
(artifacts.py). ``unavailable`` names a missing compiler capability: such a
task is planned (so the client sees what would run) but never executed.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Dict, List, Optional

TASK_KINDS = ("transform", "collect", "synthesize", "control")


@dataclasses.dataclass
class Task:
    id: str
    kind: str
    op: str
    inputs: List[str] = dataclasses.field(default_factory=list)
    options: Dict[str, Any] = dataclasses.field(default_factory=dict)
    binding: Dict[str, Any] = dataclasses.field(default_factory=dict)
    device: bool = False          # a GPU collection (serialized per device)
    unavailable: Optional[str] = None
    expands: bool = False         # a control task whose result adds tasks

    def __post_init__(self):
        if self.kind not in TASK_KINDS:
            raise ValueError(f"unknown task kind {self.kind!r}")

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        if d["unavailable"] is None:
            del d["unavailable"]
        return d


class Plan:
    """Tasks in insertion order (a topological order: a task is added after
    its inputs). ``expand`` is set by the planner: called with a control
    task and its result, it adds tasks (and inputs of existing ones)."""

    def __init__(self, query: dict, program_version: str):
        self.query = query
        self.program_version = program_version
        self.tasks: Dict[str, Task] = {}
        self.notes: List[str] = []
        self.unavailable: List[dict] = []
        self.runs: Dict[str, dict] = {}   # collect-group id -> {"items": [...], "why": ...}
        self.expand: Optional[Callable[["Plan", Task, Any], List[Task]]] = None
        self._n = 0

    def new_id(self, kind: str, what: str) -> str:
        self._n += 1
        return f"t{self._n:03d}-{kind}-{what}"

    def add(self, task: Task) -> Task:
        if task.id in self.tasks:
            raise ValueError(f"duplicate task {task.id}")
        for i in task.inputs:
            if i not in self.tasks:
                raise ValueError(f"task {task.id}: unknown input {i}")
        self.tasks[task.id] = task
        return task

    def add_input(self, task_id: str, input_id: str) -> None:
        t = self.tasks[task_id]
        if input_id not in t.inputs:
            t.inputs.append(input_id)

    def by_kind(self, kind: str) -> List[Task]:
        return [t for t in self.tasks.values() if t.kind == kind]

    def by_op(self, op: str) -> List[Task]:
        return [t for t in self.tasks.values() if t.op == op]

    def dependents(self, task_id: str) -> List[Task]:
        return [t for t in self.tasks.values() if task_id in t.inputs]

    def check_acyclic(self) -> None:
        state: Dict[str, int] = {}

        def visit(i):
            if state.get(i) == 1:
                raise ValueError(f"cycle through {i}")
            if state.get(i) == 2:
                return
            state[i] = 1
            for j in self.tasks[i].inputs:
                visit(j)
            state[i] = 2
        for i in self.tasks:
            visit(i)

    def to_json(self) -> dict:
        return {"schema": "argus.measure_plan/1", "query": self.query,
                "program_version": self.program_version,
                "tasks": [t.to_json() for t in self.tasks.values()],
                "runs": self.runs, "unavailable": self.unavailable, "notes": self.notes}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    def to_text(self) -> str:
        lines = [f"plan for program {self.program_version}: {len(self.tasks)} tasks "
                 f"({', '.join(f'{len(self.by_kind(k))} {k}' for k in TASK_KINDS)})"]
        for t in self.tasks.values():
            flag = " [GPU]" if t.device else ""
            if t.unavailable:
                flag += f" [UNAVAILABLE: {t.unavailable}]"
            if t.expands:
                flag += " [expands]"
            region = t.binding.get("region")
            head = f"  {t.id}{flag}"
            if region:
                head += f" region={region}"
            lines.append(head)
            if t.inputs:
                lines.append(f"      <- {', '.join(t.inputs)}")
            summary = t.options.get("summary")
            if summary:
                lines.append(f"      {summary}")
        if self.runs:
            lines.append("runs:")
            for rid, r in self.runs.items():
                lines.append(f"  {rid}: {', '.join(r['items']) or '(unprobed)'}"
                             + (f"  ({r['why']})" if r.get("why") else ""))
        for u in self.unavailable:
            lines.append(f"unavailable: {u['ask']}: missing {', '.join(u['missing'])}")
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)
