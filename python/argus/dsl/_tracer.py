"""The bottom layer of the DSL: where each traced op comes from in the user's
code (:class:`SourceLoc`, ``_user_loc``), errors raised at that line
(``_err``), and the tracer that builds a kernel's IR text: fresh value names,
nested blocks, constant scopes and the region and tag-site bookkeeping of the
kernel being traced (``_current_tracer()``).

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

    def mlir(self) -> str:
        f = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{f}":{self.line}:{self.col})'

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


@dataclasses.dataclass(frozen=True)
class _Line:
    """One line of the generated IR and the Python line it comes from (what
    a parse error on that line is reported at)."""
    text: str
    loc: SourceLoc

_state = threading.local()


def _current_tracer() -> "_Tracer":
    """The tracer of the kernel being traced on this thread."""
    tr = getattr(_state, "tracer", None)
    if tr is None:
        raise _err(TraceError, "argus DSL operations can only be used inside an "
                   "@argus.kernel function while it is traced")
    return tr


class _Tracer:
    """The state of one kernel trace: the IR text of the open blocks, value
    names, constants per block, regions, block ids and the last op a
    ``tag_assert`` without a subject refers to."""

    def __init__(self, target: str, block: Tuple[int, ...]):
        self.target = target
        self.block = block
        self.counter = 0
        self.names: Dict[str, int] = {}
        self.blocks: List[List[_Line]] = [[]]
        self.const_scopes: List[Dict[int, Any]] = [{}]  # per block: int -> IndexValue
        self.region_stack: List[Tuple[int, str]] = []
        self.region_ids: Dict[int, str] = {}
        self.next_region_id = 1
        self.last_site = None
        self.block_ids: Dict[str, Any] = {}  # dim -> IndexValue at the top level
        self.role_threads: List[int] = []  # threads of the enclosing argus.role bodies
        # (sliced layout, shape, dim) -> {(parent shape, parent layout)}: the
        # tiles reductions came from, for broadcast without like=
        self.slices: Dict[Any, set] = {}

    def threads(self) -> int:
        """The threads executing the current op: the block's, or the
        enclosing warp role's."""
        if self.role_threads:
            return self.role_threads[-1]
        n = 1
        for b in self.block:
            n *= b
        return n

    # -- names and emission ------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "v"
        if hint[0].isdigit():
            hint = "v" + hint
        n = self.names.get(hint, 0)
        self.names[hint] = n + 1
        return f"%{hint}" if n == 0 else f"%{hint}_{n}"

    def emit(self, text: str, loc: SourceLoc):
        self.blocks[-1].append(_Line(f"{text} {loc.mlir()}", loc))

    def emit_nested(self, header: str, body: List[_Line], footer: str, loc: SourceLoc):
        """An op with one region: ``header {``, the traced body indented,
        ``} footer``; the header and footer lines come from ``loc``."""
        b = self.blocks[-1]
        b.append(_Line(header + " {", loc))
        b.extend(_Line("  " + l.text, l.loc) for l in body)
        b.append(_Line("} " + footer, loc))

    def push_block(self):
        self.blocks.append([])
        self.const_scopes.append({})

    def pop_block(self) -> List[_Line]:
        self.const_scopes.pop()
        return self.blocks.pop()
