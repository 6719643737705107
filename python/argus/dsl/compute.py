"""Compute ops on register tiles: ``mma``, elementwise binary (``add``,
``sub``, ``mul``, ``div``, ``maximum``, ``minimum``) and unary (``exp``,
``exp2``, ``neg``, ``abs``, ``relu``, ``sqrt``, ``rsqrt``, ``log``, ``log2``,
``tanh``, ``sigmoid``, ``gelu``) ops, comparisons (``cmp``, ``<`` ...) and
``where``, ``iota``, ``splat``, ``scale``, ``fill``/``zeros``, ``convert``,
``convert_layout``, ``reduce`` and ``broadcast``; each carries the tag
fields its result keeps. Python numbers, scalar parameters and (for integer
tiles) traced indices meet tiles through ``fill`` / ``splat``.
"""

from __future__ import annotations

import math

from ..errors import DTypeError, LayoutError, ShapeError, TraceError
from ._tracer import _current_tracer, _err, _user_loc
from .layouts import broadcast_layout, reduce_layout
from .types import (ScalarSpec, TileType, _as_layout, _shape, _shs, check_instruction, dtype_of,
                    is_float)
from .values import (IndexValue, ScalarValue, Tile, _arith, _index_or_err, _need_tile,
                     _new_tile, _not_a_tile_hint, _sugar)


def mma(instr: str, a: Tile, b: Tile, acc: Tile) -> Tile:
    """``acc + a @ b`` with the named matrix-core instruction."""
    tr = _current_tracer()
    loc = _user_loc(2)
    check_instruction(instr, loc)
    _need_tile(a, "mma operand a", loc)
    _need_tile(b, "mma operand b", loc)
    _need_tile(acc, "the mma accumulator", loc, memory=False)
    # Shapes, element types, fragments and the target are the op verifier's
    # (verifyMatrixProduct): errors of its kinds at this line.
    t = _new_tile(tr, "acc", acc.ttype)
    t.h = tr.b.mma(False, instr, a.h, b.h, acc.h, tr.loc(loc, t.name))
    return t


