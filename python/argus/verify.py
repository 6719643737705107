"""Tag-verifier results: ``kernel.verify()`` and ``verify_text()``.

The verifier pass (``argus-verify-tags``) writes a JSON report (see
docs/Python.md); these classes wrap it, mapping every program point back to
the Python source line that created the op (DSL kernels carry Python
locations).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, List, Optional, Tuple

from . import ir as _ir
from .errors import InvariantViolation, PipelineError, VerificationUnknown

VERIFY_PASS = "argus-verify-tags"


def split_location(loc: Optional[str]) -> Tuple[Optional[str], Optional[int], Optional[int]]:
    """``"file.py:12:5"`` -> ("file.py", 12, 5); anything else -> Nones."""
    if not loc:
        return None, None, None
    if loc.startswith("loc("):
        loc = loc[4:-1]
    loc = loc.replace('"', "")
    parts = loc.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return None, None, None


@dataclasses.dataclass
class Element:
    """One data element of a counterexample: which operand it is, its
    coordinates in the tile (and globally when known) and its tag values."""
    operand: str
    tile_coords: List[int]
    tags: Dict[str, int]
    memory: Optional[str] = None
    global_coords: Optional[List[int]] = None
    thread: Optional[int] = None
    slot: Optional[int] = None

    @classmethod
    def from_json(cls, j: dict) -> "Element":
        return cls(j.get("operand", ""), list(j.get("tile_coords", [])),
                   dict(j.get("tags", {})), j.get("memory"), j.get("global_coords"),
                   j.get("thread"), j.get("slot"))

    def __str__(self):
        tags = ", ".join(f"{k}={v}" for k, v in self.tags.items())
        where = f" ({self.memory}{self.global_coords})" if self.memory and self.global_coords \
            else (f" ({self.memory})" if self.memory else "")
        coords = f"{self.tile_coords}" if self.tile_coords else ""
        return f"{self.operand}{coords}{where}" + (f" tags {{{tags}}}" if tags else "")


@dataclasses.dataclass
class Counterexample:
    """A concrete witness of a violation: the thread (block, thread, warp,
    lane), the value slot, the loop iterations, the data elements on each
    side, and the program point (op and Python line)."""
    check: "Check"
    block: Dict[str, int]
    thread: Optional[int]
    warp: Optional[int]
    lane: Optional[int]
    slot: Optional[int]
    loops: List[Dict[str, Any]]
    elements: List[Element]
    notes: List[str]
    params: Any
    raw: dict

    @property
    def op(self) -> str:
        return self.check.op

    @property
    def program_point(self) -> str:
        """``file.py:LINE`` of the op where the violation happens."""
        return f"{self.check.py_file}:{self.check.py_line}" if self.check.py_line else \
            (self.check.location or "?")

    @property
    def file(self):
        return self.check.py_file

    @property
    def line(self):
        return self.check.py_line

    @property
    def iterations(self) -> Dict[str, int]:
        out = {}
        for l in self.loops:
            out[str(l.get("loop"))] = l.get("iv")
        return out

    def element(self, operand: str) -> Optional[Element]:
        return next((e for e in self.elements if e.operand == operand), None)

    def summary(self) -> str:
        blk = ",".join(f"{k}={v}" for k, v in sorted(self.block.items()))
        it = ", ".join(f"{k}={v}" for k, v in self.iterations.items())
        els = "; ".join(str(e) for e in self.elements)
        who = f"block({blk})" if blk else "any block"
        who += (f" thread {self.thread} (warp {self.warp}, lane {self.lane}) slot {self.slot}"
                if self.thread is not None and self.thread >= 0 else ", any thread")
        notes = "".join(f"\n    {n}" for n in self.notes)
        return (f"at {self.program_point} ({self.op}): {who}"
                + (f", iterations {it}" if it else "") + (f": {els}" if els else "") + notes)

    def to_dict(self) -> dict:
        d = dict(self.raw)
        d["program_point"] = {"op": self.op, "location": self.check.location,
                              "python_file": self.check.py_file,
                              "python_line": self.check.py_line}
        d["check"] = {"kind": self.check.kind, "predicate": self.check.predicate}
        return d

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


@dataclasses.dataclass
class Check:
    """One checked assertion (explicit tag_assert or an implicit check)."""
    kernel: str
    kind: str
    predicate: str
    op: str
    location: str
    assert_location: str
    status: str  # proved | violated | unknown
    reason: str
    counterexamples: List[Counterexample]
    raw: dict

    @property
    def witness(self) -> str:
        """For a proved check: where its premises hold and its op runs (a
        launch, block and loop iterations), so the proof is not vacuous."""
        return self.raw.get("witness", "") or ""

    @property
    def meaning(self) -> str:
        """What "proved" states for this kind (the check-kind table)."""
        row = CHECK_KINDS.get(self.kind)
        return row.meaning if row else ""

    @property
    def py_file(self):
        return split_location(self.location)[0]

    @property
    def py_line(self):
        return split_location(self.location)[1]

    @property
    def assert_line(self):
        return split_location(self.assert_location)[1]

    @classmethod
    def from_json(cls, j: dict) -> "Check":
        c = cls(j.get("kernel", ""), j.get("kind", ""), j.get("predicate", ""),
                j.get("op", ""), j.get("location", ""), j.get("assert_location", ""),
                j.get("status", "unknown"), j.get("reason", ""), [], j)
        for cx in j.get("counterexamples", []) or []:
            c.counterexamples.append(Counterexample(
                c, dict(cx.get("block", {}) or {}), cx.get("thread"), cx.get("warp"),
                cx.get("lane"), cx.get("slot"), list(cx.get("loops", []) or []),
                [Element.from_json(e) for e in cx.get("elements", []) or []],
                list(cx.get("notes", []) or []), cx.get("params"), cx))
        return c

    def __str__(self):
        where = f"{self.py_file}:{self.py_line}: " if self.py_line else ""
        return f"{where}{self.status}: {self.kind} '{self.predicate}' at {self.op}" + \
            (f" ({self.reason})" if self.reason else "")


@dataclasses.dataclass
class VerificationResult:
    checks: List[Check]
    report: dict
    diagnostics: list

    @property
    def ok(self) -> bool:
        """No violation (some checks may be unknown)."""
        return not self.violated

    @property
    def proved(self) -> bool:
        """Every check proved."""
        return all(c.status == "proved" for c in self.checks)

    @property
    def violated(self) -> List[Check]:
        return [c for c in self.checks if c.status == "violated"]

    @property
    def unknown(self) -> List[Check]:
        return [c for c in self.checks if c.status == "unknown"]

    @property
    def counterexamples(self) -> List[Counterexample]:
        return [cx for c in self.violated for cx in c.counterexamples]

    @property
    def unchecked(self) -> List[str]:
        """What no check of the report states, per kernel ("kernel: ..."):
        the values computed, undeclared argument roles, constructs outside
        the model. A proof says nothing about these."""
        return [f"{k.get('name', '?')}: {u}" for k in self.report.get("kernels", [])
                for u in k.get("unchecked", []) or []]

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.report, indent=indent)

    def summary(self) -> str:
        n = len(self.checks)
        return (f"{n} checks: {n - len(self.violated) - len(self.unknown)} proved, "
                f"{len(self.violated)} violated, {len(self.unknown)} unknown")


@dataclasses.dataclass(frozen=True)
class CheckKind:
    """A row of the verifier's check-kind table (argus/Verify/CheckKinds.h)."""
    name: str
    family: str
    meaning: str
    models: str


