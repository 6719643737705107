"""Compute ops on register tiles: ``mma``, elementwise binary (``add``,
``sub``, ``mul``, ``div``, ``maximum``) and unary (``exp``, ``exp2``,
``neg``) ops, ``scale``, ``fill``/``zeros``, ``convert``,
``convert_layout``, ``reduce`` and ``broadcast``; each carries the tag
fields its result keeps.
"""

from __future__ import annotations

import math
import struct

from ..errors import DTypeError, LayoutError, ShapeError, TraceError, UnknownInstructionError
from ._tracer import _current_tracer, _err, _user_loc
from .types import TileType, _as_layout, _shape, _shs, check_instruction, dtype_of, instruction
from .values import TagInfo, Tile, _need_tile, _new_tile, _sugar


def _target_family(t: str) -> str:
    return "gfx942" if t.startswith("gfx") else "sm_90a"


def mma(instr: str, a: Tile, b: Tile, acc: Tile) -> Tile:
    """``acc + a @ b`` with the named matrix-core instruction."""
    tr = _current_tracer()
    loc = _user_loc(2)
    check_instruction(instr, loc)
    _need_tile(a, "mma operand a", loc)
    _need_tile(b, "mma operand b", loc)
    _need_tile(acc, "the mma accumulator", loc, memory=False)
    if len(a.shape) != 2 or len(b.shape) != 2 or len(acc.shape) != 2:
        raise _err(ShapeError, "mma operands must be 2-D tiles", loc)
    (m, k), (k2, n), (m2, n2) = a.shape, b.shape, acc.shape
    if k != k2 or m != m2 or n != n2:
        raise _err(ShapeError, f"mma shapes do not fit: a is {_shs(a.shape)}, b is "
                   f"{_shs(b.shape)}, acc is {_shs(acc.shape)} (need MxK, KxN, MxN)", loc)
    desc = instruction(instr)
    if desc is not None:
        if desc["target"] != _target_family(tr.target):
            raise _err(UnknownInstructionError, f"instruction '{instr}' is for {desc['target']}, "
                       f"but the kernel targets {tr.target}", loc)
        for nm, t, want in (("a", a, desc["a_type"]), ("b", b, desc["b_type"]),
                            ("acc", acc, desc["c_type"])):
            if t.dtype != want:
                raise _err(DTypeError, f"mma operand {nm} of '{instr}' must be {want}, got "
                           f"{t.dtype}", loc)
        for nm, t, unit in (("a", a, (desc["M"], desc["K"])), ("b", b, (desc["K"], desc["N"])),
                            ("acc", acc, (desc["M"], desc["N"]))):
            if t.shape[0] % unit[0] or t.shape[1] % unit[1]:
                raise _err(ShapeError, f"mma operand {nm} is {_shs(t.shape)}, not a multiple of "
                           f"the instruction's {unit[0]}x{unit[1]}", loc)
    t = _new_tile(tr, "acc", acc.ttype, tags=acc.tags)
    tr.emit(f'{t.name} = argus.mma "{instr}" {a.name}, {b.name}, {acc.name} : '
            f"{a.type_str}, {b.type_str}, {acc.type_str}", loc)
    t.site = ("argus.mma", {"a": a, "b": b, "acc": acc})
    tr.last_site = t.site
    return t


def _union_tags(a: TagInfo, b: TagInfo) -> TagInfo:
    if a is None or b is None:
        return None
    return {**b, **a}


def _binary(op: str, a: Tile, b: Tile) -> Tile:
    tr = _current_tracer()
    loc = _user_loc(3)
    if not isinstance(b, Tile):
        raise _err(TraceError, f"argus.{op} needs two register tiles, got {b!r}", loc)
    _need_tile(a, f"the {op} lhs", loc, memory=False)
    _need_tile(b, f"the {op} rhs", loc, memory=False)
    if a.ttype != b.ttype:
        if a.shape != b.shape:
            raise _err(ShapeError, f"argus.{op}: shapes differ ({_shs(a.shape)} vs "
                       f"{_shs(b.shape)})", loc)
        if a.dtype != b.dtype:
            raise _err(DTypeError, f"argus.{op}: element types differ ({a.dtype} vs {b.dtype})",
                       loc)
        raise _err(LayoutError, f"argus.{op}: layouts differ ({a.layout} vs {b.layout}); use "
                   "argus.convert_layout", loc)
    t = _new_tile(tr, op, a.ttype, tags=_union_tags(a.tags, b.tags))
    tr.emit(f"{t.name} = argus.{op} {a.name}, {b.name} : {a.type_str}", loc)
    t.site = (f"argus.{op}", {"lhs": a, "rhs": b})
    tr.last_site = t.site
    return t


def add(a, b): return _binary("add", a, b)
def sub(a, b): return _binary("sub", a, b)
def mul(a, b): return _binary("mul", a, b)
def div(a, b): return _binary("div", a, b)
def maximum(a, b): return _binary("max", a, b)


