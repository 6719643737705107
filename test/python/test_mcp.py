"""argus-mcp over stdio with a JSON-RPC client: the handshake, the tool list,
each tool, and malformed requests (each a JSON-RPC error, never a dead
server)."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL = '''import argus

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

@argus.kernel(target="sm_90a", block=128)
def shifted(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"]):
    N = X.dim("N")
    argus.assume(N < 2 ** 22, "N < 2^22 (the verifier's index range)")
    argus.assume((N % 1024).eq(0), "one 1024-element tile per block")
    argus.assume(argus.grid_dim("x").eq(argus.cdiv(N, 1024)), "the grid covers N")
    n0 = argus.block_id("x") * 1024
    gx = argus.tag(argus.view(X, (n0,), (1024,)), lambda i: (n0 + i,))
    gy = argus.tag(argus.view(Y, (n0,), (1024,)), lambda i: (n0 + i + 1,))
    argus.store(argus.load(gx) + 1.0, gy)
    argus.tag_assert("value.i == dest.i")
'''


class Client:
    def __init__(self, *args):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.p = subprocess.Popen([sys.executable, "-m", "argus.mcp", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env)
        self.n = 0

    def send_raw(self, line: str):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        assert line, "the server closed its output"
        return json.loads(line)

    def call(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_raw(json.dumps(msg))
        r = self.read()
        assert r["id"] == self.n
        return r

    def tool(self, name, **args):
        r = self.call("tools/call", {"name": name, "arguments": args})
        assert "result" in r, r
        return r["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(10)


@pytest.fixture
def client():
    c = Client()
    r = c.call("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                              "clientInfo": {"name": "pytest", "version": "0"}})
    assert r["result"]["serverInfo"]["name"] == "argus-mcp"
    assert "tools" in r["result"]["capabilities"]
    c.send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    yield c
    c.close()


def test_tools_list(client):
    tools = client.call("tools/list")["result"]["tools"]
    assert {t["name"] for t in tools} == {"verify", "compile", "evaluate", "measure", "explain"}
    for t in tools:
        assert t["inputSchema"]["type"] == "object" and t["description"]


def test_malformed_requests_get_errors_and_the_server_lives(client):
    client.send_raw("{not json")
    assert client.read()["error"]["code"] == -32700
    client.send_raw(json.dumps({"id": 5, "method": "ping"}))          # no jsonrpc
    assert client.read()["error"]["code"] == -32600
    client.send_raw(json.dumps({"jsonrpc": "2.0", "id": 6, "method": 7}))
    assert client.read()["error"]["code"] == -32600
    client.send_raw(json.dumps([]))
    assert client.read()["error"]["code"] == -32600
    assert client.call("no/such/method")["error"]["code"] == -32601
    r = client.call("tools/call", {"name": "frobnicate", "arguments": {}})
    assert r["error"]["code"] == -32602 and "unknown tool" in r["error"]["message"]
    r = client.call("tools/call", {"name": "explain", "arguments": {"kind": 3}})
    assert r["error"]["code"] == -32602 and "must be a string" in r["error"]["message"]
    r = client.call("tools/call", {"name": "explain", "arguments": {}})
    assert "missing required argument 'kind'" in r["error"]["message"]
    r = client.call("tools/call", {"name": "verify", "arguments": {"sauce": "x"}})
    assert "unknown argument 'sauce'" in r["error"]["message"]
    r = client.call("tools/call", {"name": "explain", "arguments": "kind"})
    assert r["error"]["code"] == -32602
    # a batch: two answers, the notification none
    client.send_raw(json.dumps([{"jsonrpc": "2.0", "id": "a", "method": "ping"},
                                {"jsonrpc": "2.0", "method": "notifications/x"},
                                {"jsonrpc": "2.0", "id": "b", "method": "nope"}]))
    batch = client.read()
    assert [x["id"] for x in batch] == ["a", "b"] and batch[1]["error"]["code"] == -32601
    assert client.call("ping")["result"] == {}


def test_explain(client):
    r = client.tool("explain", kind="output-coverage")
    assert not r["isError"]
    assert "every element inside" in r["structuredContent"]["meaning"]
    r = client.tool("explain", kind="no-such-check")
    assert r["isError"] and "unknown check kind" in r["content"][0]["text"]
    assert "output-once" in r["content"][0]["text"]  # the known kinds are listed


def test_tool_errors_are_results(client):
    r = client.tool("verify", source="def broken(:\n")
    assert r["isError"] and "does not parse" in r["content"][0]["text"]
    r = client.tool("verify", source="x = 1\n")
    assert r["isError"] and "no @argus.kernel" in r["content"][0]["text"]
    r = client.tool("evaluate", task="/nonexistent/task.py", solution="/nonexistent/s.py")
    assert r["isError"] or r["structuredContent"].get("accepted") is False


@pytest.mark.verifier
def test_verify_and_compile(client, need_verifier):
    r = client.tool("verify", source=KERNEL, kernel="add1")
    k = r["structuredContent"]["kernels"]["add1"]
    assert not r["isError"] and k["proved"], k
    assert {c["kind"] for c in k["checks"]} >= {"assert", "output-once", "output-coverage"}
    r = client.tool("verify", source=KERNEL, kernel="shifted")
    k = r["structuredContent"]["kernels"]["shifted"]
    bad = [c for c in k["checks"] if c["status"] == "violated"]
    assert bad and any(c["kind"] == "assert" for c in bad)
    cx = next(c for c in bad if c["kind"] == "assert")
    assert cx["location"].endswith(":24") and cx["counterexample_json"]["elements"]
    r = client.tool("compile", source=KERNEL, kernel="add1", target="sm_90a", include_asm=True)
    c = r["structuredContent"]["kernels"]["add1"]
    assert c["bytes"] > 0 and ".entry" in c["asm"] and c["abi"]["add1"]["written_args"] == [1]


def test_measure_plan(client, tmp_path):
    src = os.path.join(ROOT, "examples", "gemm_pipelined_3stage.mlir")
    if not os.path.exists(src):
        pytest.skip("example kernel missing")
    r = client.tool("measure", program=src, ask=["mainloop:duration"])
    assert not r["isError"], r["content"][0]["text"]
    assert "mainloop" in r["structuredContent"]["text"]
    r = client.tool("measure", program=src, ask=["bogus"])
    assert r["isError"] and "bogus" in r["content"][0]["text"]


TASK = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x + 1.0

def get_inputs():
    return [torch.randn(4096)]

def get_init_inputs():
    return []
'''


@pytest.mark.verifier
def test_evaluate_a_solution_from_source(client, need_verifier):
    pytest.importorskip("torch")
    sol = KERNEL.replace("import argus", "import argus\nimport torch", 1) + '''
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        add1[None](x, y)
        return y
'''
    r = client.tool("evaluate", task_source=TASK, solution_source=sol, seeds=1)
    assert not r["isError"], r["content"][0]["text"]
    rec = r["structuredContent"]
    assert rec["accepted"] and rec["kernels"][0]["status"] == "proved", rec["reasons"]
    assert rec["correct"] is None or rec["correct"] is True  # None without a GPU: said so
