"""The proof's envelope at the task's shapes.

A kernel is proved *under* its ``argus.assume`` conditions (grid coverage,
divisibility, size limits). On a GPU the compiled kernel traps at entry when
one is false; here every launch the worker recorded is checked on the host,
with the launch's actual sizes, index and scalar arguments and grid, before
anything is believed: a solution whose proof rests on an assumption that is
false at the task's shapes is rejected, naming the assumption and the values.

The conditions are read from the kernel's IR (printed in MLIR's generic
form): the ``argus.assume`` ops and the integer ops their conditions are
computed from (``memref.dim``, ``gpu.grid_dim`` / ``block_dim``, ``arith``
constants, arithmetic, comparisons and boolean ops). A condition computed by
an op this evaluator does not know is reported as not evaluated (a note,
not a verdict).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ..errors import ArgusError

_OP = re.compile(r'^\s*(?:(%[\w#:.$-]+(?:\s*,\s*%[\w#:.$-]+)*)\s*=\s*)?"([\w.]+)"\((.*?)\)(.*)$')
_BB_ARGS = re.compile(r"\^bb0\((.*?)\):")
_VAL = re.compile(r"%[\w#.$-]+")
_PRED = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge", 6: "ult", 7: "ule", 8: "ugt",
         9: "uge"}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
        "uge": lambda a, b: a >= b}


def _cdiv(a, b):
    return -(-a // b)


_BIN = {"arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
        "arith.muli": lambda a, b: a * b, "arith.divui": lambda a, b: a // b,
        "arith.divsi": lambda a, b: int(a / b), "arith.floordivsi": lambda a, b: a // b,
        "arith.ceildivui": _cdiv, "arith.ceildivsi": _cdiv,
        "arith.remui": lambda a, b: a % b, "arith.remsi": lambda a, b: a - b * int(a / b),
        "arith.minui": min, "arith.minsi": min, "arith.maxui": max, "arith.maxsi": max,
        "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
        "arith.xori": lambda a, b: a ^ b}


class _NotEvaluated(Exception):
    pass


class Assumptions:
    """The ``argus.assume`` conditions of one kernel's IR."""

    def __init__(self, text: str):
        self.defs: Dict[str, Tuple[str, List[str], str]] = {}
        self.args: List[str] = []
        self.assumes: List[Tuple[str, str]] = []  # (condition value, message)
        in_kernel = False
        for line in text.splitlines():
            if not self.args:
                m = _BB_ARGS.search(line)
                if m and in_kernel:
                    self.args = [a.split(":")[0].strip() for a in _split_args(m.group(1))]
                    continue
            if '"func.func"' in line or '"gpu.func"' in line:
                in_kernel = True
            m = _OP.match(line)
            if not m:
                continue
            results, op, operands, rest = m.groups()
            ops = _VAL.findall(operands)
            if op == "argus.assume":
                msg = re.search(r'message\s*=\s*"((?:[^"\\]|\\.)*)"', rest)
                self.assumes.append((ops[0] if ops else "", msg.group(1) if msg else "?"))
            elif results:
                for r in results.split(","):
                    self.defs[r.strip()] = (op, ops, rest)

    def evaluate(self, args: List[dict], grid: Tuple[int, int, int],
                 block: Tuple[int, int, int] = (1, 1, 1)) -> List[Tuple[str, Optional[bool], str]]:
        """(message, holds or None, why not evaluated) per assumption."""
        env: Dict[str, Any] = {}
        for name, a in zip(self.args, args):
            env[name] = a
        out = []
        for cond, msg in self.assumes:
            try:
                out.append((msg, bool(self._eval(cond, env, grid, block, 0)), ""))
            except _NotEvaluated as e:
                out.append((msg, None, str(e)))
        return out

    def _eval(self, v: str, env, grid, block, depth: int):
        if depth > 200:
            raise _NotEvaluated("too deep")
        if v in env:
            a = env[v]
            if isinstance(a, dict) and a.get("kind") == "value":
                return int(a["value"]) if not isinstance(a["value"], float) else a["value"]
            return a
        if v not in self.defs:
            raise _NotEvaluated(f"{v} is not defined at the kernel's top level")
        op, ops, rest = self.defs[v]
        ev = lambda x: self._eval(x, env, grid, block, depth + 1)  # noqa: E731
        if op == "arith.constant":
            m = re.search(r"value\s*=\s*(-?\d+|true|false)", rest)
            if not m:
                raise _NotEvaluated(f"constant {rest.strip()[:40]}")
            t = m.group(1)
            return {"true": 1, "false": 0}.get(t, None) if t in ("true", "false") else int(t)
        if op == "memref.dim":
            t, d = ev(ops[0]), ev(ops[1])
            if not isinstance(t, dict) or "shape" not in t:
                raise _NotEvaluated("memref.dim of a value that is not a recorded tensor")
            return int(t["shape"][d])
        if op in ("gpu.grid_dim", "gpu.block_dim"):
            m = re.search(r"dim\s+([xyz])", rest)
            i = "xyz".index(m.group(1)) if m else 0
            return (grid if op == "gpu.grid_dim" else block)[i]
        if op in _BIN:
            a, b = ev(ops[0]), ev(ops[1])
            if op in ("arith.divui", "arith.divsi", "arith.floordivsi", "arith.ceildivui",
                      "arith.ceildivsi", "arith.remui", "arith.remsi") and b == 0:
                raise _NotEvaluated("division by zero")
            return _BIN[op](a, b)
        if op == "arith.cmpi":
            m = re.search(r"predicate\s*=\s*(\d+)", rest)
            pred = _PRED.get(int(m.group(1))) if m else None
            if pred is None:
                raise _NotEvaluated("cmpi predicate")
            return int(_CMP[pred](ev(ops[0]), ev(ops[1])))
        if op in ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi",
                  "arith.trunci"):
            return ev(ops[0])
        if op == "arith.select":
            return ev(ops[1]) if ev(ops[0]) else ev(ops[2])
        raise _NotEvaluated(f"the condition uses {op}")


