"""argus-mcp: a Model Context Protocol server over stdio for agents.

JSON-RPC 2.0, one message per line on stdin/stdout (MCP's stdio transport),
on the standard library. Methods: ``initialize``, ``notifications/initialized``,
``ping``, ``tools/list``, ``tools/call``. Tools:

* ``verify`` — DSL source (Python defining ``@argus.kernel`` objects) or IR
  text; returns the verifier's structured report per kernel (checks,
  counterexamples with block / thread / elements / Python line, unknown
  reasons);
* ``compile`` — the same inputs and a target; the assembly's size, the launch
  ABI (grid rule, dynamic shared memory, written tensors) and optionally the
  assembly;
* ``evaluate`` — a KernelBench-format task and a solution (paths or
  source), through ``argus-kernelbench eval`` in a child process;
* ``measure`` — a region-measurement planner query (``argus-measure plan``:
  program, asks, scope), returning the plan;
* ``explain`` — a check kind's meaning, cut from docs/Verifier.md.

Every tool runs in a child process with a time limit (``--tool-timeout``,
default 600 s), so a hanging or crashing kernel cannot take the server down;
a tool's failure is a result with ``isError: true``, a malformed request a
JSON-RPC error (-32700 parse error, -32600 invalid request, -32601 unknown
method, -32602 invalid params).

A client configuration (Claude Desktop / most MCP clients)::

    {"mcpServers": {"argus": {"command": "argus-mcp", "args": []}}}
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, List, Optional

PROTOCOL_VERSION = "2024-11-05"
SERVER_INFO = {"name": "argus-mcp", "version": "0.1"}

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = \
    -32700, -32600, -32601, -32602, -32603

_SRC = {"source": {"type": "string", "description": "Python DSL source defining @argus.kernel objects"},
        "ir": {"type": "string", "description": "argus MLIR text (instead of source)"},
        "kernel": {"type": "string", "description": "the kernel to take (default: every kernel)"},
        "constexprs": {"type": "object", "description": "values of argus.constexpr parameters"}}

TOOLS = [
    {"name": "verify", "description": "Prove a kernel's tag assertions and implicit checks; "
     "returns each check's status with counterexamples (block, thread, elements and tags, "
     "program point, Python line) and unknown reasons.",
     "inputSchema": {"type": "object", "properties": dict(_SRC, timeout_ms={"type": "integer"}),
                     "additionalProperties": False}},
    {"name": "compile", "description": "Lower a kernel to PTX (sm_90a) or AMDGPU assembly "
     "(gfx942); returns the size, the launch ABI and optionally the assembly.",
     "inputSchema": {"type": "object", "properties": dict(_SRC, target={"type": "string"},
                                                         include_asm={"type": "boolean"}),
                     "additionalProperties": False}},
    {"name": "evaluate", "description": "Evaluate an Argus solution of a KernelBench-format "
     "task: proofs, envelope, honesty checks, correctness and timing where a GPU is present.",
     "inputSchema": {"type": "object", "properties": {
         "task": {"type": "string", "description": "task file path"},
         "task_source": {"type": "string"},
         "solution": {"type": "string", "description": "solution file path"},
         "solution_source": {"type": "string"},
         "seeds": {"type": "integer"}, "allow_unknown": {"type": "boolean"}},
         "additionalProperties": False}},
    {"name": "measure", "description": "Plan a region measurement query (argus-measure plan): "
     "program (an .mlir file path or IR text), asks REGION:SIGNAL, optional scope.",
     "inputSchema": {"type": "object", "properties": {
         "program": {"type": "string"}, "ir": {"type": "string"},
         "ask": {"type": "array", "items": {"type": "string"}},
         "iterations": {"type": "string"}, "warps": {"type": "string"},
         "roles": {"type": "string"}, "blocks": {"type": "string"}},
         "required": ["ask"], "additionalProperties": False}},
    {"name": "explain", "description": "What a verifier check kind means (from docs/Verifier.md).",
     "inputSchema": {"type": "object", "properties": {"kind": {"type": "string"}},
                     "required": ["kind"], "additionalProperties": False}},
]
TOOL_NAMES = {t["name"] for t in TOOLS}


class ToolError(Exception):
    pass


#===------------------------------------------------------------------------===#
# Tools (run in a child process: ``python3 -m argus.mcp --run-tool NAME``)
#===------------------------------------------------------------------------===#


def _kernels_from(args: dict) -> List[Any]:
    """(name, module) pairs of the kernels named by a tool call."""
    from . import ir as _ir
    if args.get("ir") is not None:
        return [("<ir>", _ir.parse(args["ir"], "<ir>"), None)]
    src = args.get("source")
    if not src:
        raise ToolError("give 'source' (DSL Python) or 'ir' (MLIR text)")
    import types
    from .dsl.kernel import Kernel
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, prefix="argus_mcp_") as f:
        f.write(src)
        path = f.name
    mod = types.ModuleType("argus_mcp_source")
    mod.__file__ = path
    try:
        exec(compile(src, path, "exec"), mod.__dict__)
    except SyntaxError as e:
        raise ToolError(f"the source does not parse: line {e.lineno}: {e.msg}") from None
    ks = [(n, v) for n, v in vars(mod).items() if isinstance(v, Kernel)]
    if args.get("kernel"):
        ks = [(n, v) for n, v in ks if n == args["kernel"] or v.name == args["kernel"]]
    if not ks:
        raise ToolError("no @argus.kernel object " +
                        (f"named {args['kernel']!r} " if args.get("kernel") else "") +
                        "at the source's top level")
    out = []
    for n, k in ks:
        cx = args.get("constexprs") or {}
        if k.constexpr_names:
            k = k.specialize(**{c: v for c, v in cx.items() if c in k.constexpr_names})
        out.append((k.name, k.module(), k))
    return out


def tool_verify(args: dict) -> dict:
    from .kernelbench.proof import check_record
    from .verify import verify_module
    res = {}
    for name, module, _ in _kernels_from(args):
        r = verify_module(module, raise_on_violation=False,
                          timeout_ms=args.get("timeout_ms"))
        res[name] = {"summary": r.summary(), "proved": r.proved,
                     "checks": [check_record(c) for c in r.checks]}
    return {"kernels": res}


def tool_compile(args: dict) -> dict:
    from .compile import _compile_module
    out = {}
    for name, module, k in _kernels_from(args):
        target = args.get("target") or (k.target if k is not None else "sm_90a")
        data, diags, kernels = _compile_module(module, target, False, "isa", None, ())
        kern = {}
        for kn, abi in kernels.items():
            kern[kn] = {"grid": abi.grid, "dynamic_smem": abi.dynamic_smem,
                        "written_args": sorted({p.arg for p in abi.params
                                                if p.kind == "buffer" and p.written})}
        out[name] = {"target": target, "bytes": len(data), "abi": kern}
        if args.get("include_asm"):
            out[name]["asm"] = data.decode("utf-8", "replace")
    return {"kernels": out}


def _materialize(args: dict, key: str, src_key: str, d: str) -> str:
    if args.get(key):
        return os.path.abspath(args[key])
    if args.get(src_key):
        p = os.path.join(d, key + ".py")
        with open(p, "w") as f:
            f.write(args[src_key])
        return p
    raise ToolError(f"give '{key}' (a path) or '{src_key}' (the file's text)")


def tool_evaluate(args: dict) -> dict:
    from .kernelbench.suite import run_one
    d = tempfile.mkdtemp(prefix="argus-mcp-eval-")
    task = _materialize(args, "task", "task_source", d)
    sol = _materialize(args, "solution", "solution_source", d)
    extra = ["--seeds", str(int(args.get("seeds", 5)))]
    if args.get("allow_unknown"):
        extra.append("--allow-unknown")
    return run_one(os.path.splitext(os.path.basename(task))[0], task, sol, extra,
                   float(os.environ.get("ARGUS_MCP_EVAL_TIMEOUT", "1800")))


def tool_measure(args: dict) -> dict:
    from .measure.planner import Planner
    from .measure.query import Query, Scope, parse_ask
    prog = args.get("program")
    if not prog and args.get("ir"):
        fd, prog = tempfile.mkstemp(suffix=".mlir", prefix="argus-mcp-")
        with os.fdopen(fd, "w") as f:
            f.write(args["ir"])
    if not prog:
        raise ToolError("give 'program' (an .mlir path) or 'ir'")
    asks = args.get("ask")
    if not isinstance(asks, list) or not asks:
        raise ToolError("'ask' is a non-empty list of REGION:SIGNAL")
    try:
        q = Query(prog, asks=[parse_ask(x) for x in asks],
                  scope=Scope.parse(args.get("roles", ""), args.get("warps", ""),
                                    args.get("blocks", ""), args.get("iterations", "")))
        plan = Planner().plan(q)
    except (ValueError, OSError) as e:
        raise ToolError(str(e)) from None
    return {"plan": plan.to_json(), "text": plan.to_text()}


def _verifier_docs() -> Optional[str]:
    from .agent.icrl import find_docs
    return find_docs("Verifier.md")


def known_kinds(text: str) -> List[str]:
    kinds = set(re.findall(r"\*\*`([a-z][a-z0-9-]+)`\*\*", text))
    kinds |= set(re.findall(r"^\| `([a-z][a-z0-9-]+)` \|", text, re.M))
    return sorted(k for k in kinds if "-" in k or k in ("assert",))


def tool_explain(args: dict) -> dict:
    kind = args.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ToolError("'kind' is a check kind, e.g. output-coverage")
    path = _verifier_docs()
    if path is None:
        raise ToolError("docs/Verifier.md was not found (set ARGUS_DOCS)")
    text = open(path).read()
    paras = re.split(r"\n\s*\n", text)
    hits = []
    for p in paras:
        if f"**`{kind}`**" in p:
            hits.append(p.strip())
    for line in text.splitlines():
        if line.startswith(f"| `{kind}` |"):
            hits.append(line.strip())
    if not hits:
        hits = [p.strip() for p in paras if f"`{kind}`" in p][:3]
    if not hits:
        raise ToolError(f"unknown check kind {kind!r}; known: {', '.join(known_kinds(text))}")
    return {"kind": kind, "meaning": "\n\n".join(hits), "source": "docs/Verifier.md"}


_TOOL_FUNCS = {"verify": tool_verify, "compile": tool_compile, "evaluate": tool_evaluate,
               "measure": tool_measure, "explain": tool_explain}


def _run_tool_child(name: str) -> int:
    """Child side: arguments as JSON on stdin, ``{"ok": result}`` or
    ``{"error": message}`` as JSON on stdout."""
    args = json.load(sys.stdin)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the tool's prints must not corrupt the answer
    try:
        res = {"ok": _TOOL_FUNCS[name](args)}
    except ToolError as e:
        res = {"error": str(e)}
    except Exception as e:
        res = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout = real_stdout
    print(json.dumps(res, default=str))
    return 0


#===------------------------------------------------------------------------===#
# The server
#===------------------------------------------------------------------------===#


class Server:
    def __init__(self, tool_timeout_s: float = 600.0):
        self.tool_timeout_s = tool_timeout_s
        self.initialized = False

    def call_tool(self, name: str, args: dict) -> dict:
        try:
            p = subprocess.run([sys.executable, "-m", "argus.mcp", "--run-tool", name],
                               input=json.dumps(args), capture_output=True, text=True,
                               timeout=self.tool_timeout_s,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                   p for p in sys.path if p)))
        except subprocess.TimeoutExpired:
            return _result(f"{name}: no result within {self.tool_timeout_s:g} s (killed)", True)
        try:
            res = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return _result(f"{name}: the tool process failed (exit {p.returncode}): "
                           f"{p.stderr.strip()[-500:]}", True)
        if "error" in res:
            return _result(f"{name}: {res['error']}", True)
        return _result(json.dumps(res["ok"], indent=1, default=str), False, res["ok"])

    def handle(self, msg: Any) -> Optional[dict]:
        """One JSON-RPC message -> the response (None for a notification)."""
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or \
                not isinstance(msg.get("method"), str):
            mid = msg.get("id") if isinstance(msg, dict) else None
            return _error(mid if isinstance(mid, (str, int)) else None, INVALID_REQUEST,
                          "invalid request: a JSON-RPC 2.0 object with a string 'method'")
        mid = msg.get("id")
        note = "id" not in msg
        if not note and not isinstance(mid, (str, int)):
            return _error(None, INVALID_REQUEST, "invalid request: 'id' is a string or integer")
        method, params = msg["method"], msg.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return None if note else _error(mid, INVALID_PARAMS, "'params' must be an object")
        if method == "notifications/initialized" or method.startswith("notifications/"):
            self.initialized = self.initialized or method == "notifications/initialized"
            return None
        if note:
            return None
        if method == "initialize":
            return _ok(mid, {"protocolVersion": PROTOCOL_VERSION,
                             "capabilities": {"tools": {"listChanged": False}},
                             "serverInfo": SERVER_INFO})
        if method == "ping":
            return _ok(mid, {})
        if method == "tools/list":
            return _ok(mid, {"tools": TOOLS})
        if method == "tools/call":
            name, args = params.get("name"), params.get("arguments", {})
            if name not in TOOL_NAMES:
                return _error(mid, INVALID_PARAMS, f"unknown tool {name!r} (tools: "
                              f"{', '.join(sorted(TOOL_NAMES))})")
            if not isinstance(args, dict):
                return _error(mid, INVALID_PARAMS, "'arguments' must be an object")
            schema = next(t for t in TOOLS if t["name"] == name)["inputSchema"]
            bad = _schema_errors(args, schema)
            if bad:
                return _error(mid, INVALID_PARAMS, f"{name}: {bad}")
            return _ok(mid, self.call_tool(name, args))
        return _error(mid, METHOD_NOT_FOUND, f"method not found: {method}")

    def serve(self, inp=None, out=None) -> None:
        inp = inp or sys.stdin
        out = out or sys.stdout
        for line in inp:
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError as e:
                resp: Any = _error(None, PARSE_ERROR, f"parse error: {e}")
            else:
                if isinstance(msg, list):  # a batch
                    if not msg:
                        resp = _error(None, INVALID_REQUEST, "invalid request: empty batch")
                    else:
                        resp = [r for r in (self._safe(m) for m in msg) if r is not None] or None
                else:
                    resp = self._safe(msg)
            if resp is not None:
                out.write(json.dumps(resp) + "\n")
                out.flush()

    def _safe(self, msg):
        try:
            return self.handle(msg)
        except Exception as e:  # a server bug: an error response, never a dead server
            mid = msg.get("id") if isinstance(msg, dict) else None
            return _error(mid if isinstance(mid, (str, int)) else None, INTERNAL_ERROR,
                          f"internal error: {type(e).__name__}: {e}")


_TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list}


def _schema_errors(args: dict, schema: dict) -> Optional[str]:
    props = schema.get("properties", {})
    for r in schema.get("required", []):
        if r not in args:
            return f"missing required argument '{r}'"
    for k, v in args.items():
        if k not in props:
            return f"unknown argument '{k}' (arguments: {', '.join(props)})"
        ty = _TYPES[props[k]["type"]]
        if not isinstance(v, ty) or (ty is int and isinstance(v, bool)):
            return f"argument '{k}' must be a {props[k]['type']}"
    return None


def _ok(mid, result) -> dict:
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def _error(mid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}


def _result(text: str, is_error: bool, structured: Any = None) -> dict:
    r = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None and isinstance(structured, dict):
        r["structuredContent"] = structured
    return r


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="argus-mcp", description="MCP server (stdio) with the "
                                 "argus tools: verify, compile, evaluate, measure, explain")
    ap.add_argument("--tool-timeout", type=float, default=600.0)
    ap.add_argument("--run-tool", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.run_tool:
        return _run_tool_child(a.run_tool)
    Server(a.tool_timeout).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