def _unary(op: str, x: Tile) -> Tile:
    tr = _current_tracer()
    loc = _user_loc(3)
    _need_tile(x, f"the {op} input", loc, memory=False)
    t = _new_tile(tr, op, x.ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.{op} {x.name} : {x.type_str}", loc)
    t.site = (f"argus.{op}", {"input": x})
    tr.last_site = t.site
    return t


def exp(x): return _unary("exp", x)
def exp2(x): return _unary("exp2", x)
def neg(x): return _unary("neg", x)


def _f64(v: float) -> str:
    v = float(v)
    if math.isfinite(v):
        return repr(v) if ("e" in repr(v) or "." in repr(v)) else repr(v) + ".0"
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]


def scale(x: Tile, factor: float) -> Tile:
    """Multiply every element by a constant."""
    tr = _current_tracer()
    loc = _user_loc()
    _need_tile(x, "the scaled tile", loc, memory=False)
    t = _new_tile(tr, "scaled", x.ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.scale {x.name} by {_f64(factor)} : {x.type_str}", loc)
    t.site = ("argus.scale", {"input": x})
    tr.last_site = t.site
    return t


def fill(value: float, shape, dtype, layout) -> Tile:
    """A register tile with every element equal to ``value``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout", loc)
    ttype = TileType(_shape(shape), dtype_of(dtype), "register", lay)
    t = _new_tile(tr, "fill", ttype, tags={})
    tr.emit(f"{t.name} = argus.fill {_f64(value)} : {ttype.mlir()}", loc)
    t.site = ("argus.fill", {})
    tr.last_site = t.site
    return t


def zeros(shape, dtype, layout) -> Tile:
    return fill(0.0, shape, dtype, layout)


def convert(x: Tile, dtype) -> Tile:
    """Convert the element type, keeping shape and layout."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the converted tile", loc, memory=False)
    ttype = TileType(x.shape, dtype_of(dtype), "register", x.layout)
    t = _new_tile(tr, "cvt", ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.convert {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.convert", {"input": x})
    tr.last_site = t.site
    return t


def convert_layout(x: Tile, layout) -> Tile:
    """Redistribute a register tile to another register layout."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the input", loc, memory=False)
    ttype = TileType(x.shape, x.dtype, "register", _as_layout(layout))
    t = _new_tile(tr, "cl", ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.convert_layout {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.convert_layout", {"input": x})
    tr.last_site = t.site
    return t


def reduce(x: Tile, kind: str, dim: int, layout) -> Tile:
    """Reduce a register tile along ``dim`` (``kind``: sum, max, min); the
    result's register ``layout`` must be given."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the reduced tile", loc, memory=False)
    if kind not in ("sum", "max", "min"):
        raise _err(TraceError, f"reduction kind must be sum, max or min, got {kind!r}", loc)
    if not isinstance(dim, int) or not 0 <= dim < len(x.shape):
        raise _err(ShapeError, f"reduce dim {dim!r} out of range for a {_shs(x.shape)} tile", loc)
    shape = x.shape[:dim] + x.shape[dim + 1:]
    if not shape:
        raise _err(ShapeError, "cannot reduce a 1-D tile to a scalar", loc)
    ttype = TileType(shape, x.dtype, "register", _as_layout(layout))
    tags = None
    if x.tags is not None:
        tags = {f: frozenset(d - (d > dim) for d in ds) for f, ds in x.tags.items()
                if dim not in ds}
    t = _new_tile(tr, "red", ttype, tags=tags)
    tr.emit(f"{t.name} = argus.reduce {kind} {x.name} dim {dim} : {x.type_str} -> "
            f"{ttype.mlir()}", loc)
    t.site = ("argus.reduce", {"input": x})
    tr.last_site = t.site
    return t


def broadcast(x: Tile, dim: int, like: Tile = None, shape=None, layout=None) -> Tile:
    """Broadcast a register tile along a new dimension ``dim``; the result
    type is ``like``'s type (or ``shape`` + ``layout``)."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the broadcast input", loc, memory=False)
    if like is not None:
        shape, lay = like.shape, like.layout
    else:
        shape, lay = _shape(shape), _as_layout(layout)
    if len(shape) != len(x.shape) + 1 or not 0 <= dim < len(shape) or \
            tuple(shape[:dim]) + tuple(shape[dim + 1:]) != x.shape:
        raise _err(ShapeError, f"cannot broadcast a {_shs(x.shape)} tile to {_shs(shape)} along "
                   f"dim {dim}", loc)
    ttype = TileType(tuple(shape), x.dtype, "register", lay)
    tags = None if x.tags is None else {
        f: frozenset(d + (d >= dim) for d in ds) for f, ds in x.tags.items()}
    t = _new_tile(tr, "bc", ttype, tags=tags)
    tr.emit(f"{t.name} = argus.broadcast {x.name} dim {dim} : {x.type_str} -> {ttype.mlir()}",
            loc)
    t.site = ("argus.broadcast", {"input": x})
    tr.last_site = t.site
    return t


# The arithmetic operators of Tile (values.py) call these.
_sugar.update(binary=_binary, unary=_unary, scale=scale)
