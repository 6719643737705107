"""The bottom layer of the DSL: where each traced op comes from in the user's
code (:class:`SourceLoc`, ``_user_loc``), errors raised at that line
(``_err``), and the tracer that builds a kernel's IR through the C++ builder
(``_argus.Builder``): value names, open bodies, constant scopes and the
region bookkeeping of the kernel being traced
(``_current_tracer()``).

Nothing here knows the DSL's types or values; every other module of the
package is built on this one.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import threading
from typing import Any, Dict, List, Optional, Tuple

from ..errors import TraceError

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the argus package

#===------------------------------------------------------------------------===#
# Source locations
#===------------------------------------------------------------------------===#


@dataclasses.dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def _is_user_frame(f) -> bool:
    fn = os.path.abspath(f.f_code.co_filename)
    if f.f_globals.get("__argus_user_code__"):
        return True
    return not fn.startswith(_PKG_DIR + os.sep)


def _user_loc(skip: int = 1) -> SourceLoc:
    """The location of the innermost frame outside the argus package (or in
    a package module that marks itself ``__argus_user_code__``)."""
    f = sys._getframe(1)
    while f is not None and not _is_user_frame(f):
        f = f.f_back
    if f is None:
        return SourceLoc("<unknown>", 0, 0)
    line, col = f.f_lineno, 1
    try:
        pos = list(f.f_code.co_positions())[f.f_lasti // 2]
        if pos[0] is not None:
            line = pos[0]
            col = (pos[2] or 0) + 1
    except Exception:
        pass
    return SourceLoc(f.f_code.co_filename, line, col)


def _err(cls, msg: str, loc: Optional[SourceLoc] = None, hint: Optional[str] = None):
    loc = loc or _user_loc(2)
    return cls(msg, loc.file, loc.line, loc.col, hint=hint)


#===------------------------------------------------------------------------===#
# The tracer
#===------------------------------------------------------------------------===#


_state = threading.local()


def _current_tracer() -> "_Tracer":
    """The tracer of the kernel being traced on this thread."""
    tr = getattr(_state, "tracer", None)
    if tr is None:
        raise _err(TraceError, "argus DSL operations can only be used inside an "
                   "@argus.kernel function while it is traced")
    return tr


class _Tracer:
    """The state of one kernel trace: the C++ builder of its module (``b``),
    value names, constants per open body, regions, block ids and the last op
    a ``tag_assert`` without a subject refers to."""

    def __init__(self, target: str, block: Tuple[int, ...], name: str, loc: SourceLoc,
                 cluster: Tuple[int, ...] = ()):
        from .. import ir
        self.target = target
        self.block = block
        self.b = ir.extension().Builder(ir.context(), name, list(block), target, loc.file,
                                        loc.line, loc.col, list(cluster))
        self.names: Dict[str, int] = {}
        self.depth = 0  # bodies open around the current op (0: the kernel's top level)
        self.const_scopes: List[Dict[int, Any]] = [{}]  # per body: int -> IndexValue
        self.region_stack: List[Tuple[int, str]] = []
        self.region_ids: Dict[int, str] = {}
        self.next_region_id = 1
        self.block_ids: Dict[str, Any] = {}  # dim -> IndexValue at the top level
        self.role_threads: List[int] = []  # threads of the enclosing argus.role bodies
        # (sliced layout, shape, dim) -> {(parent shape, parent layout)}: the
        # tiles reductions came from, for broadcast without like=
        self.slices: Dict[Any, set] = {}
        self._locs: Dict[Any, Any] = {}
        self._types: Dict[str, Any] = {}

    def threads(self) -> int:
        """The threads executing the current op: the block's, or the
        enclosing warp role's."""
        if self.role_threads:
            return self.role_threads[-1]
        n = 1
        for b in self.block:
            n *= b
        return n

    # -- names, locations and types ------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "v"
        if hint[0].isdigit():
            hint = "v" + hint
        n = self.names.get(hint, 0)
        self.names[hint] = n + 1
        return f"%{hint}" if n == 0 else f"%{hint}_{n}"

    def loc(self, sl: SourceLoc, name: str = ""):
        """The builder location of ``sl``; named ``name`` (a value name such
        as ``%acc``) when given, which the printed IR uses for the value."""
        key = (sl.file, sl.line, sl.col, name)
        l = self._locs.get(key)
        if l is None:
            l = self._locs[key] = self.b.loc(sl.file, sl.line, sl.col, name.lstrip("%"))
        return l

    def type(self, text: str, sl: SourceLoc):
        """The builder type of MLIR type text (parsed once per text)."""
        t = self._types.get(text)
        if t is None:
            t = self._types[text] = self.b.type(text, self.loc(sl))
        return t

    # -- building ------------------------------------------------------------
    def op(self, name: str, operands, result_types, sl: SourceLoc, result=None,
           unit_attrs=()) -> list:
        """An op whose only attributes are the unit attributes named in
        ``unit_attrs``; ``result`` (a Value) receives the first result and
        names it."""
        hs = self.b.op(name, [v.h for v in operands], [self.type(t, sl) for t in result_types],
                       self.loc(sl, result.name if result is not None else ""),
                       list(unit_attrs))
        if result is not None:
            result.h = hs[0]
        return hs

    def enter(self):
        """Bookkeeping of a body the builder just entered (begin_for, ...)."""
        self.depth += 1
        self.const_scopes.append({})

    def leave(self) -> list:
        """Leaves the innermost body; returns its op's results."""
        self.const_scopes.pop()
        self.depth -= 1
        return self.b.end()
