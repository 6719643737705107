"""The in-context loop (ICRL): an LLM writes Argus solutions of a
KernelBench-format task, the evaluator judges each attempt, and the next
prompt carries every previous attempt with structured feedback.

The prompt holds

* the task's source;
* a DSL reference generated from docs/Python.md (``dsl_reference``);
* the knowledge base (what a solution may do, the GEMM moves of
  ``argus.agent.knowledge``);
* every previous attempt: its code and the evaluator's feedback
  (``attempt_feedback``): op-verifier errors at the author's lines, each
  violated check as block / thread / elements with their tags / program
  point and Python line, the reason of each unknown check, compile errors,
  the glue, state and provenance findings, correctness mismatches (where,
  by how much), the speed ratio, and where the time goes when a region
  report is present (it is not produced by ``eval`` yet: the feedback says
  so). With ``feedback="passfail"`` (the ablation) only accepted/rejected.

Policy backends (``Policy.propose(prompt) -> reply text``):

* ``HTTPPolicy``: an OpenAI-compatible ``/chat/completions`` client on the
  standard library (urllib); endpoint, model and key from arguments or
  ``$ARGUS_LLM_ENDPOINT``, ``$ARGUS_LLM_MODEL``, ``$ARGUS_LLM_API_KEY``;
* ``CommandPolicy``: any executable that reads the prompt on stdin and
  writes the reply on stdout (coding-agent CLIs);
* ``ReplayPolicy``: canned replies, for tests and for re-running a log.

A policy failure (HTTP error, timeout, a command's non-zero exit) is an
attempt with status ``policy_error`` and the loop goes on (it stops after
``max_policy_errors`` in a row). Each attempt is one JSON line appended to
the log and fsynced before the next begins; ``resume`` reads the log back
and continues after the last attempt, so an interrupted run loses nothing.

    python3 -m argus.agent.icrl TASK.py --backend http --attempts 8 --log run.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Sequence


class PolicyError(Exception):
    """The policy produced no reply (HTTP error, timeout, command failure)."""


#===------------------------------------------------------------------------===#
# Prompt parts
#===------------------------------------------------------------------------===#

_DOCS_CANDIDATES = (
    os.environ.get("ARGUS_DOCS", ""),
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs"),
    "/usr/local/share/doc/argus",
)

# Sections of docs/Python.md a solution author needs, in order (each from its
# heading to the next heading of any level).
REFERENCE_SECTIONS = ("## The DSL", "### Layouts without strings",
                      "### Scans and atomic accumulation",
                      "### Compile-time constants, launching and autotuning",
                      "### Tutorial: ordinary kernels without a layout string", "### Errors",
                      "## Verification results")


def find_docs(name: str = "Python.md") -> Optional[str]:
    for d in _DOCS_CANDIDATES:
        if d and os.path.isfile(os.path.join(d, name)):
            return os.path.abspath(os.path.join(d, name))
    return None


def markdown_sections(text: str) -> Dict[str, str]:
    """Heading line -> the section's text up to the next heading (headings
    inside fenced code are text)."""
    out: Dict[str, str] = {}
    head, buf, fence = None, [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("#"):
            if head is not None:
                out[head] = "\n".join(buf).strip()
            head, buf = line.strip(), [line]
        else:
            buf.append(line)
    if head is not None:
        out[head] = "\n".join(buf).strip()
    return out


def dsl_reference(path: Optional[str] = None, budget: int = 48000) -> str:
    """The DSL reference for the prompt, cut from docs/Python.md: the
    sections of ``REFERENCE_SECTIONS``, at most ``budget`` characters.
    Without the docs, a line saying they were not found (never an invented
    reference)."""
    path = path or find_docs()
    if not path:
        return "(docs/Python.md was not found: set ARGUS_DOCS to the argus docs directory)"
    with open(path) as f:
        sections = markdown_sections(f.read())
    ref = "\n\n".join(sections[h] for h in REFERENCE_SECTIONS if h in sections)
    if len(ref) > budget:
        ref = ref[:budget] + "\n[... reference cut at the prompt budget ...]"
    return ref


SOLUTION_RULES = """\
A solution is one Python file defining `class ModelNew(torch.nn.Module)` with the same
constructor arguments as the task's `Model`. Its `forward` computes the same outputs by
launching Argus DSL kernels (`@argus.kernel`, launched as `kernel[grid](...)` on the
tensors). Glue is limited to views and reshapes, allocation (`torch.empty`, `torch.zeros`,
`empty_like`) and same-device copies; any other torch op in `forward` rejects the solution.
The evaluator accepts a solution only if every kernel it launches is proved by the tag
verifier (no violated or unknown check), every output element is written exactly once
(output-once, output-coverage), the kernels' `argus.assume` conditions hold at the task's
shapes, each output is written by a kernel of *this* call (no caching, no state kept
across calls, no writes into the inputs), and the outputs match the task's Model within
atol = rtol = 1e-2 on fresh random inputs. Parameters: build them as the task does (the
evaluator seeds both constructors identically and copies the reference's state_dict when
the names and shapes match). Write f32 tasks with f32 tiles (`mma.m16n8k8.f32.tf32` for
matrix products on sm_90a). Answer with the whole file in one ```python block."""


def knowledge_text() -> str:
    from .knowledge import KNOWLEDGE_BASE
    moves = "; ".join(f"{e['name']} ({e['category']})" for e in KNOWLEDGE_BASE
                      if e.get("implemented", True))
    return SOLUTION_RULES + "\n\nGEMM moves known to work (argus.agent.knowledge): " + moves


#===------------------------------------------------------------------------===#
# Replies and feedback
#===------------------------------------------------------------------------===#

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)


def extract_code(reply: str) -> Optional[str]:
    """The solution in a reply: the fenced block defining ``ModelNew``
    (the last such, python-tagged or untagged), else None."""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(reply or "")]
    cands = [b for lang, b in blocks if "class ModelNew" in b and lang in ("", "python", "py")]
    if cands:
        return cands[-1].strip() + "\n"
    if reply and "class ModelNew" in reply and "```" not in reply:
        return reply.strip() + "\n"
    return None


