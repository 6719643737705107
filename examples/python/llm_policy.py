"""A user policy for the argus agent loop that asks a language model.

The policy formats each record's feedback with argus.agent.format_feedback
(verification results with counterexamples: thread, element, tags, program
point with the Python line; compile errors; time; the region report of a
measured variant) as text, hands it to ``llm`` -- any callable from a
prompt string to a reply string (no network access is made here: plug in your
own client) -- and parses the reply as a JSON object of knob changes.

    from argus.agent import AgentLoop, Budget, GemmTask
    loop = AgentLoop(GemmTask(), LLMPolicy(my_llm), Budget(steps=8))
    loop.run()
"""

import json
from typing import Callable, List, Optional

from argus.agent import Policy, Variant, format_feedback  # noqa: F401 (the feedback text)


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
