"""Traced values: :class:`IndexValue` (index arithmetic and comparisons),
:class:`Condition`, the tensor parameters (:class:`TensorValue`),
:class:`Tile` and :class:`Buffer`, with the affine expressions that tag maps
are built from and the helpers the ops share (index constants and coercion,
new tiles, operand checks).

The operator sugar of tiles, buffers and tensors (``a + b``, ``-a``,
``2.0 * a``, ``buf[i]``, ``tensor.view(...)``) calls ops defined in
``compute.py`` and ``memory.py``, which register them in ``_sugar`` when they
are imported, so this module imports neither.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

from ..errors import DTypeError, ShapeError, TraceError
from ._tracer import SourceLoc, _Tracer, _current_tracer, _err, _user_loc
from .types import ScalarSpec, TensorSpec, TileType

#===------------------------------------------------------------------------===#
# Affine expressions (for tag maps)
#===------------------------------------------------------------------------===#


_AFFINE_HINT = ("tag fields are affine integer expressions of the coordinates: use + and -, "
                "* by an int, // and % by a positive int (m // 2, not m * 0.5 or m / 2)")


def _affine_misuse(what: str, hint: str = _AFFINE_HINT):
    return _err(TraceError, f"tag map: {what}", hint=hint)


class AffineExpr:
    """A tag-map expression over the element coordinate (what a tag lambda
    computes with)."""

    def _bin(self, op, other, swap=False):
        o = _to_affine(other)
        if o is None:
            if isinstance(other, float):
                raise _affine_misuse(f"a coordinate meets the float {other!r} (in `{op}`)")
            raise _affine_misuse(f"a coordinate meets {type(other).__name__} {other!r} "
                                 f"(in `{op}`)")
        lhs, rhs = (o, self) if swap else (self, o)
        return _affine_bin(op, lhs, rhs)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("floordiv", o)
    def __rfloordiv__(self, o): return self._bin("floordiv", o, True)
    def __mod__(self, o): return self._bin("mod", o)
    def __rmod__(self, o): return self._bin("mod", o, True)
    def __neg__(self): return _affine_bin("*", self, AConst(-1))

    def __truediv__(self, o):
        raise _affine_misuse("`/` is true division (a float)")

    def __rtruediv__(self, o):
        raise _affine_misuse("`/` is true division (a float)")

    def __pow__(self, o):
        raise _affine_misuse("`**` is not affine")

    def __rpow__(self, o):
        raise _affine_misuse("`**` is not affine")

    def _no_compare(self, o):
        raise _affine_misuse("coordinates cannot be compared: a tag map has no conditions",
                             "compute the field arithmetically, or mask values with "
                             "argus.where(argus.iota(...) < n, ...)")

    __lt__ = __le__ = __gt__ = __ge__ = _no_compare

    def __bool__(self):
        raise _affine_misuse("a coordinate has no truth value (`if`, `and`, `or` in a tag "
                             "lambda)", "tag maps have no conditions; compute the field "
                             "arithmetically")

    def _no_int(self):
        raise _affine_misuse("a coordinate is symbolic, not a Python number",
                             "build the field with + - * // % from the coordinate")

    __int__ = __index__ = __float__ = _no_int


class ADim(AffineExpr):
    def __init__(self, i): self.i = i
    def render(self, syms): return f"d{self.i}"


class AConst(AffineExpr):
    def __init__(self, v): self.v = int(v)
    def render(self, syms): return str(self.v)


class ASym(AffineExpr):
    def __init__(self, value: "IndexValue"): self.value = value

    def render(self, syms):
        """``syms``: value name -> (symbol number, value), filled in order."""
        name = self.value.name
        if name not in syms:
            syms[name] = (len(syms), self.value)
        return f"s{syms[name][0]}"


class ABin(AffineExpr):
    def __init__(self, op, l, r): self.op, self.l, self.r = op, l, r

    def render(self, syms):
        return f"({self.l.render(syms)} {self.op} {self.r.render(syms)})"


def _to_affine(x) -> Optional[AffineExpr]:
    if isinstance(x, AffineExpr):
        return x
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return AConst(x)
    if isinstance(x, IndexValue):
        return ASym(x)
    return None


def _affine_bin(op, l, r):
    if isinstance(l, AConst) and isinstance(r, AConst):
        a, b = l.v, r.v
        if op in ("floordiv", "mod") and b <= 0:
            raise _err(TraceError, f"tag map: {op} by a non-positive constant")
        return AConst({"+": a + b, "-": a - b, "*": a * b,
                       "floordiv": a // b if b else 0, "mod": a % b if b else 0}[op])
    if op == "*" and not (isinstance(l, AConst) or isinstance(r, AConst)):
        raise _err(TraceError, "tag map is not affine: the product of two symbolic values "
                   "(multiply by integer constants only)")
    if op in ("floordiv", "mod") and not (isinstance(r, AConst) and r.v > 0):
        raise _err(TraceError, f"tag map is not affine: {op} needs a positive integer constant")
    return ABin(op, l, r)


#===------------------------------------------------------------------------===#
# Traced values
#===------------------------------------------------------------------------===#

# The ops behind the operator sugar of the values below, registered by the
# modules that define them: "view" and "stage" (memory.py), "binary", "unary"
# and "scale" (compute.py).
_sugar: Dict[str, Callable] = {}


_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
           "rshift": ">>"}
_UNARY = {"neg": "-", "pos": "+", "abs": "abs()", "invert": "~"}
_ORDER = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}


class _TracedEquality:
    """What ``a == b`` / ``a != b`` of traced values gives: using it as a
    Python truth value is the mistake (it would compare Python objects, not
    values on the GPU), so that raises at the user's line."""

    def __init__(self, a, b, op):
        self.a, self.b, self.op = a, b, op

    def __bool__(self):
        raise _err(TraceError, f"`{self.op}` of traced values has no Python truth value: "
                   f"{self.a!r} {self.op} {self.b!r} is decided on the GPU, not while tracing",
                   hint=self.a._eq_hint())

    def __repr__(self):
        return f"<traced {self.a!r} {self.op} {self.b!r}>"