# Float element types by width: a scalar parameter meets a float tile of
# another width through arith.extf / arith.truncf.
_FLOAT_BITS = {"f8E4M3FN": 8, "f8E4M3FNUZ": 8, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_INT_BITS = {"i1": 1, "i8": 8, "i32": 32, "i64": 64}


def _fill_value(value, dtype: str, what: str, loc) -> float:
    """``value`` (a Python number) as the f64 fill value of a ``dtype`` tile,
    or a DTypeError: an integer tile takes integers its width holds (signed
    or unsigned), a float tile any real number or an infinity (not one
    beyond what an f64 holds)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _err(TraceError, f"{what}: the fill value must be a number, got {value!r}", loc)
    try:
        v = float(value)
    except OverflowError:
        raise _err(DTypeError, f"{what}: the number {value!r} does not fit an f64", loc,
                   hint=f"use a value a {dtype} tile holds") from None
    if math.isnan(v) and dtype in _INT_BITS:
        raise _err(DTypeError, f"{what}: NaN meets a {dtype} tile, which holds integers", loc,
                   hint="argus.convert the tile to a float type first")
    bits = _INT_BITS.get(dtype)
    if bits is not None:
        if not math.isfinite(v) or v != math.floor(v):
            raise _err(DTypeError, f"{what}: the number {value!r} meets a {dtype} tile, which "
                       "holds integers", loc, hint="use an integer, or argus.convert the tile "
                       "to a float type first")
        n = int(value) if isinstance(value, int) else int(v)
        if not -(1 << (bits - 1)) <= n < (1 << bits):
            raise _err(DTypeError, f"{what}: {value!r} does not fit the {bits}-bit elements "
                       f"of a {dtype} tile", loc,
                       hint=f"use a value in [{-(1 << (bits - 1))}, {(1 << bits) - 1}]")
        if not -2**53 <= n <= 2**53 and float(n) != n:  # (abs is argus.abs here)
            raise _err(DTypeError, f"{what}: {value!r} is not exactly an f64, which the fill "
                       "value is", loc, hint="use an integer of at most 53 bits")
    return v


def _fill(value, shape, dtype, layout, loc, what="argus.fill") -> Tile:
    tr = _current_tracer()
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout", loc)
    dt = dtype_of(dtype)
    v = _fill_value(value, dt, what, loc)
    ttype = TileType(_shape(shape), dt, "register", lay)
    t = _new_tile(tr, "fill", ttype)
    t.h = tr.b.fill(v, tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def _splat(x, like: Tile, loc) -> Tile:
    """A scalar parameter or a traced index as a tile shaped like ``like``."""
    tr = _current_tracer()
    if isinstance(x, IndexValue):
        if is_float(like.dtype) or like.dtype == "i1":
            raise _err(DTypeError, f"a traced index cannot meet a {like.dtype} tile (only integer "
                       "tiles); hint: argus.convert an integer tile", loc)
    elif x.dtype != like.dtype:
        if not (is_float(x.dtype) and is_float(like.dtype)):
            raise _err(DTypeError, f"scalar {x.pyname} is {x.dtype} but the tile holds "
                       f"{like.dtype}", loc)
        op = "extf" if _FLOAT_BITS[x.dtype] < _FLOAT_BITS[like.dtype] else "truncf"
        cast = ScalarValue(tr, tr.fresh(f"{x.pyname}_{like.dtype}"), ScalarSpec(like.dtype),
                           x.pyname)
        tr.op(f"arith.{op}", [x], [like.dtype], loc, cast)
        x = cast
    t = _new_tile(tr, "splat", like.ttype)
    tr.op("argus.splat", [x], [like.type_str], loc, t)
    return t


def _as_tile(x, like: Tile, what: str, loc) -> Tile:
    """``x`` as a register tile of ``like``'s type: tiles as they are, Python
    numbers through argus.fill, scalars and indices through argus.splat."""
    if isinstance(x, Tile):
        return x
    if isinstance(x, bool):
        if like.dtype != "i1":
            raise _err(DTypeError, f"{what}: a Python bool meets a {like.dtype} tile", loc)
        return fill(1.0 if x else 0.0, like.shape, "i1", like.layout)
    if isinstance(x, (int, float)):
        if like.dtype == "i1":
            raise _err(DTypeError, f"{what}: the number {x!r} meets a {like.dtype} tile", loc)
        return _fill(x, like.shape, like.dtype, like.layout, loc, what)
    if isinstance(x, (ScalarValue, IndexValue)):
        return _splat(x, like, loc)
    raise _err(TraceError, f"{what} needs register tiles or scalars, got {x!r}", loc,
               hint=_not_a_tile_hint(x))


def _operands(op: str, a, b, loc):
    """Both operands as register tiles of one type (a scalar side takes the
    tile side's type)."""
    if not isinstance(a, Tile) and not isinstance(b, Tile):
        raise _err(TraceError, f"argus.{op} needs at least one tile, got {a!r} and {b!r}", loc,
                   hint=_not_a_tile_hint(a))
    like = a if isinstance(a, Tile) else b
    _need_tile(like, f"the {op} operand", loc, memory=False)
    a = _as_tile(a, like, f"argus.{op}", loc)
    b = _as_tile(b, like, f"argus.{op}", loc)
    _need_tile(a, f"the {op} lhs", loc, memory=False)
    _need_tile(b, f"the {op} rhs", loc, memory=False)
    # That both have one type is the op verifier's (Argus_SameTileTypes).
    return a, b


def _binary(op: str, a, b) -> Tile:
    tr = _current_tracer()
    loc = _user_loc(3)
    a, b = _operands(op, a, b, loc)
    t = _new_tile(tr, op, a.ttype)
    tr.op(f"argus.{op}", [a, b], [a.type_str], loc, t)
    return t


def add(a, b): return _binary("add", a, b)
def sub(a, b): return _binary("sub", a, b)
def mul(a, b): return _binary("mul", a, b)
def div(a, b): return _binary("div", a, b)
def _index_pair(a, b) -> bool:
    """Whether ``a`` and ``b`` are traced indices and ints (at least one traced)."""
    def ok(x):
        return isinstance(x, IndexValue) or (isinstance(x, int) and not isinstance(x, bool))
    return ok(a) and ok(b) and (isinstance(a, IndexValue) or isinstance(b, IndexValue))


def _index_minmax(op: str, a, b) -> IndexValue:
    tr = a._tr if isinstance(a, IndexValue) else b._tr
    x = _index_or_err(tr, a, f"argus.{op}'s lhs")
    y = _index_or_err(tr, b, f"argus.{op}'s rhs")
    return _arith(tr, op, x, y)


def maximum(a, b):
    """Elementwise maximum of tiles (``argus.max``); of two indices (a traced
    index and an int or another index), the unsigned ``arith.maxui``."""
    if _index_pair(a, b):
        return _index_minmax("maxui", a, b)
    return _binary("max", a, b)


def minimum(a, b):
    """Elementwise minimum of tiles (``argus.min``); of two indices, the
    unsigned ``arith.minui``."""
    if _index_pair(a, b):
        return _index_minmax("minui", a, b)
    return _binary("min", a, b)


def _unary(op: str, x: Tile) -> Tile:
    tr = _current_tracer()
    loc = _user_loc(3)
    _need_tile(x, f"the {op} input", loc, memory=False)
    t = _new_tile(tr, op, x.ttype)
    tr.op(f"argus.{op}", [x], [x.type_str], loc, t)
    return t


def exp(x): return _unary("exp", x)
def exp2(x): return _unary("exp2", x)
def neg(x): return _unary("neg", x)
def abs(x): return _unary("abs", x)  # noqa: A001 (argus.abs, like numpy.abs)
def relu(x): return _unary("relu", x)
def sqrt(x): return _unary("sqrt", x)
def rsqrt(x): return _unary("rsqrt", x)
def log(x): return _unary("log", x)
def log2(x): return _unary("log2", x)
def tanh(x): return _unary("tanh", x)
def sigmoid(x): return _unary("sigmoid", x)


def gelu(x, approximate: str = "none"):
    """GELU, the exact form ``0.5 x (1 + erf(x / sqrt 2))`` (docs/Lowering.md
    says how erf is computed), or with ``approximate="tanh"`` PyTorch's
    ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``, built from
    elementwise ops (``tanh`` is ``tanh.approx.f32`` on NVIDIA)."""
    if approximate == "none":
        return _unary("gelu", x)
    if approximate != "tanh":
        raise _err(TraceError, f"gelu's approximate is 'none' or 'tanh', got {approximate!r}",
                   _user_loc(2))
    inner = (x + x * x * x * 0.044715) * 0.7978845608028654
    return x * 0.5 * (tanh(inner) + 1.0)


_CMP = ("lt", "le", "gt", "ge", "eq", "ne")


def _cmp(pred: str, a, b) -> Tile:
    tr = _current_tracer()
    loc = _user_loc(3)
    a, b = _operands("cmp", a, b, loc)
    ttype = TileType(a.shape, "i1", "register", a.layout)
    t = _new_tile(tr, "mask", ttype)
    t.h = tr.b.cmp(pred, a.h, b.h, tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def cmp(pred: str, a, b) -> Tile:
    """An i1 mask tile: ``pred`` is lt, le, gt, ge, eq or ne (floats compare
    ordered, except ne; integers signed). ``a < b`` etc. are the same."""
    if pred not in _CMP:
        raise _err(TraceError, f"comparison must be one of {', '.join(_CMP)}, got {pred!r}")
    return _cmp(pred, a, b)


def eq(a, b): return _cmp("eq", a, b)
def ne(a, b): return _cmp("ne", a, b)


def _need_mask(m, loc) -> Tile:
    if not isinstance(m, Tile):
        raise _err(TraceError, f"the mask must be an i1 tile (e.g. x > 0), got {m!r}", loc)
    _need_tile(m, "the mask", loc, memory=False)
    return m


def _select(mask, a, b, loc) -> Tile:
    tr = _current_tracer()
    _need_mask(mask, loc)
    if not isinstance(a, Tile) and not isinstance(b, Tile):
        # Two scalars: the typed one (a parameter) gives the element type.
        if isinstance(a, bool) and isinstance(b, bool):
            a = fill(1.0 if a else 0.0, mask.shape, "i1", mask.layout)
        else:
            typed = a if isinstance(a, ScalarValue) else b
            if not isinstance(typed, ScalarValue):
                raise _err(TraceError, "argus.where needs a tile or a scalar parameter among "
                           f"its values, got {a!r} and {b!r}", loc)
            like = Tile(tr, "", TileType(mask.shape, typed.dtype, "register", mask.layout))
            if typed is a:
                a = _splat(a, like, loc)
            else:
                b = _splat(b, like, loc)
    a, b = _operands("where", a, b, loc)
    t = _new_tile(tr, "sel", a.ttype)
    tr.op("argus.select", [mask, a, b], [a.type_str], loc, t)
    return t


def where(mask: Tile, a, b) -> Tile:
    """``mask ? a : b`` elementwise (``argus.select``); ``a`` or ``b`` may be
    a number or a scalar."""
    return _select(mask, a, b, _user_loc(2))


def _logic(op: str, a, b) -> Tile:
    """Mask algebra through select: a & b = a ? b : false, a | b = a ? true : b,
    ~a = a ? false : true."""
    loc = _user_loc(3)
    _need_mask(a if isinstance(a, Tile) else b, loc)
    if op == "not":
        return _select(a, False, True, loc)
    if not isinstance(a, Tile):
        a, b = b, a
    if isinstance(b, Tile):
        _need_mask(b, loc)
    return _select(a, b, False, loc) if op == "and" else _select(a, True, b, loc)


def iota(shape, dim: int, layout, dtype="i32") -> Tile:
    """An integer tile whose elements are their coordinate along ``dim``
    (``argus.iota``): with a block offset added, masks like ``col < N`` or a
    causal ``col <= row``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout", loc)
    shape = _shape(shape)
    dt = dtype_of(dtype)
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 0:
        raise _err(ShapeError, f"iota dim must be a non-negative int, got {dim!r}", loc)
    if dim >= len(shape):
        # (The op verifier's too; a dim beyond 64 bits would not reach it.)
        raise _err(ShapeError, f"iota dim {dim} is not a dimension of the {len(shape)}-d "
                   f"tile {'x'.join(map(str, shape))}", loc,
                   hint=f"dimensions count from 0 to {len(shape) - 1}")
    ttype = TileType(shape, dt, "register", lay)
    t = _new_tile(tr, "iota", ttype)
    t.h = tr.b.iota(dim, tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def splat(value, like: Tile) -> Tile:
    """A scalar parameter, a traced index (integer tiles) or a number as a
    tile of ``like``'s type."""
    loc = _user_loc(2)
    _need_tile(like, "like", loc, memory=False)
    return _as_tile(value, like, "argus.splat", loc)


def scale(x: Tile, factor: float) -> Tile:
    """Multiply every element by a constant."""
    tr = _current_tracer()
    loc = _user_loc()
    _need_tile(x, "the scaled tile", loc, memory=False)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise _err(TraceError, f"argus.scale: the factor must be a number, got {factor!r}", loc)
    try:
        f = float(factor)
    except OverflowError:
        raise _err(DTypeError, f"argus.scale: the factor {factor!r} does not fit an f64", loc,
                   hint=f"use a factor a {x.dtype} tile holds") from None
    t = _new_tile(tr, "scaled", x.ttype)
    t.h = tr.b.scale(x.h, f, tr.loc(loc, t.name))
    return t


def fill(value: float, shape, dtype, layout) -> Tile:
    """A register tile with every element equal to ``value``."""
    return _fill(value, shape, dtype, layout, _user_loc(2))


def zeros(shape, dtype, layout) -> Tile:
    return fill(0.0, shape, dtype, layout)


def convert(x: Tile, dtype) -> Tile:
    """Convert the element type, keeping shape and layout."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the converted tile", loc, memory=False)
    ttype = TileType(x.shape, dtype_of(dtype), "register", x.layout)
    t = _new_tile(tr, "cvt", ttype)
    tr.op("argus.convert", [x], [ttype.mlir()], loc, t)
    return t


def convert_layout(x: Tile, layout) -> Tile:
    """Redistribute a register tile to another register layout."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the input", loc, memory=False)
    ttype = TileType(x.shape, x.dtype, "register", _as_layout(layout))
    t = _new_tile(tr, "cl", ttype)
    tr.op("argus.convert_layout", [x], [ttype.mlir()], loc, t)
    return t


def reduce(x: Tile, kind: str, dim: int, layout=None) -> Tile:
    """Reduce a register tile along ``dim`` (``kind``: sum, max, min, prod). The
    result's register layout is ``reduce_layout(x.layout, x.shape, dim)``
    unless ``layout`` is given: every thread holds the results of the rows
    it held elements of."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the reduced tile", loc, memory=False)
    if kind not in ("sum", "max", "min", "prod"):
        raise _err(TraceError, f"reduction kind must be sum, max, min or prod, got {kind!r}", loc)
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < len(x.shape):
        raise _err(ShapeError, f"reduce dim {dim!r} out of range for a {_shs(x.shape)} tile", loc)
    shape = x.shape[:dim] + x.shape[dim + 1:]
    if not shape:
        raise _err(ShapeError, "cannot reduce a 1-D tile to a scalar", loc)
    if layout is None:
        layout = reduce_layout(x.layout, x.shape, dim)
    ttype = TileType(shape, x.dtype, "register", _as_layout(layout))
    tr.slices.setdefault((ttype.layout, shape, dim), set()).add((x.shape, x.layout))
    t = _new_tile(tr, "red", ttype)
    t.h = tr.b.reduce(False, kind, x.h, dim, tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


_SCAN_KINDS = {"add": "sum", "sum": "sum", "mul": "prod", "prod": "prod", "max": "max",
               "min": "min"}


def _scan(x: Tile, kind: str, dim: int, loc) -> Tile:
    tr = _current_tracer()
    _need_tile(x, "the scanned tile", loc, memory=False)
    if not isinstance(kind, str) or kind not in _SCAN_KINDS:
        raise _err(TraceError, f"scan kind must be add, mul, max or min, got {kind!r}", loc,
                   hint="argus.cumsum, cumprod, cummax and cummin name the kind")
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < len(x.shape):
        raise _err(ShapeError, f"scan dim {dim!r} out of range for a {_shs(x.shape)} tile", loc,
                   hint=f"dimensions count from 0 to {len(x.shape) - 1}")
    ir_kind = _SCAN_KINDS[kind]
    t = _new_tile(tr, "scan", x.ttype)
    t.h = tr.b.reduce(True, ir_kind, x.h, dim, tr.type(x.type_str, loc), tr.loc(loc, t.name))
    return t


def scan(x: Tile, kind: str, dim: int) -> Tile:
    """Inclusive prefix scan of a register tile along ``dim``: element ``p``
    of the result is ``kind`` (add, mul, max, min; also sum, prod) over the
    elements ``q <= p`` of its row. The result has ``x``'s shape, dtype and
    layout."""
    return _scan(x, kind, dim, _user_loc(2))


def cumsum(x: Tile, dim: int) -> Tile:
    """Inclusive cumulative sum along ``dim`` (``scan(x, "add", dim)``)."""
    return _scan(x, "add", dim, _user_loc(2))


def cumprod(x: Tile, dim: int) -> Tile:
    """Inclusive cumulative product along ``dim``."""
    return _scan(x, "mul", dim, _user_loc(2))


def cummax(x: Tile, dim: int) -> Tile:
    """Inclusive running maximum along ``dim``."""
    return _scan(x, "max", dim, _user_loc(2))


def cummin(x: Tile, dim: int) -> Tile:
    """Inclusive running minimum along ``dim``."""
    return _scan(x, "min", dim, _user_loc(2))


def broadcast(x: Tile, dim: int, like: Tile = None, shape=None, layout=None) -> Tile:
    """Broadcast a register tile along a new dimension ``dim``; the result
    type is ``like``'s type, or ``shape`` + ``layout``. Without them it is
    the tile ``x`` was reduced from (a reduction of that shape and layout
    along ``dim`` gave ``x``'s layout); with ``shape`` alone, that tile's
    layout if it has that shape, else ``broadcast_layout`` (every thread
    holds the whole new dimension)."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the broadcast input", loc, memory=False)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise _err(ShapeError, f"broadcast dim must be an int, got {dim!r}", loc)
    if like is not None:
        _need_tile(like, "like", loc)
        shape, lay = like.shape, like.layout
    elif layout is not None:
        if shape is None:
            raise _err(ShapeError, "broadcast(layout=...) needs shape= too", loc)
        shape, lay = _shape(shape), _as_layout(layout)
    else:
        want = None if shape is None else _shape(shape)
        parents = {p for p in tr.slices.get((x.layout, x.shape, dim), ())
                   if want is None or p[0] == want}
        if len(parents) == 1:
            shape, lay = next(iter(parents))
        elif want is not None:
            if not 0 <= dim < len(want) or len(want) != len(x.shape) + 1:
                raise _err(ShapeError, f"cannot broadcast a {_shs(x.shape)} tile to "
                           f"{_shs(want)} along dim {dim}", loc)
            lay = broadcast_layout(x.layout, x.shape, dim, want[dim])
            shape = want
        elif parents:
            raise _err(LayoutError, f"broadcast along dim {dim}: tiles of several shapes or "
                       f"layouts reduce to this one ({len(parents)}); say which", loc,
                       hint="pass like=<a tile of the result's type>")
        else:
            raise _err(ShapeError, f"broadcast along dim {dim}: the result's shape is unknown "
                       "(no reduction in this kernel gave a tile of this layout)", loc,
                       hint="pass like=<a tile of the result's type> or shape=")
    if len(shape) != len(x.shape) + 1 or not 0 <= dim < len(shape) or \
            tuple(shape[:dim]) + tuple(shape[dim + 1:]) != x.shape:
        raise _err(ShapeError, f"cannot broadcast a {_shs(x.shape)} tile to {_shs(shape)} along "
                   f"dim {dim}", loc)
    ttype = TileType(tuple(shape), x.dtype, "register", lay)
    t = _new_tile(tr, "bc", ttype)
    t.h = tr.b.broadcast(x.h, dim, tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


# The arithmetic operators of Tile (values.py) call these.
_sugar.update(binary=_binary, unary=_unary, scale=scale, cmp=_cmp, logic=_logic)
