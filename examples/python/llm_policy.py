"""A user policy for the argus agent loop that asks a language model.

The policy formats each record's feedback (verification results with
counterexamples: thread, element, tags, program point with the Python line;
compile errors; time) as text, hands it to ``llm`` -- any callable from a
prompt string to a reply string (no network access is made here: plug in your
own client) -- and parses the reply as a JSON object of knob changes.

    from argus.agent import AgentLoop, Budget, GemmTask
    loop = AgentLoop(GemmTask(), LLMPolicy(my_llm), Budget(steps=8))
    loop.run()
"""

import json
from typing import Callable, List, Optional

from argus.agent import Policy, Variant


def format_feedback(record: dict) -> str:
    """A record as text for a model."""
    lines = [f"attempt {record['step']}: {record['summary']} -> {record['status']}"]
    ver = record.get("verification") or {}
    if ver.get("summary"):
        lines.append(f"  verification: {ver['summary']}")
    for c in record.get("violations", []):
        lines.append(f"  VIOLATED {c['kind']}: {c['predicate']}")
        lines.append(f"    at {c['op']} ({c['location']})")
        for cx in c.get("counterexamples", [])[:1]:
            blk = cx.get("block", {})
            lines.append(f"    thread {cx.get('thread')} (warp {cx.get('warp')}, lane "
                         f"{cx.get('lane')}), slot {cx.get('slot')}, block {blk}")
            for l in cx.get("loops", []):
                lines.append(f"    loop {l.get('loop')} iteration {l.get('iv')}")
            for e in cx.get("elements", []):
                lines.append(f"    element {e.get('operand')} {e.get('tile_coords')} "
                             f"{e.get('memory', '')} tags {e.get('tags')}")
            for n in cx.get("notes", []):
                lines.append(f"    note: {n}")
    for e in record.get("errors", []):
        lines.append(f"  error: {e.splitlines()[0]}")
    if record.get("time_ms"):
        lines.append(f"  time {record['time_ms']:.4f} ms, correct={record.get('correct')}")
    return "\n".join(lines)


PROMPT = """You tune a GEMM kernel. Knobs: {knobs}.
Current variant: {variant}
History (most recent last):
{history}
Reply with a JSON object of knob changes for the next attempt."""


class LLMPolicy(Policy):
    def __init__(self, llm: Callable[[str], str], start: Optional[Variant] = None,
                 max_history: int = 5):
        self.llm = llm
        self.current = start or Variant()
        self.max_history = max_history
        self.note = ""

    def propose(self, history: List[dict]) -> Optional[Variant]:
        if not history:
            self.note = "start"
            return self.current
        text = "\n".join(format_feedback(r) for r in history[-self.max_history:])
        prompt = PROMPT.format(knobs=", ".join(self.current.to_dict()),
                               variant=json.dumps(self.current.to_dict()), history=text)
        reply = self.llm(prompt)
        try:
            changes = json.loads(reply)
            self.current = self.current.replace(**changes)
        except (ValueError, TypeError) as e:
            self.note = f"unusable reply: {e}"
            return None
        self.note = f"llm: {reply[:80]}"
        return self.current

    def observe(self, record: dict) -> None:
        if record["status"] in ("verified", "compiled", "measured"):
            self.current = Variant.from_dict(record["variant"])


if __name__ == "__main__":
    from argus.agent import AgentLoop, Budget, GemmTask

    def offline_llm(prompt: str) -> str:  # stand-in for a real model
        print(prompt, "\n---")
        return json.dumps({"wait": None})

    loop = AgentLoop(GemmTask(), LLMPolicy(offline_llm, start=Variant(wait=1)), Budget(steps=2),
                     measure="none")
    for r in loop.run():
        print(format_feedback(r))