class Value:
    """A traced value. Python operators that make no sense on it raise a
    :class:`TraceError` at the user's line with a hint (never a bare
    TypeError); subclasses define the ones they trace."""

    _what = "a traced value"

    def __init__(self, tracer: "_Tracer", name: str, h=None):
        self._tr = tracer
        self.name = name  # unique in the kernel; the printed IR names the value so
        self.h = h  # the builder's value (_argus.Value), set when its op is built

    @property
    def type_str(self) -> str:
        raise NotImplementedError

    # -- misuse ---------------------------------------------------------------
    def _hint(self, what: str) -> str:
        return "see docs/Python.md for the operations of traced values"

    def _eq_hint(self) -> str:
        return ("argus.eq / argus.ne give masks of tiles, i.eq(j) / i.ne(j) conditions of "
                "indices (for argus.when / argus.assume); a constexpr parameter branches at "
                "trace time")

    def _misuse(self, what: str, hint: Optional[str] = None, cls=TraceError):
        return _err(cls, f"{self._what} {what}", hint=hint or self._hint(what))

    def __bool__(self):
        raise self._misuse("has no Python truth value (`if`, `while`, `and`, `or`, `not`)",
                           self._hint("bool"))

    def __eq__(self, other):
        return True if other is self else _TracedEquality(self, other, "==")

    def __ne__(self, other):
        return False if other is self else _TracedEquality(self, other, "!=")

    __hash__ = object.__hash__

    def __iter__(self):
        raise self._misuse("is not iterable", self._hint("iter"))

    def __len__(self):
        raise self._misuse("has no len()", self._hint("len"))

    def __getitem__(self, i):
        raise self._misuse("cannot be indexed", self._hint("getitem"))

    def __int__(self):
        raise self._misuse("is not a Python number while tracing (int(), range(), a shape)",
                           self._hint("int"))

    __index__ = __int__

    def __float__(self):
        raise self._misuse("is not a Python number while tracing (float(), math.*)",
                           self._hint("float"))

    def __array__(self, *a, **k):
        raise self._misuse("is not a numpy array: numpy functions do not trace",
                           "use the argus ops (argus.exp, argus.maximum, argus.reduce, ...)")