def _check_kinds() -> Dict[str, CheckKind]:
    try:
        table = _ir.extension().check_kinds
    except Exception:  # no extension (a GPU host): the table is not known here
        return {}
    return {name: CheckKind(name, *row) for name, row in table.items()}


#: Every check kind the verifier reports, by name (empty without the
#: extension). ``explain(kind)`` prints one.
CHECK_KINDS: Dict[str, CheckKind] = _check_kinds()


def explain(kind: str) -> str:
    """What a check kind proves and what the model interprets for it."""
    row = CHECK_KINDS.get(kind)
    if row is None:
        known = ", ".join(sorted(CHECK_KINDS)) or "(the extension is not built)"
        raise KeyError(f"unknown check kind {kind!r}; the kinds are: {known}")
    return f"{row.name} ({row.family}): {row.meaning}. Models: {row.models}."


def verifier_available() -> bool:
    try:
        return _ir.has_pass(VERIFY_PASS)
    except Exception:
        return False


def _check_options(timeout_ms, max_counterexamples, implicit_checks, threads=None) -> None:
    """The verifier options' types and ranges, checked before anything runs
    (``int("maybe")``-style coercion would hide a mistake)."""
    def is_int(x):
        return isinstance(x, int) and not isinstance(x, bool)
    if timeout_ms is not None and (not is_int(timeout_ms) or not 0 <= timeout_ms < 2**32):
        raise ValueError(f"timeout_ms must be an integer in [0, 2**32) (0: no limit), got "
                         f"{timeout_ms!r}")
    if max_counterexamples is not None and (not is_int(max_counterexamples)
                                            or not 1 <= max_counterexamples < 2**32):
        raise ValueError(f"max_counterexamples must be an integer >= 1, got "
                         f"{max_counterexamples!r}")
    if implicit_checks is not None and not isinstance(implicit_checks, bool):
        raise ValueError(f"implicit_checks must be True or False, got {implicit_checks!r}")
    if threads is not None and (not is_int(threads) or not 1 <= threads <= 64):
        raise ValueError(f"threads must be an integer in [1, 64] (shards of the checks; "
                         f"the report depends on it, never on timing), got {threads!r}")


