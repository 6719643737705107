"""Proofs of the kernels a solution launched, decided in the harness.

``prove_ir(text, ...)`` verifies the IR text the worker traced (the kernel
variant exactly as launched) with the tag verifier and lowers it to read
its launch ABI (which tensor arguments it writes, its grid rule). The
record lists every check; its ``reasons`` say why the kernel is not
accepted:

* a violated check (with its counterexample: block, thread, elements with
  their tags, program point and Python line);
* an unknown check, unless ``allow_unknown`` (then listed under
  ``unknown``);
* a written tensor argument without proved ``output-once`` and
  ``output-coverage`` checks (each element written exactly once);
* an op-verifier or compile error.
"""

from __future__ import annotations

from typing import Any, Dict, List

from .harness_common import WRITE_ONCE_KINDS


def _cx_text(cx) -> str:
    try:
        return cx.summary()
    except Exception:  # a counterexample the wrapper cannot render: its raw form
        return str(cx.raw)[:400]


def check_record(c) -> dict:
    d = {"kind": c.kind, "status": c.status, "predicate": c.predicate, "op": c.op,
         "location": f"{c.py_file}:{c.py_line}" if c.py_line else c.location}
    if c.reason:
        d["reason"] = c.reason
    if c.counterexamples:
        d["counterexample"] = _cx_text(c.counterexamples[0])
        d["counterexample_json"] = c.counterexamples[0].to_dict()
    return d


def _args_of(c) -> List[str]:
    """The argument names a coverage check speaks of (its raw JSON's
    ``arg``/``tensor``/``argument`` field or its predicate)."""
    raw = c.raw or {}
    out = []
    for key in ("arg", "argument", "tensor", "buffer", "output"):
        v = raw.get(key)
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, int):
            out.append(f"#{v}")
    return out


def prove_ir(text: str, variant: str, allow_unknown: bool = False,
             timeout_ms: int = 60000, target: str = None, kernel: str = None) -> Dict[str, Any]:
    from .. import ir as _ir
    from ..compile import _compile_module
    from ..errors import ArgusError, MLIRError
    from ..verify import verify_module
    rec: Dict[str, Any] = {"variant": variant, "reasons": [], "checks": [], "unknown": []}
    try:
        module = _ir.parse(text, variant)
    except MLIRError as e:
        rec["status"] = "op_error"
        rec["reasons"].append(f"the op verifiers reject it: {e}")
        return rec
    except ArgusError as e:  # no extension, no verifier: nothing is proved
        rec["status"] = "verify_error"
        rec["reasons"].append(f"it cannot be verified here: {e}")
        return rec
    try:
        res = verify_module(module, raise_on_violation=False, timeout_ms=timeout_ms)
    except ArgusError as e:
        rec["status"] = "verify_error"
        rec["reasons"].append(f"the verifier failed: {e}")
        return rec
    rec["summary"] = res.summary()
    rec["assumptions"] = _assumptions(res.report)
    rec["checks"] = [check_record(c) for c in res.checks]
    for c in res.violated:
        cx = f": {_cx_text(c.counterexamples[0])}" if c.counterexamples else ""
        rec["reasons"].append(f"{c.kind} violated '{c.predicate}' at {c.op} "
                              f"({c.py_file}:{c.py_line}){cx}")
    for c in res.unknown:
        why = f"{c.kind} unknown at {c.op} ({c.py_file}:{c.py_line}): {c.reason or 'no reason given'}"
        rec["unknown"].append(why)
        if not allow_unknown:
            rec["reasons"].append(why + " (--allow-unknown accepts it)")
    # The launch ABI: written tensors, the grid rule.
    target = target or _target_of(text)
    try:
        _, _, kernels = _compile_module(module, target, False, "isa", None, ())
    except ArgusError as e:
        rec["status"] = "compile_error"
        rec["reasons"].append(f"it does not compile for {target}: {e}")
        return rec
    if kernel is None or kernel not in kernels:
        kernel = next(iter(kernels)) if len(kernels) == 1 else kernel
    abi = kernels.get(kernel)
    written = sorted({p.arg for p in abi.params if p.kind == "buffer" and p.written}) if abi else []
    rec["written_args"] = written
    rec["_compiled"] = {"grid": abi.grid if abi else None, "target": target,
                        "indices": abi.indices if abi else None}
    # Exactly once: each written tensor has a proved output-once and output-coverage check.
    kinds = {}
    for c in res.checks:
        if c.kind in WRITE_ONCE_KINDS:
            kinds.setdefault(c.kind, []).append(c)
    if written:
        for k in WRITE_ONCE_KINDS:
            cs = kinds.get(k, [])
            if not cs:
                rec["reasons"].append(f"no {k} check: that each output element is written "
                                      "exactly once is not proved")
            elif any(c.status != "proved" for c in cs) and not any(
                    r.startswith(k) for r in rec["reasons"] + rec["unknown"]):
                rec["reasons"].append(f"{k} is not proved")
    if res.violated:
        rec["status"] = "violated"
    elif res.unknown:
        rec["status"] = "unknown"
    else:
        rec["status"] = "proved"
    return rec


def _assumptions(report: dict) -> List[str]:
    out = []
    for k in report.get("kernels", []) or []:
        for a in k.get("assumptions", []) or []:
            out.append(a if isinstance(a, str) else str(a.get("message", a)))
    return out


def _target_of(text: str) -> str:
    import re
    m = re.search(r'argus\.target\s*=\s*"([a-z0-9_]+)"', text) or \
        re.search(r'target\s*=\s*"((?:sm|gfx)_?[0-9a]+)"', text)
    return m.group(1) if m else "sm_90a"