def _binary_misuse(op: str, sym: str, reflected: bool):
    def f(self, other):
        if isinstance(other, Tile) and not isinstance(self, Tile):
            return NotImplemented  # tiles meet scalars and indices
        side = f"{other!r} {sym} it" if reflected else f"`{sym}` {other!r}"
        raise self._misuse(f"does not support {side}", self._hint(op))
    f.__name__ = f"__{'r' if reflected else ''}{op}__"
    return f


def _unary_misuse(op: str, sym: str):
    def f(self):
        raise self._misuse(f"does not support `{sym}`", self._hint(op))
    f.__name__ = f"__{op}__"
    return f


for _op, _sym in _BINARY.items():
    setattr(Value, f"__{_op}__", _binary_misuse(_op, _sym, False))
    setattr(Value, f"__r{_op}__", _binary_misuse(_op, _sym, True))
for _op, _sym in _UNARY.items():
    setattr(Value, f"__{_op}__", _unary_misuse(_op, _sym))
for _op, _sym in _ORDER.items():
    setattr(Value, f"__{_op}__", _binary_misuse(_op, _sym, False))

_CONSTEXPR_HINT = ("a traced index is known only on the GPU: use argus.when(cond) for "
                   "data-dependent control flow and argus.range for loops, or make it an "
                   "argus.constexpr parameter to branch or loop at trace time")


class IndexValue(Value):
    """An ``index`` value (block ids, offsets, loop induction variables)."""

    type_str = "index"
    _what = "a traced index"

    def _hint(self, what):
        if what in ("bool", "int", "iter", "len"):
            return _CONSTEXPR_HINT
        if what == "truediv":
            return "index division is integer: use // (floor) or argus.cdiv (ceiling)"
        if what == "float":
            return ("a traced index is known only on the GPU; make it an argus.constexpr "
                    "parameter to compute with it in Python")
        if what == "getitem":
            return "an index is a number, not a sequence"
        return ("indices support + - * // % and cdiv with ints and other indices; "
                "comparisons give conditions")

    def _other(self, op, other):
        """``other`` as an index, NotImplemented for a tile or tag-map
        expression (their reflected operator handles it), else an error."""
        if isinstance(other, (AffineExpr, Tile)):
            return NotImplemented
        o = _as_index(self._tr, other)
        if o is not None:
            return o
        if isinstance(other, float):
            raise _err(DTypeError, f"a traced index meets the float {other!r} (in `{op}`): "
                       "index arithmetic is integer", hint="use ints (K * 3 // 2, not "
                       "K * 1.5); float math belongs on tiles (argus.Scalar parameters meet "
                       "tiles), and a constexpr parameter is a Python number")
        raise _err(TraceError, f"a traced index meets {type(other).__name__} {other!r} "
                   f"(in `{op}`)", hint="indices combine with ints and other traced indices")

    def _arith(self, op, other, swap=False):
        o = self._other(_ARITH_SYM[op], other)
        if o is NotImplemented:
            return o
        a, b = (o, self) if swap else (self, o)
        return _arith(self._tr, op, a, b)

    def __add__(self, o): return self._arith("addi", o)
    def __radd__(self, o): return self._arith("addi", o, True)
    def __sub__(self, o): return self._arith("subi", o)
    def __rsub__(self, o): return self._arith("subi", o, True)
    def __mul__(self, o): return self._arith("muli", o)
    def __rmul__(self, o): return self._arith("muli", o, True)
    def __floordiv__(self, o): return self._arith("divui", o)
    def __rfloordiv__(self, o): return self._arith("divui", o, True)
    def __mod__(self, o): return self._arith("remui", o)
    def __rmod__(self, o): return self._arith("remui", o, True)

    def cdiv(self, o) -> "IndexValue":
        """``ceil(self / o)`` (``arith.ceildivui``), e.g. the number of tiles."""
        return self._arith("ceildivui", o)

    def __repr__(self):
        return f"<index {self.name}>"

    # Ordering comparisons build a traced condition (for argus.assume and
    # argus.when); `==` and `!=` are not traced (use eq / ne): as Python
    # truth values they raise.
    def _cmp(self, pred, other):
        o = self._other({"ult": "<", "ule": "<=", "ugt": ">", "uge": ">=", "eq": "eq",
                         "ne": "ne"}[pred], other)
        if o is NotImplemented:
            return o
        tr = self._tr
        c = Condition(tr, tr.fresh("ok"))
        c.h = tr.b.cmpi(pred, self.h, o.h, tr.loc(_user_loc(3), c.name))
        return c

    def __lt__(self, o): return self._cmp("ult", o)
    def __le__(self, o): return self._cmp("ule", o)
    def __gt__(self, o): return self._cmp("ugt", o)
    def __ge__(self, o): return self._cmp("uge", o)

    def eq(self, o) -> "Condition":
        """``self == o`` as a traced condition (``==`` is not traced)."""
        return self._cmp("eq", o)

    def ne(self, o) -> "Condition":
        """``self != o`` as a traced condition."""
        return self._cmp("ne", o)