def verify_module(module: "_ir.Module", raise_on_violation: bool = True,
                  timeout_ms: Optional[int] = None,
                  max_counterexamples: Optional[int] = None,
                  implicit_checks: Optional[bool] = None,
                  strict: bool = False,
                  threads: Optional[int] = None) -> VerificationResult:
    """Run the tag verifier on a copy of ``module``.

    ``threads``: shards the checks run on (``argus-opt
    --argus-verify-tags=threads=N``; default 1). The report depends on this
    number only, never on timing, which is why it is not the core count.

    Raises :class:`InvariantViolation` when a check is violated (unless
    ``raise_on_violation=False``). With ``strict=True``, raises
    :class:`VerificationUnknown` when nothing is violated but some check is
    unknown (like ``argus-opt`` exiting 2); otherwise unknown checks are
    only listed in ``result.unknown``."""
    _check_options(timeout_ms, max_counterexamples, implicit_checks, threads)
    _ir.require_pass(VERIFY_PASS, "tag verification")
    # In process, from the verifier's results: no pipeline string, no file.
    report, diags = module.verify_tags(
        timeout_ms=10000 if timeout_ms is None else timeout_ms,
        max_counterexamples=1 if max_counterexamples is None else max_counterexamples,
        implicit_checks=True if implicit_checks is None else implicit_checks,
        threads=1 if threads is None else threads)
    if report is None:
        raise PipelineError(f"{VERIFY_PASS} failed without a report", diags)
    checks = [Check.from_json(c) for c in report.get("checks", [])]
    result = VerificationResult(checks, report, list(diags))
    if result.violated:
        if raise_on_violation:
            raise InvariantViolation(result)
    elif strict and result.unknown:
        raise VerificationUnknown(result)
    return result


def verify_kernel(kernel, raise_on_violation: bool = True, strict: bool = False,
                  **options) -> VerificationResult:
    return verify_module(kernel.module(), raise_on_violation=raise_on_violation,
                         strict=strict, **options)


def verify_text(text: str, source_name: str = "<string>", raise_on_violation: bool = True,
                strict: bool = False, **options) -> VerificationResult:
    """Verify the tag assertions of IR text (``strict``: see
    :func:`verify_module`)."""
    return verify_module(_ir.parse(text, source_name), raise_on_violation,
                         strict=strict, **options)
