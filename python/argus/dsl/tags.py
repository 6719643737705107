"""Tags and tag assertions: ``tag`` attaches affine tag fields to a tile's
elements; ``tag_assert`` states a predicate over the tag fields of an op's
operands, which the tag verifier proves or refutes.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable, Dict, Optional, Sequence

from ..errors import ShapeError, TagFieldError, TraceError
from ._tracer import _current_tracer, _err, _user_loc
from .types import _shs
from .values import ADim, Tile, _index_or_err, _need_tile, _new_tile, _to_affine

def tag(x: Tile, fn: Callable, fields: Optional[Sequence[str]] = None) -> Tile:
    """Attach tags: ``fn`` receives the element's logical coordinate (one
    symbolic dim per tile dimension) and returns the field values, built
    from the coordinate, traced indices (block offsets, loop variables) and
    integer constants. The fields are named by ``fn``'s parameters, by
    ``fields``, or by the keys of a returned dict::

        a = argus.tag(a, lambda m, k: (m0 + m, k0 + k))       # fields m, k
        r = argus.tag(r, lambda i: {"m": q0 + i})
    """
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the tagged value", loc)
    if not callable(fn):
        raise _err(TraceError, "argus.tag needs a function of the element coordinate", loc)
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        params = []
    rank = len(x.shape)
    if len(params) != rank:
        raise _err(ShapeError, f"the tag function takes {len(params)} coordinate(s) but the tile "
                   f"is {rank}-D ({_shs(x.shape)})", loc)
    out = fn(*[ADim(i) for i in range(rank)])
    if isinstance(out, dict):
        names = list(out.keys())
        exprs = list(out.values())
    else:
        exprs = list(out) if isinstance(out, (tuple, list)) else [out]
        names = list(fields) if fields is not None else params
        if len(names) != len(exprs):
            raise _err(TagFieldError, f"the tag function returns {len(exprs)} value(s) for "
                       f"{len(names)} field(s) {names}", loc)
    for n in names:
        if not isinstance(n, str):
            raise _err(TagFieldError, f"tag field names are strings, got {n!r}", loc)
    # Names that are not identifiers, reserved or repeated are the op
    # verifier's (TagOp::verify).
    affs = []
    for n, e in zip(names, exprs):
        a = _to_affine(e)
        if a is None:
            raise _err(TraceError, f"tag field '{n}' is not an affine expression of the "
                       f"coordinate and traced indices: {e!r}", loc)
        affs.append(a)
    syms: Dict[str, Any] = {}
    rendered = [a.render(syms) for a in affs]
    dims = ", ".join(f"d{i}" for i in range(rank))
    sym_list = ", ".join(f"s{i}" for i in range(len(syms)))
    amap = f"({dims})" + (f"[{sym_list}]" if syms else "") + f" -> ({', '.join(rendered)})"
    sym_values = [v for _, v in sorted(syms.values(), key=lambda p: p[0])]
    t = _new_tile(tr, x.name.lstrip("%") + "_t", x.ttype)
    t.h = tr.b.tag(x.h, [v.h for v in sym_values], list(names), amap, tr.loc(loc, t.name))
    return t


def tag_assert(*args) -> None:
    """``tag_assert(x, "a.k == b.k")`` checks the predicate at the op that
    defined ``x``; ``tag_assert("value.m == dest.m")`` at the op just
    before (e.g. a store). Operands are named as in the op (a, b, acc, lhs,
    rhs, value, dest, source, input) plus ``result``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if len(args) == 1:
        subject, pred = None, args[0]
    elif len(args) == 2:
        subject, pred = args
    else:
        raise _err(TraceError, "tag_assert([subject,] predicate)", loc)
    if not isinstance(pred, str):
        raise _err(TraceError, f"the predicate must be a string, got {pred!r}", loc)
    if subject is not None and not isinstance(subject, Tile):
        raise _err(TraceError, f"the subject must be a tile, got {subject!r}", loc)
    # The operands and tag fields the predicate names are the op verifier's
    # (TagAssertOp::verify, with the fields inferTagFields finds).
    tr.b.tag_assert(subject.h if subject is not None else None, pred, tr.loc(loc))


def reduced(acc: Tile, field: str, lo, hi) -> None:
    """``reduced(o, "n", head0, hend)`` declares that every row of ``o`` (the
    result of a reduction: an mma accumulated by a loop and the mmas after
    it, through rescaling) accumulated each value of A's reduced tag field
    ``field`` in ``[lo, hi)`` exactly once; the verifier proves it
    (``reduction-range``). Declare it on the value that is stored, so that
    the check covers what reaches memory."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(acc, Tile) or acc.space != "register":
        raise _err(TraceError, f"reduced: the accumulator must be a register tile, got {acc!r}",
                   loc, hint="declare it on the register value the reduction produced "
                   "(the one that is stored)")
    if not isinstance(field, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", field):
        raise _err(TagFieldError, f"reduced: {field!r} is not a tag field name", loc,
                   hint='the reduced field of A, e.g. "k" or "n"')
    lo_v = _index_or_err(tr, lo, "reduced: the range's start")
    hi_v = _index_or_err(tr, hi, "reduced: the range's end")
    tr.b.reduced(acc.h, field, lo_v.h, hi_v.h, tr.loc(loc))