class Condition(Value):
    """An ``i1`` condition on index values (``K >= 64``), combined with ``&``
    and ``|``; used by :func:`assume`."""

    type_str = "i1"
    _what = "a traced condition"

    def _hint(self, what):
        if what in ("bool", "int", "iter", "len"):
            return ("it is decided on the GPU: use argus.when(cond) for data-dependent control "
                    "flow or argus.assume(cond, msg) for a precondition; combine conditions "
                    "with & and | (not `and` / `or`); compare argus.constexpr parameters to "
                    "branch at trace time")
        return "conditions combine with & and | only"

    def _logic(self, op, other):
        if not isinstance(other, Condition):
            raise _err(TraceError, f"a traced condition meets {type(other).__name__} "
                       f"{other!r} (in `{'&' if op == 'andi' else '|'}`)",
                       hint="combine conditions of traced indices (i < n, kt.ne(0)); a Python "
                       "bool is decided at trace time: use Python `if` around the code")
        c = Condition(self._tr, self._tr.fresh("ok"))
        self._tr.op(f"arith.{op}", [self, other], ["i1"], _user_loc(3), c)
        return c

    def __and__(self, o): return self._logic("andi", o)
    def __or__(self, o): return self._logic("ori", o)
    def __rand__(self, o): return self._logic("andi", o)
    def __ror__(self, o): return self._logic("ori", o)


class ScalarValue(Value):
    """A scalar kernel parameter (``eps: argus.Scalar["f32"]``): it meets a
    tile in arithmetic, comparisons and ``where`` through ``argus.splat``."""

    def __init__(self, tracer, name, spec: ScalarSpec, pyname: str):
        super().__init__(tracer, name)
        self.spec = spec
        self.pyname = pyname

    @property
    def dtype(self):
        return self.spec.dtype

    @property
    def type_str(self):
        return self.spec.dtype

    _what = "a scalar parameter"

    def _hint(self, what):
        if what in ("bool", "int", "float"):
            return ("its value is known only at launch: make it an argus.constexpr parameter "
                    "to use it in Python, or apply it to a tile (x * eps, argus.where(m, x, eps))")
        return ("a scalar parameter meets tiles (x + eps, x * eps, argus.maximum(x, eps)); "
                "scalar-to-scalar arithmetic is not traced: write it on the tile "
                "(x * eps * 2.0) or pass the computed value")

    def __repr__(self):
        return f"<scalar {self.pyname} {self.dtype}>"


