"""argus.agent.icrl against a local HTTP stub on 127.0.0.1 (canned answers:
good solutions, no code, syntax errors, hanging kernels, timeouts, HTTP
errors), the command and replay backends, and the resumable attempt log.
No numbers are claimed from the stub: it only checks that every answer
becomes feedback or a clear error."""

import http.server
import os
import json
import sys
import threading
import time

import pytest

from argus.agent import icrl

TASK = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return x + 1.0

N = 4096
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
'''

GOOD = '''```python
import torch
import argus

@argus.kernel(target="sm_90a", block=128)
def add1(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"]):
    N = X.dim("N")
    argus.assume(N < 2 ** 22, "N < 2^22 (the verifier's index range)")
    argus.assume((N % 1024).eq(0), "one 1024-element tile per block")
    argus.assume(argus.grid_dim("x").eq(argus.cdiv(N, 1024)), "the grid covers N")
    n0 = argus.block_id("x") * 1024
    gx = argus.tag(argus.view(X, (n0,), (1024,)), lambda i: (n0 + i,))
    gy = argus.tag(argus.view(Y, (n0,), (1024,)), lambda i: (n0 + i,))
    argus.store(argus.load(gx) + 1.0, gy)
    argus.tag_assert("value.i == dest.i")

class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1[None](x, y)
        return y
```'''

HANG = '''Here it is:
```python
import torch

class ModelNew(torch.nn.Module):
    def forward(self, x):
        while True:
            pass
```'''

SYNTAX = '```python\nclass ModelNew(torch.nn.Module)\n    def forward(self, x) return x\n```'
NOCODE = "I would use a blocked layout with 16-byte vectors."


class Stub:
    """A chat-completions endpoint answering from a script of canned
    replies: {"content": text} | {"status": code} | {"sleep": s, "content": text}
    | {"raw": bytes}."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        stub = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                stub.requests.append({"path": self.path, "body": json.loads(body),
                                      "auth": self.headers.get("Authorization")})
                item = stub.script.pop(0) if stub.script else {"status": 503}
                if item.get("sleep"):
                    time.sleep(item["sleep"])
                if "status" in item:
                    self.send_response(item["status"])
                    self.end_headers()
                    self.wfile.write(b'{"error": "canned failure"}')
                    return
                data = item.get("raw") or json.dumps(
                    {"choices": [{"message": {"role": "assistant",
                                              "content": item["content"]}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:
                    pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def task(tmp_path):
    p = tmp_path / "add_one.py"
    p.write_text(TASK)
    return str(p)


def fake_evaluator(records):
    """An evaluator returning canned records in order (for prompt/log tests)."""
    seen = []

    def ev(task, solution):
        seen.append(open(solution).read())
        return records.pop(0)
    ev.seen = seen
    return ev


def test_http_policy_each_canned_answer_becomes_feedback_or_error(task, tmp_path):
    stub = Stub([{"content": NOCODE}, {"content": SYNTAX}, {"status": 500},
                 {"sleep": 3, "content": GOOD}, {"raw": b"not json"}, {"content": GOOD}])
    try:
        pol = icrl.HTTPPolicy(stub.url, "stub-model", "secret", timeout_s=1.0)
        rec = {"accepted": True, "correct": None, "status": "proved, not run",
               "kernels": [{"variant": "add1", "status": "proved", "summary": "5 checks: 5 proved",
                            "checks": []}], "reasons": []}
        ev = fake_evaluator([rec])
        loop = icrl.ICRL(task, pol, str(tmp_path / "log.jsonl"), attempts=10, evaluator=ev,
                         max_policy_errors=5)
        hist = loop.run()
    finally:
        stub.close()
    assert [h["status"] for h in hist] == ["no_code", "syntax_error", "policy_error",
                                           "policy_error", "policy_error",
                                           "proved, not run"]
    assert "HTTP 500" in hist[2]["error"]
    assert "no reply" in hist[3]["error"] and "timed out" in hist[3]["error"]
    assert "not a chat-completions reply" in hist[4]["error"]
    assert hist[-1]["accepted"] and "class ModelNew" in ev.seen[0]
    # the request: model, one user message carrying the task, the key as a bearer token
    req = stub.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["body"]["model"] == "stub-model"
    assert req["auth"] == "Bearer secret"
    assert "def get_inputs" in req["body"]["messages"][0]["content"]
    # later prompts carry the earlier attempts' feedback
    last = stub.requests[-1]["body"]["messages"][0]["content"]
    assert "attempt 0: no_code" in last and "no ```python block" in last
    assert "attempt 1: syntax_error" in last and "line 1" in last
    assert "HTTP 500" in last


def test_prompt_has_reference_knowledge_and_structured_feedback(task, tmp_path):
    cx = {"block": {"x": 3}, "thread": 17, "warp": 0, "lane": 17, "slot": 2,
          "loops": [{"loop": "kt", "iv": 1}],
          "elements": [{"operand": "value", "tile_coords": [5], "memory": "global",
                        "global_coords": [3077], "tags": {"i": 3076}}], "notes": ["written at x.py:9"]}
    rec = {"accepted": False, "correct": False, "status": "rejected",
           "kernels": [{"variant": "add1", "status": "violated", "summary": "5 checks: 4 proved, 1 violated",
                        "checks": [{"kind": "assert", "status": "violated",
                                    "predicate": "value.i == dest.i", "op": "argus.store",
                                    "location": "attempt000.py:12", "counterexample_json": cx},
                                   {"kind": "output-coverage", "status": "unknown",
                                    "op": "argus.store", "location": "attempt000.py:11",
                                    "reason": "the construction failed", "predicate": ""}]}],
           "reasons": ["kernel add1: assert violated"],
           "trials": [{"kind": "fresh", "seed": 42, "correct": False,
                       "why": "output 0: 7 of 4096 elements differ; first at [3077]"}]}
    loop = icrl.ICRL(task, icrl.ReplayPolicy([GOOD, GOOD]), str(tmp_path / "l.jsonl"),
                     attempts=2, evaluator=fake_evaluator([rec, dict(rec)]),
                     stop_when_accepted=False)
    loop.run()
    p = loop.prompt()
    assert "## Argus DSL reference" in p and "argus.copy_layout" in p  # from docs/Python.md
    assert "output-once" in p and "glue" in p.lower()                  # the rules
    assert "VIOLATED assert 'value.i == dest.i' at argus.store (attempt000.py:12)" in p
    assert "thread 17 (warp 0, lane 17)" in p and "tags {'i': 3076}" in p
    assert "UNKNOWN output-coverage" in p and "the construction failed" in p
    assert "first at [3077]" in p
    # the ablation: pass/fail only
    loop.feedback = "passfail"
    q = loop.prompt()
    assert "attempt 0: rejected" in q and "VIOLATED" not in q and "3077" not in q


def test_log_is_resumable_and_a_torn_line_is_dropped(task, tmp_path):
    log = str(tmp_path / "log.jsonl")
    rec = {"accepted": False, "correct": None, "status": "rejected", "reasons": ["x"]}
    loop = icrl.ICRL(task, icrl.ReplayPolicy([NOCODE, GOOD]), log, attempts=2,
                     evaluator=fake_evaluator([rec]))
    loop.run()
    lines = open(log).read().splitlines()
    assert len(lines) == 2
    with open(log, "a") as f:
        f.write('{"attempt": 2, "stat')  # killed mid-write
    loop2 = icrl.ICRL(task, icrl.ReplayPolicy([SYNTAX]), log, attempts=3,
                      evaluator=fake_evaluator([]))
    assert [h["attempt"] for h in loop2.history] == [0, 1]
    hist = loop2.run()
    assert [h["status"] for h in hist] == ["no_code", "rejected", "syntax_error"]
    assert [json.loads(l)["attempt"] for l in open(log).read().splitlines()] == [0, 1, 2]
    # a log of something else is refused with the line
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n{"attempt": 0}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        icrl.load_log(str(bad))


def test_command_backend(task, tmp_path):
    prog = tmp_path / "agent.py"
    prog.write_text("import sys\nprompt = sys.stdin.read()\n"
                    "assert 'get_init_inputs' in prompt\n"
                    f"print({GOOD!r})\n")
    pol = icrl.CommandPolicy([sys.executable, str(prog)], timeout_s=30)
    assert "class ModelNew" in icrl.extract_code(pol.propose("... get_init_inputs ..."))
    with pytest.raises(icrl.PolicyError, match="exited with 1"):
        pol.propose("nothing")
    slow = icrl.CommandPolicy([sys.executable, "-c", "import time; time.sleep(10)"], timeout_s=0.5)
    with pytest.raises(icrl.PolicyError, match="no reply within"):
        slow.propose("x")


def test_extract_code():
    assert icrl.extract_code(NOCODE) is None
    two = "```python\nx = 1\n```\ntext\n```python\nclass ModelNew: pass\n```"
    assert icrl.extract_code(two).startswith("class ModelNew")
    assert icrl.extract_code("```cpp\nclass ModelNew {};\n```") is None


def test_http_policy_needs_endpoint(monkeypatch):
    monkeypatch.delenv("ARGUS_LLM_ENDPOINT", raising=False)
    monkeypatch.delenv("ARGUS_LLM_MODEL", raising=False)
    with pytest.raises(icrl.PolicyError, match="endpoint and a model"):
        icrl.HTTPPolicy()


def test_hanging_kernel_becomes_a_timeout_record(task, tmp_path):
    """The real evaluator in a child process: a solution whose forward never
    returns is killed at the worker timeout, and the attempt says so."""
    pytest.importorskip("torch")
    stub = Stub([{"content": HANG}])
    try:
        loop = icrl.ICRL(task, icrl.HTTPPolicy(stub.url, "m", None, timeout_s=10),
                         str(tmp_path / "log.jsonl"), attempts=1,
                         eval_args=["--worker-timeout", "3", "--seeds", "1",
                                    "--executor", "capture"], eval_timeout_s=120)
        hist = loop.run()
    finally:
        stub.close()
    a = hist[0]
    assert a["status"] == "timeout", a
    assert "did not answer 'call' within 3 s" in a["record"]["reasons"][0]
    assert "timeout" in icrl.attempt_feedback(a)


@pytest.mark.verifier
def test_end_to_end_a_good_answer_is_accepted_by_the_real_evaluator(task, tmp_path, need_verifier):
    """Stub -> prompt -> reply -> the real evaluator in a child process
    (capture mode: correctness is said to be unchecked) -> the loop stops."""
    pytest.importorskip("torch")
    stub = Stub([{"content": NOCODE}, {"content": GOOD}, {"content": GOOD}])
    try:
        loop = icrl.ICRL(task, icrl.HTTPPolicy(stub.url, "m", None, timeout_s=10),
                         str(tmp_path / "log.jsonl"), attempts=5,
                         eval_args=["--seeds", "1", "--executor", "capture"], eval_timeout_s=300)
        hist = loop.run()
    finally:
        stub.close()
    assert [h["status"] for h in hist] == ["no_code", "proved, not run (correctness not checked)"]
    rec = hist[-1]["record"]
    assert rec["accepted"] and rec["correct"] is None
    assert rec["kernels"][0]["status"] == "proved"
    assert len(stub.requests) == 2  # stopped at the first accepted attempt


def test_cli_with_the_replay_backend(task, tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"reply": NOCODE}) + "\n" + json.dumps({"reply": SYNTAX}) + "\n")
    log = tmp_path / "log.jsonl"
    rc = icrl.main([task, "--backend", "replay", "--replay", str(replies), "--attempts", "3",
                    "--log", str(log)])
    assert rc == 1  # nothing accepted
    hist = icrl.load_log(str(log))
    assert [h["status"] for h in hist] == ["no_code", "syntax_error", "policy_error"]
    assert "no more replies" in hist[2]["error"]


def test_ablation_runs_both_arms_and_summarizes_from_the_logs(tmp_path):
    tasks = []
    for name in ("a", "b"):
        p = tmp_path / f"{name}.py"
        p.write_text(TASK)
        tasks.append(str(p))
    ok = {"accepted": True, "correct": True, "speedup": 1.5, "status": "accepted", "reasons": []}
    bad = {"accepted": False, "correct": False, "status": "rejected", "reasons": ["x"]}
    # full arm: task a solved at attempt 2, task b at attempt 1;
    # passfail arm: task a never (3 attempts), task b at attempt 3
    script = {("full", "a"): [bad, ok], ("full", "b"): [ok],
              ("passfail", "a"): [bad, bad, bad], ("passfail", "b"): [bad, bad, ok]}
    evals = {}

    def make_policy(task, arm):
        key = (arm, os.path.splitext(os.path.basename(task))[0])
        recs = list(script[key])
        evals[key] = lambda t, s: recs.pop(0)
        return icrl.ReplayPolicy([GOOD] * len(script[key]))

    class PerArm(icrl.ICRL):
        def __post_init__(self):
            self.evaluator = evals[(self.feedback,
                                    os.path.splitext(os.path.basename(self.task))[0])]
            super().__post_init__()

    orig = icrl.ICRL
    icrl.ICRL = PerArm
    try:
        summ = icrl.run_ablation(tasks, make_policy, str(tmp_path / "abl"), attempts=4)
    finally:
        icrl.ICRL = orig
    assert summ["full"]["within"] == {"1": 0.5, "2": 1.0, "4": 1.0}
    assert summ["full"]["mean_attempts_to_solve"] == 1.5
    assert summ["passfail"]["within"] == {"1": 0.0, "2": 0.0, "4": 0.5}
    assert summ["passfail"]["solved"] == 1 and summ["passfail"]["fast_1_at_first_solution"] == 0.5
    # the logs are the source: summarizing again gives the same numbers
    assert icrl.ablation_summary(str(tmp_path / "abl"), attempts=4) == summ