def _split_args(s: str) -> List[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def generic_text(text: str) -> str:
    """The IR in MLIR's generic form (what the evaluator reads)."""
    from .. import ir as _ir
    return _ir.parse(text, "envelope").text(generic=True)


def _where(launch: dict, grid) -> str:
    meta = launch.get("meta") or {}
    sizes = ", ".join(f"{k}={v}" for k, v in meta.items()) or \
        ", ".join(f"{a['name']}: {a['shape']}" for a in launch["args"] if a.get("kind") == "tensor")
    return f"{sizes}, grid {tuple(grid)}"


def check_launches(calls: List[dict], compiled: Dict[str, Optional[dict]],
                   generic: Optional[Dict[str, str]] = None) -> List[str]:
    """Reasons to reject: launches whose grid cannot be derived or whose
    assumptions are false. Checked once per distinct (kernel, shapes, grid).
    ``generic``: each kernel's IR in generic form by IR hash (a prepared
    batch's, on a host without the extension); else printed from the IR the
    worker traced."""
    from ..grid import launch_grid
    problems: List[str] = []
    parsed: Dict[str, Assumptions] = {}
    seen = set()
    irs: Dict[str, str] = {}
    for reply in calls:
        irs.update(reply.get("ir") or {})
    generic = dict(generic or {})
    for reply in calls:
        for l in reply.get("launches", []):
            h = l["ir_hash"]
            key = (h, json_key(l["args"]), tuple(l["grid"] or ()))
            if key in seen:
                continue
            seen.add(key)
            grid = l["grid"]
            if grid is None:
                info = compiled.get(h) or {}
                shapes = [a["shape"] if a.get("kind") == "tensor" else a.get("value")
                          for a in l["args"]]
                try:
                    grid = list(launch_grid(info.get("grid"), shapes))
                except ArgusError as e:
                    problems.append(f"kernel {l['variant']}: the grid its assumptions determine "
                                    f"does not exist at {_where(l, ())}: {e}")
                    continue
            grid = list(grid) + [1] * (3 - len(grid))
            if h not in parsed:
                if h not in generic:
                    if h not in irs:
                        continue
                    generic[h] = generic_text(irs[h])
                parsed[h] = Assumptions(generic[h])
            for msg, holds, why in parsed[h].evaluate(l["args"], tuple(grid)):
                if holds is False:
                    problems.append(f"kernel {l['variant']}: its proof assumes \"{msg}\", which "
                                    f"is false at this launch ({_where(l, grid)})")
    return problems


def json_key(args: List[dict]) -> str:
    return repr([(a.get("shape"), a.get("value")) for a in args])