class TensorValue(Value):
    """A tensor kernel parameter (a memref)."""

    _what = "a tensor parameter"

    def __init__(self, tracer, name, spec: TensorSpec, pyname: str):
        super().__init__(tracer, name)
        self.spec = spec
        self.pyname = pyname

    def _hint(self, what):
        if what == "getitem":
            return ("a tile of a tensor is T.view(offsets, shape) (argus.view), e.g. "
                    "A.view((m0, k0), (128, 32)) for A[m0:m0+128, k0:k0+32]")
        if what in ("len", "int", "iter"):
            return "its sizes are T.dim(k) (traced) or T.shape (the annotation's dims)"
        return ("a tensor parameter is memory: compute on tiles, e.g. "
                "argus.load(T.view(offsets, shape)) + 1")

    @property
    def shape(self):
        return self.spec.shape

    @property
    def dtype(self):
        return self.spec.dtype

    @property
    def type_str(self):
        return self.spec.mlir()

    def view(self, offsets, shape, name=None, clipped=False) -> "Tile":
        return _sugar["view"](self, offsets, shape, name=name, clipped=clipped)

    def dim(self, k) -> IndexValue:
        """The size of dimension ``k`` (an int, or the dim's name in the
        annotation) as a traced index (``memref.dim``): static dims are
        constants; for the verifier a dynamic one is the parameter
        ``argN.dimK``."""
        loc = _user_loc(2)
        if isinstance(k, str):
            if k == "?" or k not in self.shape:
                raise _err(TraceError, f"tensor {self.pyname} has no dim named {k!r} "
                           f"(its dims: {self.shape})", loc)
            k = self.shape.index(k)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(self.shape):
            raise _err(TraceError, f"tensor {self.pyname} has no dim {k!r}", loc)
        return self._dim(k, loc)

    def index_at(self, i) -> IndexValue:
        """Element ``i`` of a 1-D integer tensor as a traced index
        (``memref.load`` + ``arith.index_cast``): a table read, such as the
        expert of a block of MoE rows. At the kernel's top level the
        verifier takes it as a value loaded at entry (any value: bound it
        with ``argus.assume``); inside a loop (a persistent kernel's work
        list) as an entry of a tensor the kernel must not write, the same
        for every load of that entry (bound it with ``argus.minimum``)."""
        loc = _user_loc(2)
        if len(self.shape) != 1:
            raise _err(ShapeError, f"index_at reads a 1-D tensor; {self.pyname} is "
                       f"{len(self.shape)}-D", loc)
        if self.dtype not in ("i32", "i64"):
            raise _err(DTypeError, f"index_at reads an integer tensor (i32 or i64); "
                       f"{self.pyname} holds {self.dtype}", loc)
        idx = _index_or_err(self._tr, i, "the element index")
        tr = self._tr
        elem = ScalarValue(tr, tr.fresh(f"{self.pyname}_at"), ScalarSpec(self.dtype),
                           self.pyname)
        tr.op("memref.load", [self, idx], [self.dtype], loc, elem)
        v = IndexValue(tr, tr.fresh(f"{self.pyname}_index"))
        tr.op("arith.index_cast", [elem], ["index"], loc, v)
        return v

    def _dim(self, k: int, loc) -> IndexValue:
        if isinstance(self.shape[k], int):
            return _const(self._tr, self.shape[k], loc)
        tr = self._tr
        v = IndexValue(tr, tr.fresh(f"{self.pyname}_dim{k}"))
        tr.op("memref.dim", [self, _const(tr, k, loc)], ["index"], loc, v)
        return v

    def __repr__(self):
        return f"<tensor {self.pyname} {self.spec.mlir()}>"