def attempt_feedback(a: dict, mode: str = "full") -> str:
    """One attempt's feedback for the prompt (``mode``: full or passfail)."""
    st = a.get("status")
    if mode == "passfail":
        return f"attempt {a['attempt']}: {'accepted' if a.get('accepted') else 'rejected'}"
    lines = [f"attempt {a['attempt']}: {st}"]
    if st == "no_code":
        lines.append("  your reply had no ```python block defining class ModelNew")
    if st == "policy_error":
        lines.append(f"  the policy failed: {a.get('error')}")
    if st == "syntax_error":
        lines.append(f"  the file does not parse: {a.get('error')}")
    rec = a.get("record") or {}
    for k in rec.get("kernels", []) or []:
        lines.append(f"  kernel {k.get('variant')}: {k.get('status')} ({k.get('summary', '')})")
        for c in k.get("checks", []):
            if c["status"] == "violated":
                lines.append(f"    VIOLATED {c['kind']} '{c['predicate']}' at {c['op']} "
                             f"({c['location']})")
                cx = c.get("counterexample_json") or {}
                if cx:
                    lines.append(f"      block {cx.get('block')}, thread {cx.get('thread')} "
                                 f"(warp {cx.get('warp')}, lane {cx.get('lane')}), slot "
                                 f"{cx.get('slot')}, loops {cx.get('loops')}")
                    for e in cx.get("elements", []) or []:
                        lines.append(f"      element {e.get('operand')} {e.get('tile_coords')} "
                                     f"{e.get('memory', '')} {e.get('global_coords', '')} "
                                     f"tags {e.get('tags')}")
                    for n in cx.get("notes", []) or []:
                        lines.append(f"      note: {n}")
                elif c.get("counterexample"):
                    lines.append(f"      {c['counterexample']}")
            elif c["status"] == "unknown":
                lines.append(f"    UNKNOWN {c['kind']} at {c['op']} ({c['location']}): "
                             f"{c.get('reason', '')}")
    for r in rec.get("reasons", []) or []:
        lines.append(f"  rejected: {r}")
    for t in rec.get("trials", []) or []:
        if t.get("correct") is False:
            lines.append(f"  mismatch ({t['kind']} trial, seed {t['seed']}): {t.get('why')}")
    if rec.get("correct") is None and rec:
        lines.append("  correctness not checked (no GPU or interpreter on the evaluator)")
    if rec.get("speedup") is not None:
        lines.append(f"  speed: {rec['speedup']:.3f}x eager"
                     + (f", {rec['speedup_compile']:.3f}x torch.compile"
                        if rec.get("speedup_compile") else ""))
    if rec.get("regions"):
        for reg in rec["regions"]:
            lines.append(f"  region {reg.get('name')}: {reg.get('share', '?')} of the time")
    elif rec.get("speedup") is not None:
        lines.append("  (no region report: eval does not measure regions yet)")
    if a.get("error") and st not in ("policy_error", "syntax_error"):
        lines.append(f"  error: {a['error']}")
    return "\n".join(lines)


