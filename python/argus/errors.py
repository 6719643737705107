"""Exceptions raised by the argus package.

Every error that comes from a user's kernel source carries ``file`` and
``line`` (the Python source line that caused it) and its message starts with
``file:line:``.
"""

from __future__ import annotations

import json
from typing import Any, List, Optional


class ArgusError(Exception):
    """Base class of every argus error. ``file``/``line`` name the user's
    source line when known; ``hint`` (also at the end of the message) says
    what to write instead, when there is something to say."""

    def __init__(self, message: str, file: Optional[str] = None,
                 line: Optional[int] = None, col: Optional[int] = None,
                 hint: Optional[str] = None):
        if hint:
            message = f"{message}; hint: {hint}"
        self.raw_message = message
        self.hint = hint
        self.file = file
        self.line = line
        self.col = col
        prefix = f"{file}:{line}: " if file and line else ""
        super().__init__(prefix + message)


class TraceError(ArgusError):
    """Misuse of the DSL while tracing (wrong argument kinds, unbalanced
    regions, a loop whose carried values were not given, ...)."""


class ShapeError(TraceError):
    """Tile shapes do not fit together."""


class DTypeError(TraceError):
    """Element types do not fit together, or an unknown element type."""


class UnknownInstructionError(TraceError):
    """A matrix-core instruction name that argus does not know."""


class LayoutError(TraceError):
    """A layout string that does not parse or does not fit the tile."""


class TagFieldError(TraceError):
    """A tag assertion names an operand or a tag field that does not exist."""


class MLIRError(ArgusError):
    """MLIR rejected the IR (parse or op-verifier error). ``diagnostics``
    holds the structured diagnostics; ``file``/``line`` come from the first
    error's location (the Python line for DSL kernels)."""

    def __init__(self, message: str, diagnostics: List[Any] = (),
                 text: Optional[str] = None):
        self.diagnostics = list(diagnostics)
        self.text = text
        first = next((d for d in self.diagnostics if d.severity == "error"),
                     self.diagnostics[0] if self.diagnostics else None)
        file = first.file if first is not None and first.file else None
        line = first.line if first is not None and first.file else None
        col = first.col if first is not None and first.file else None
        detail = "\n".join(str(d) for d in self.diagnostics)
        full = message + (":\n" + detail if detail else "")
        ArgusError.__init__(self, full, None, None)
        self.file, self.line, self.col = file, line, col
        self.hint = (getattr(first, "hint", "") or None) if first is not None else None


class IRVerificationError(MLIRError):
    """The generated IR failed MLIR's op verifiers."""


class TagFieldIRError(IRVerificationError, TagFieldError):
    """MLIR's verifier rejected a tag assertion's operand or field (raised by
    kernels when Python could not know the tag fields)."""


class ShapeIRError(IRVerificationError, ShapeError):
    """MLIR's verifier found a shape that does not fit."""


class InstructionIRError(IRVerificationError, UnknownInstructionError):
    """MLIR's verifier rejected an instruction."""


class DTypeIRError(IRVerificationError, DTypeError):
    """MLIR's verifier found an element type that does not fit."""


class LayoutIRError(IRVerificationError, LayoutError):
    """MLIR's verifier found a layout that does not fit."""


class KernelIRError(IRVerificationError, TraceError):
    """MLIR's verifier rejected an op a DSL kernel built, with no more
    specific kind: a misuse of the DSL all the same (the op verifiers are
    the DSL's checks of what an op accepts)."""


class RegionIRError(IRVerificationError, TraceError):
    """MLIR's verifier found region markers that do not pair up, or a region
    ID used twice."""


def classify_ir_error(diagnostics, default: type = IRVerificationError) -> type:
    """The most specific IRVerificationError subclass for the first error,
    by the kind the C++ verifier attached to it (``Diagnostic.kind``);
    ``default`` when it has none."""
    first = next((d for d in diagnostics if d.severity == "error"), None)
    kind = getattr(first, "kind", "") if first is not None else ""
    return _IR_ERROR_BY_KIND.get(kind, default)


# One class per kind of argus/Dialect/ErrorKinds.h (``_argus.error_kinds``;
# test_bindings checks that the two lists agree).
_IR_ERROR_BY_KIND = {"tag_field": TagFieldIRError, "instruction": InstructionIRError,
                     "shape": ShapeIRError, "element_type": DTypeIRError,
                     "layout": LayoutIRError, "region": RegionIRError}


class PipelineError(MLIRError):
    """A pass pipeline failed."""


class CompileError(PipelineError):
    """A lowering pipeline failed."""


class FeatureUnavailable(ArgusError):
    """A feature needs a pass, library or tool that is not built/installed.
    ``missing`` names it."""

    def __init__(self, message: str, missing: str):
        self.missing = missing
        super().__init__(message)


class NoGPU(ArgusError):
    """No GPU (or no argus-run) is available to run kernels."""


class _ChecksError(ArgusError):
    """An error about some checks of a verification: ``json`` /
    ``to_json()`` give those checks' JSON reports."""

    _checks: list = []

    @property
    def json(self) -> str:
        return self.to_json()

    def to_json(self, indent: int = 2) -> str:
        return json.dumps([c.raw for c in self._checks], indent=indent)


class InvariantViolation(_ChecksError):
    """A tag assertion (or an implicit check) is violated.

    ``counterexamples``: :class:`argus.verify.Counterexample` objects;
    ``result``: the full :class:`argus.verify.VerificationResult`;
    ``json`` / ``to_json()``: the counterexamples as JSON."""

    def __init__(self, result: Any):
        self.result = result
        self.violations = self._checks = [c for c in result.checks
                                          if c.status == "violated"]
        self.counterexamples = [cx for c in self.violations
                                for cx in c.counterexamples]
        first = self.violations[0] if self.violations else None
        lines = []
        for c in self.violations:
            where = f"{c.py_file}:{c.py_line}: " if c.py_line else ""
            lines.append(f"{where}{c.kind} '{c.predicate}' violated at {c.op}")
            for cx in c.counterexamples:
                lines.append("  " + cx.summary())
        msg = (f"{len(self.violations)} tag invariant(s) violated\n"
               + "\n".join(lines))
        super().__init__(msg)
        if first is not None:
            self.file, self.line = first.py_file, first.py_line



class VerificationUnknown(_ChecksError):
    """``verify(strict=True)``: nothing is violated but some check is
    unknown (the verifier could not decide it, so nothing was proved about
    it).

    ``result``: the full :class:`argus.verify.VerificationResult`;
    ``unknowns``: the unknown :class:`argus.verify.Check` objects (each with
    ``kind``, ``predicate``, ``op``, ``location``, ``py_file``/``py_line``
    and ``reason``); ``.file``/``.line`` point at the first one's op."""

    def __init__(self, result: Any):
        self.result = result
        self.unknowns = self._checks = [c for c in result.checks if c.status == "unknown"]
        lines = []
        for c in self.unknowns:
            where = f"{c.py_file}:{c.py_line}" if c.py_line else (c.location or "?")
            lines.append(f"{where}: {c.kind} '{c.predicate}' unknown at {c.op}: "
                         f"{c.reason or 'no reason given'}")
        msg = (f"{len(self.unknowns)} check(s) unknown (not proved, not violated)\n"
               + "\n".join(lines))
        super().__init__(msg)
        first = self.unknowns[0] if self.unknowns else None
        if first is not None:
            self.file, self.line = first.py_file, first.py_line