class Tile(Value):
    """A tile value: shape, element type, memory space and layout."""

    _what = "a tile"

    def _hint(self, what):
        if what == "bool":
            return ("tiles are decided element by element on the GPU: select with "
                    "argus.where(mask, a, b) (masks: x > 0, argus.eq(a, b)); branch on "
                    "argus.constexpr parameters at trace time")
        if what in ("iter", "getitem"):
            return ("tiles are not indexed element by element: a sub-tile of a tensor is "
                    "T.view(offsets, shape), a stage of a buffer buf[i]; argus.reduce "
                    "combines along a dimension")
        if what == "float":
            return ("its values exist only on the GPU: use the argus math functions on tiles "
                    "(argus.exp, argus.sqrt, argus.maximum, ...)")
        if what in ("len", "int"):
            return "a tile's size is x.shape (a Python tuple); its values exist only on the GPU"
        if what == "matmul":
            return "a matrix product is argus.mma(instr, a, b, acc) (argus.tiled_mma names the fragments)"
        if what == "pow":
            return "x * x, or argus.exp2(argus.log2(x) * p)"
        return ("tiles support + - * / with tiles, numbers and scalars, comparisons "
                "(masks), & | ~ on masks, and the argus math functions")

    def __init__(self, tracer, name, ttype: TileType, buffer: "Buffer" = None, h=None):
        super().__init__(tracer, name, h)
        self.ttype = ttype
        self.buffer = buffer  # the buffer a stage tile belongs to

    @property
    def shape(self): return self.ttype.shape

    @property
    def dtype(self): return self.ttype.dtype

    @property
    def space(self): return self.ttype.space

    @property
    def layout(self): return self.ttype.layout

    @property
    def type_str(self): return self.ttype.mlir()

    @property
    def tag_fields(self):
        """The tag fields this value carries as the verifier infers them
        (sorted), or None when they cannot be determined; while the kernel
        is being traced."""
        return self._tr.b.tag_fields(self.h)

    # A Python number, a scalar parameter or (for integer tiles) a traced
    # index on the other side becomes a tile (argus.fill / argus.splat);
    # multiplying or dividing a float tile by a number is argus.scale.
    def _scales(self, o):
        return (isinstance(o, (int, float)) and not isinstance(o, bool) and
                self.dtype.startswith(("f", "bf")))

    def __add__(self, o): return _sugar["binary"]("add", self, o)
    def __radd__(self, o): return _sugar["binary"]("add", o, self)
    def __sub__(self, o): return _sugar["binary"]("sub", self, o)
    def __rsub__(self, o): return _sugar["binary"]("sub", o, self)
    def __mul__(self, o):
        if self._scales(o):
            return _sugar["scale"](self, o)
        return _sugar["binary"]("mul", self, o)
    def __rmul__(self, o):
        if self._scales(o):
            return _sugar["scale"](self, o)
        return _sugar["binary"]("mul", o, self)
    def __truediv__(self, o):
        if self._scales(o) and o != 0:
            try:
                factor = 1.0 / o
            except OverflowError:  # an int beyond an f64 (issue 54)
                raise _err(DTypeError, f"dividing a tile by {o!r}: the number does not fit "
                           "an f64", _user_loc(2), hint="divide by a number an f64 holds") \
                    from None
            return _sugar["scale"](self, factor)
        return _sugar["binary"]("div", self, o)
    def __rtruediv__(self, o): return _sugar["binary"]("div", o, self)
    def __neg__(self): return _sugar["unary"]("neg", self)
    def __abs__(self): return _sugar["unary"]("abs", self)

    # Comparisons give i1 mask tiles (argus.cmp); == and != are not traced
    # (use argus.eq / argus.ne; as Python truth values they raise). Masks
    # combine with & | ~.
    def __lt__(self, o): return _sugar["cmp"]("lt", self, o)
    def __le__(self, o): return _sugar["cmp"]("le", self, o)
    def __gt__(self, o): return _sugar["cmp"]("gt", self, o)
    def __ge__(self, o): return _sugar["cmp"]("ge", self, o)
    def __and__(self, o): return _sugar["logic"]("and", self, o)
    def __rand__(self, o): return _sugar["logic"]("and", o, self)
    def __or__(self, o): return _sugar["logic"]("or", self, o)
    def __ror__(self, o): return _sugar["logic"]("or", o, self)
    def __invert__(self): return _sugar["logic"]("not", self, None)

    def __repr__(self):
        return f"<tile {self.name} {self.ttype.mlir()}>"


class Buffer(Value):
    """A multi-stage shared-memory buffer; ``buf[i]`` selects a stage."""

    _what = "a shared-memory buffer"

    def _hint(self, what):
        if what in ("iter", "len"):
            return "its stages are buf[i] for i in range(buf.stages) (a Python int)"
        return "select a stage (buf[i]) and use the tile"

    def __init__(self, tracer, name, stages: int, tile: TileType, pyname: str):
        super().__init__(tracer, name)
        self.stages = stages
        self.tile = tile
        self.pyname = pyname

    @property
    def type_str(self):
        return f"!argus.buffer<{self.stages} x {self.tile.mlir()}>"

    def __getitem__(self, i) -> Tile:
        return _sugar["stage"](self, i)

    def __repr__(self):
        return f"<buffer {self.pyname} {self.type_str}>"


#===------------------------------------------------------------------------===#
# Helpers shared by the ops
#===------------------------------------------------------------------------===#