def build_prompt(task_source: str, attempts: Sequence[dict], reference: str, knowledge: str,
                 feedback: str = "full", code_budget: int = 12000) -> str:
    parts = ["You write GPU kernels in the Argus tile DSL (Python, `import argus`).",
             "## Task (KernelBench format)\n```python\n" + task_source.strip() + "\n```",
             "## Rules and knowledge base\n" + knowledge,
             "## Argus DSL reference (from docs/Python.md)\n" + reference]
    if attempts:
        hist = ["## Previous attempts"]
        for a in attempts:
            code = a.get("code")
            if code:
                if len(code) > code_budget:
                    code = code[:code_budget] + "\n# [... cut ...]"
                hist.append(f"### attempt {a['attempt']}\n```python\n{code}```")
            hist.append(attempt_feedback(a, feedback))
        parts.append("\n".join(hist))
    parts.append("## Your answer\nThe complete solution file in one ```python block.")
    return "\n\n".join(parts)


#===------------------------------------------------------------------------===#
# Policies
#===------------------------------------------------------------------------===#


class Policy:
    name = "policy"

    def propose(self, prompt: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class HTTPPolicy(Policy):
    """OpenAI-compatible chat completions: POST ``{endpoint}/chat/completions``
    (``endpoint`` ends in ``/v1`` or similar; a full ``.../chat/completions``
    URL is taken as is)."""
    name = "http"

    def __init__(self, endpoint: Optional[str] = None, model: Optional[str] = None,
                 api_key: Optional[str] = None, timeout_s: float = 600.0,
                 temperature: Optional[float] = None, max_tokens: Optional[int] = None,
                 system: Optional[str] = None):
        self.endpoint = endpoint or os.environ.get("ARGUS_LLM_ENDPOINT")
        self.model = model or os.environ.get("ARGUS_LLM_MODEL")
        self.api_key = api_key if api_key is not None else os.environ.get("ARGUS_LLM_API_KEY")
        if not self.endpoint or not self.model:
            raise PolicyError("the HTTP policy needs an endpoint and a model (--endpoint/--model "
                              "or $ARGUS_LLM_ENDPOINT/$ARGUS_LLM_MODEL)")
        self.timeout_s = timeout_s
        self.temperature, self.max_tokens, self.system = temperature, max_tokens, system

    @property
    def url(self) -> str:
        e = self.endpoint.rstrip("/")
        return e if e.endswith("/chat/completions") else e + "/chat/completions"

    def propose(self, prompt: str) -> str:
        msgs = ([{"role": "system", "content": self.system}] if self.system else []) + \
            [{"role": "user", "content": prompt}]
        body = {"model": self.model, "messages": msgs}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as r:
                data = r.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace") if e.fp else ""
            raise PolicyError(f"HTTP {e.code} from {self.url}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise PolicyError(f"no reply from {self.url}: {reason}") from None
        try:
            j = json.loads(data)
            return j["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise PolicyError(f"not a chat-completions reply from {self.url}: "
                              f"{data[:200]!r}") from None


class CommandPolicy(Policy):
    """``argv`` reads the prompt on stdin and writes the reply on stdout."""
    name = "command"

    def __init__(self, argv: Sequence[str], timeout_s: float = 1800.0):
        self.argv = list(argv)
        self.timeout_s = timeout_s

    def propose(self, prompt: str) -> str:
        try:
            p = subprocess.run(self.argv, input=prompt, capture_output=True, text=True,
                               timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            raise PolicyError(f"{self.argv[0]} gave no reply within {self.timeout_s:g} s") from None
        except OSError as e:
            raise PolicyError(f"cannot run {self.argv[0]}: {e}") from None
        if p.returncode != 0:
            raise PolicyError(f"{self.argv[0]} exited with {p.returncode}: "
                              f"{p.stderr.strip()[-300:]}")
        return p.stdout


class ReplayPolicy(Policy):
    """Replies in order (strings, or a JSON-lines file of ``{"reply": ...}``
    or an attempt log: its ``reply`` fields); ``PolicyError`` when they run
    out."""
    name = "replay"

    def __init__(self, replies):
        if isinstance(replies, str):
            with open(replies) as f:
                replies = [json.loads(l).get("reply") for l in f if l.strip()]
            replies = [r for r in replies if r is not None]
        self.replies = list(replies)
        self.i = 0

    def propose(self, prompt: str) -> str:
        if self.i >= len(self.replies):
            raise PolicyError("the replay has no more replies")
        r = self.replies[self.i]
        self.i += 1
        if isinstance(r, Exception):
            raise PolicyError(str(r))
        return r


#===------------------------------------------------------------------------===#
# The loop
#===------------------------------------------------------------------------===#


def evaluate_subprocess(task: str, solution: str, args: Sequence[str] = (),
                        timeout_s: float = 1800.0) -> dict:
    """``argus-kernelbench eval`` in a child process (the suite's runner:
    a hang or crash becomes the record)."""
    from ..kernelbench.suite import run_one
    name = os.path.splitext(os.path.basename(task))[0]
    return run_one(name, task, solution, list(args), timeout_s)


@dataclasses.dataclass
class ICRL:
    task: str                       # the task file
    policy: Policy
    log: str                        # JSON-lines attempt log
    workdir: Optional[str] = None   # attempts' solution files (default: beside the log)
    attempts: int = 8
    feedback: str = "full"          # or "passfail" (the ablation)
    eval_args: Sequence[str] = ()
    eval_timeout_s: float = 1800.0
    max_policy_errors: int = 3
    stop_when_accepted: bool = True
    evaluator: Optional[Callable[[str, str], dict]] = None
    reference: Optional[str] = None
    knowledge: Optional[str] = None

    def __post_init__(self):
        self.workdir = self.workdir or os.path.splitext(self.log)[0] + ".attempts"
        os.makedirs(self.workdir, exist_ok=True)
        with open(self.task) as f:
            self.task_source = f.read()
        if self.reference is None:
            self.reference = dsl_reference()
        if self.knowledge is None:
            self.knowledge = knowledge_text()
        self.history: List[dict] = load_log(self.log) if os.path.exists(self.log) else []

    def prompt(self) -> str:
        return build_prompt(self.task_source, self.history, self.reference, self.knowledge,
                            self.feedback)

    def _append(self, a: dict) -> None:
        with open(self.log, "a") as f:
            f.write(json.dumps(a, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.history.append(a)

    def step(self) -> dict:
        n = len(self.history)
        prompt = self.prompt()
        a: Dict[str, Any] = {"attempt": n, "task": os.path.abspath(self.task),
                             "policy": self.policy.name, "feedback": self.feedback,
                             "prompt_chars": len(prompt), "time": time.time()}
        try:
            reply = self.policy.propose(prompt)
        except PolicyError as e:
            a.update(status="policy_error", error=str(e), accepted=False)
            self._append(a)
            return a
        a["reply"] = reply
        code = extract_code(reply)
        if code is None:
            a.update(status="no_code", accepted=False)
            self._append(a)
            return a
        a["code"] = code
        try:
            compile(code, f"attempt{n:03d}.py", "exec")
        except SyntaxError as e:
            a.update(status="syntax_error", accepted=False,
                     error=f"line {e.lineno}: {e.msg}: {(e.text or '').strip()}")
            self._append(a)
            return a
        path = os.path.join(self.workdir, f"attempt{n:03d}.py")
        with open(path, "w") as f:
            f.write(code)
        a["solution_path"] = path
        ev = self.evaluator or (lambda t, s: evaluate_subprocess(t, s, self.eval_args,
                                                                 self.eval_timeout_s))
        rec = ev(os.path.abspath(self.task), path)
        a["record"] = rec
        a["accepted"] = bool(rec.get("accepted"))
        a["correct"] = rec.get("correct")
        a["speedup"] = rec.get("speedup")
        a["status"] = rec.get("status", "rejected") if rec.get("failure") is None \
            else rec["failure"]
        self._append(a)
        return a

    def run(self) -> List[dict]:
        errors = 0
        while len(self.history) < self.attempts:
            if self.stop_when_accepted and any(h.get("accepted") for h in self.history):
                break
            a = self.step()
            errors = errors + 1 if a["status"] == "policy_error" else 0
            if errors >= self.max_policy_errors:
                break
        return self.history


def load_log(path: str) -> List[dict]:
    """The attempts of a log, in order; a torn last line (the process was
    killed while writing) is dropped, any other bad line is an error."""
    out = []
    with open(path) as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            a = json.loads(line)
        except ValueError:
            if i >= len(lines) - 2:  # the last line, cut short
                break
            raise ValueError(f"{path}:{i + 1}: not a JSON attempt record") from None
        if not isinstance(a, dict) or "attempt" not in a:
            raise ValueError(f"{path}:{i + 1}: not an attempt record")
        out.append(a)
    for k, a in enumerate(out):
        if a["attempt"] != k:
            raise ValueError(f"{path}: attempt {a['attempt']} where {k} was expected")
    if len(out) < sum(1 for l in lines if l.strip()):  # rewrite without the torn line
        with open(path, "w") as f:
            for a in out:
                f.write(json.dumps(a, default=str) + "\n")
    return out


#===------------------------------------------------------------------------===#
# The ablation: counterexample feedback against pass/fail only
#===------------------------------------------------------------------------===#

ARMS = ("full", "passfail")
WITHIN = (1, 2, 4, 8)


def run_ablation(tasks: Sequence[str], make_policy: Callable[[str, str], Policy], out_dir: str,
                 attempts: int = 8, arms: Sequence[str] = ARMS, **loop_options) -> dict:
    """For each task and arm (``feedback`` mode), the loop into
    ``out_dir/<arm>/<task>.jsonl`` (resumed when it exists), with a policy
    from ``make_policy(task, arm)`` (the same endpoint, model and
    temperature for both arms); then :func:`ablation_summary`. The loop
    stops at the first accepted attempt."""
    for arm in arms:
        for t in tasks:
            name = os.path.splitext(os.path.basename(t))[0]
            d = os.path.join(out_dir, arm)
            os.makedirs(d, exist_ok=True)
            ICRL(t, make_policy(t, arm), os.path.join(d, name + ".jsonl"), attempts=attempts,
                 feedback=arm, **loop_options).run()
    return ablation_summary(out_dir, arms, attempts)


def ablation_summary(out_dir: str, arms: Sequence[str] = ARMS, attempts: int = 8) -> dict:
    """Per arm, from the logs: tasks, the fraction solved (accepted and
    correct; accepted alone where correctness could not be checked, and the
    summary says how many were checked) within k attempts for k in WITHIN,
    the mean attempts to the first solution (over the solved), and the
    fraction with a speedup > 1 at their first solution."""
    out = {}
    for arm in arms:
        d = os.path.join(out_dir, arm)
        logs = sorted(f for f in os.listdir(d) if f.endswith(".jsonl")) if os.path.isdir(d) else []
        first, checked, fast = [], 0, 0
        for f in logs:
            hist = load_log(os.path.join(d, f))
            sol = next((h for h in hist if h.get("accepted") and h.get("correct") is not False),
                       None)
            if sol is not None:
                first.append(sol["attempt"] + 1)
                checked += sol.get("correct") is True
                fast += (sol.get("speedup") or 0) > 1
            else:
                first.append(None)
        n = len(logs)
        solved = [a for a in first if a is not None]
        out[arm] = {"tasks": n, "solved": len(solved), "correctness_checked": checked,
                    "within": {str(k): (sum(1 for a in solved if a <= k) / n if n else None)
                               for k in WITHIN if k <= attempts},
                    "mean_attempts_to_solve": (sum(solved) / len(solved)) if solved else None,
                    "fast_1_at_first_solution": fast / n if n else None}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m argus.agent.icrl",
                                 description="the in-context loop on one KernelBench-format task "
                                 "(or, with --ablation OUT, on every task of a suite directory, "
                                 "once per feedback arm)")
    ap.add_argument("task", help="a task file, or with --ablation a suite directory (tasks/)")
    ap.add_argument("--ablation", default=None, metavar="OUT",
                    help="run both arms (full, passfail) on every task; logs under OUT")
    ap.add_argument("--backend", choices=("http", "command", "replay"), default="http")
    ap.add_argument("--endpoint", default=None, help="OpenAI-compatible base URL ($ARGUS_LLM_ENDPOINT)")
    ap.add_argument("--model", default=None, help="model name ($ARGUS_LLM_MODEL)")
    ap.add_argument("--api-key-env", default="ARGUS_LLM_API_KEY",
                    help="environment variable holding the key (default ARGUS_LLM_API_KEY)")
    ap.add_argument("--command", default=None, help="command backend: the program and arguments")
    ap.add_argument("--replay", default=None, help="replay backend: a JSON-lines file")
    ap.add_argument("--attempts", type=int, default=8)
    ap.add_argument("--log", default=None, help="JSON-lines attempt log (resumed if it exists)")
    ap.add_argument("--feedback", choices=("full", "passfail"), default="full")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per policy call")
    ap.add_argument("--eval-timeout", type=float, default=1800.0)
    ap.add_argument("--eval-arg", action="append", default=[],
                    help="an argument passed to argus-kernelbench eval (repeatable)")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first accepted attempt")
    a = ap.parse_args(argv)
    try:
        if a.backend == "http":
            pol: Policy = HTTPPolicy(a.endpoint, a.model, os.environ.get(a.api_key_env), a.timeout)
        elif a.backend == "command":
            if not a.command:
                ap.error("--backend command needs --command")
            import shlex
            pol = CommandPolicy(shlex.split(a.command), a.timeout)
        else:
            if not a.replay:
                ap.error("--backend replay needs --replay")
            pol = ReplayPolicy(a.replay)
    except PolicyError as e:
        print(f"icrl: {e}", file=sys.stderr)
        return 2
    if a.ablation:
        import glob
        tdir = os.path.join(a.task, "tasks") if os.path.isdir(os.path.join(a.task, "tasks")) \
            else a.task
        tasks = sorted(t for t in glob.glob(os.path.join(tdir, "*.py"))
                       if not os.path.basename(t).startswith("_"))
        fresh = (lambda t, arm: ReplayPolicy(a.replay)) if a.backend == "replay" else \
            (lambda t, arm: pol)
        summ = run_ablation(tasks, fresh, a.ablation, attempts=a.attempts,
                            eval_args=a.eval_arg, eval_timeout_s=a.eval_timeout)
        print(json.dumps(summ, indent=1))
        with open(os.path.join(a.ablation, "summary.json"), "w") as f:
            json.dump(summ, f, indent=1)
        return 0
    if not a.log:
        ap.error("--log is required (the attempt log)")
    loop = ICRL(a.task, pol, a.log, attempts=a.attempts, feedback=a.feedback,
                eval_args=a.eval_arg, eval_timeout_s=a.eval_timeout,
                stop_when_accepted=not a.keep_going)
    for h in loop.run():
        print(f"attempt {h['attempt']}: {h['status']}"
              + (f", {h['speedup']:.2f}x eager" if h.get("speedup") else ""))
    return 0 if any(h.get("accepted") for h in loop.history) else 1


if __name__ == "__main__":
    sys.exit(main())