def _const(tr: _Tracer, v: int, loc: Optional[SourceLoc] = None) -> IndexValue:
    """The index constant ``v``, emitted once per block (and reused in nested ones)."""
    for scope in reversed(tr.const_scopes):
        if v in scope:
            return scope[v]
    val = IndexValue(tr, tr.fresh(f"c{v}" if v >= 0 else f"cm{-v}"))
    val.h = tr.b.constant_index(v, tr.loc(loc or _user_loc(3), val.name))
    tr.const_scopes[-1][v] = val
    return val


def _as_index(tr: _Tracer, x) -> Optional[IndexValue]:
    if isinstance(x, IndexValue):
        return x
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return _const(tr, x)
    return None


def _index_or_err(tr: _Tracer, x, what: str) -> IndexValue:
    v = _as_index(tr, x)
    if v is None:
        hint = ("indices are integers: use an int (// divides), or a constexpr parameter"
                if isinstance(x, float) else "an int, a traced index (block_id, a loop "
                "variable, an argus.index parameter) or arithmetic on them")
        raise _err(DTypeError if isinstance(x, float) else TraceError,
                   f"{what} must be an int or a traced index, got {x!r}", hint=hint)
    return v


_ARITH_SYM = {"addi": "+", "subi": "-", "muli": "*", "divui": "//", "remui": "%",
              "ceildivui": "cdiv", "minui": "minimum", "maxui": "maximum"}


def _arith(tr: _Tracer, op: str, a: IndexValue, b: IndexValue) -> IndexValue:
    v = IndexValue(tr, tr.fresh("i"))
    tr.op(f"arith.{op}", [a, b], ["index"], _user_loc(3), v)
    return v


def index_const(v: int) -> IndexValue:
    """The index constant ``v`` as a traced index (``arith.constant``, shared
    with the constants the DSL hoists). Where a Python int would fold away,
    it keeps a symbol: ``lambda m, d: (q0 + m, c0 + d)`` with
    ``c0 = index_const(0)`` writes the tag map ``(d0 + s0, d1 + s1)`` over
    ``[q0, c0]``, as a handwritten kernel may."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise _err(TraceError, f"index_const takes a Python int, got {v!r}")
    return _const(_current_tracer(), v, _user_loc(2))


def cdiv(a, b) -> IndexValue:
    """``ceil(a / b)`` of index values and ints (``arith.ceildivui``; two
    Python ints give an int)."""
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return -(-a // b)
    tr = a._tr if isinstance(a, IndexValue) else getattr(b, "_tr", None)
    if tr is None:
        raise _err(TraceError, f"cdiv takes traced indices or ints, got {a!r} and {b!r}")
    x = _index_or_err(tr, a, "cdiv's dividend")
    y = _index_or_err(tr, b, "cdiv's divisor")
    return _arith(tr, "ceildivui", x, y)


def _new_tile(tr: _Tracer, hint, ttype, buffer=None) -> Tile:
    return Tile(tr, tr.fresh(hint), ttype, buffer)


def _not_a_tile_hint(x) -> str:
    if isinstance(x, (list, tuple)) or type(x).__module__.startswith(("numpy", "torch")):
        return ("Python lists and arrays are not traced: a tile is made by argus.load(T.view(...)), "
                "argus.fill / argus.zeros, argus.iota or an op on tiles; host data is a "
                "kernel parameter")
    if isinstance(x, (int, float)):
        return "a number meets a tile in arithmetic (x + 1.0); as a tile it is argus.fill(v, shape, dtype, layout)"
    return "tiles come from argus.load, argus.view, argus.alloc(...)[i], argus.fill and the ops on tiles"


def _need_tile(x, what, loc, memory: Optional[bool] = None) -> Tile:
    if not isinstance(x, Tile):
        raise _err(TraceError, f"{what} must be a tile, got {x!r}", loc, hint=_not_a_tile_hint(x))
    if memory is True and not x.ttype.is_memory:
        raise _err(TraceError, f"{what} must be a global or shared tile, got a register tile", loc)
    if memory is False and x.ttype.is_memory:
        raise _err(TraceError, f"{what} must be a register tile, got a {x.space} tile", loc)
    return x
