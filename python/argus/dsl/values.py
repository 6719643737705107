"""The argus tile DSL: trace a Python function into argus IR.

A kernel is an ordinary Python function decorated with :func:`kernel`. Calling
``kernel.ir()`` runs the function once with *symbolic* arguments; every DSL
call appends one MLIR operation, with a ``loc("file.py":line:col)`` location
pointing at the user's source line, to the function being built. The text is
then parsed (and op-verified) through the ``_argus`` bindings, so MLIR errors
come back mapped to Python lines.

See docs/Python.md for the full reference.
"""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import math
import os
import re
import struct
import sys
import threading
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from .. import ir as _ir
from ..errors import (ArgusError, DTypeError, classify_ir_error, IRVerificationError, LayoutError, ShapeError,
                     TagFieldError, TraceError, UnknownInstructionError)

_brange = builtins.range  # `range` below is the traced loop
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


def _err(cls, msg: str, loc: Optional[SourceLoc] = None):
    loc = loc or _user_loc(2)
    return cls(msg, loc.file, loc.line, loc.col)


#===------------------------------------------------------------------------===#
# Element types and layouts
#===------------------------------------------------------------------------===#

_DTYPES = {
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
    "f32": "f32", "float32": "f32", "float": "f32",
    "f64": "f64", "float64": "f64",
    "i8": "i8", "int8": "i8", "i32": "i32", "int32": "i32",
    "i64": "i64", "int64": "i64",
    "f8E4M3FN": "f8E4M3FN", "f8E4M3FNUZ": "f8E4M3FNUZ",
}


def dtype_of(name: Any) -> str:
    key = getattr(name, "name", name) if not isinstance(name, str) else name
    if isinstance(key, str) and key in _DTYPES:
        return _DTYPES[key]
    raise _err(DTypeError, f"unknown element type {name!r} (known: f16, bf16, f32, "
               "f64, i8, i32, i64, f8E4M3FN, f8E4M3FNUZ)")


def _parse_layout_text(text: str) -> str:
    """Validate CuTe notation through the layout algebra; returns the text."""
    try:
        ext = _ir.extension()
    except ArgusError:
        return text
    try:
        ext.parse_layout(text)
    except ValueError as e:
        raise _err(LayoutError, f"bad layout '{text}': {e}") from None
    return text


class Layout:
    """A layout-algebra function in CuTe notation, e.g. ``"(128,32):(32,1)"``
    or ``"Sw<3,3,3> o (128,32):(32,1)"``."""

    def __init__(self, text: str):
        if isinstance(text, Layout):
            text = text.text
        if not isinstance(text, str):
            raise _err(LayoutError, f"a layout is CuTe notation text, got {text!r}")
        self.text = _parse_layout_text(text.strip())

    def mlir(self) -> str:
        return '"' + self.text + '"'

    def swizzle(self, b: int, m: int, s: int) -> "Layout":
        return Layout(f"Sw<{b},{m},{s}> o {self.text}")

    def __eq__(self, other):
        return isinstance(other, Layout) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"Layout({self.text!r})"


def layout(text: str) -> Layout:
    """A layout in CuTe notation."""
    return Layout(text)


def row_major(*shape: int) -> Layout:
    """``(d0,...,dn):(d1*...*dn,...,1)``."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    strides.reverse()
    return Layout(_tuple_text(shape) + ":" + _tuple_text(strides))


def col_major(*shape: int) -> Layout:
    strides, acc = [], 1
    for d in shape:
        strides.append(acc)
        acc *= d
    return Layout(_tuple_text(shape) + ":" + _tuple_text(strides))


def swizzle(b: int, m: int, s: int, base: Union[str, Layout]) -> Layout:
    """``Sw<b,m,s> o base``."""
    return Layout(base).swizzle(b, m, s)


def _tuple_text(xs: Sequence[int]) -> str:
    if len(xs) == 1:
        return str(xs[0])
    return "(" + ",".join(str(x) for x in xs) + ")"


class Frag:
    """The register layout of operand ``a``/``b``/``c`` of a matrix-core
    instruction over a warp grid: ``#argus.frag<"instr", a, warps = [2, 2]>``."""

    def __init__(self, instr: str, operand: str, warps: Sequence[int] = (1, 1)):
        self.instr = check_instruction(instr, _user_loc(2))
        if operand not in ("a", "b", "c"):
            raise _err(TraceError, f"fragment operand must be 'a', 'b' or 'c', got {operand!r}")
        self.operand = operand
        self.warps = tuple(int(w) for w in warps)

    def mlir(self) -> str:
        w = ", ".join(str(x) for x in self.warps)
        return f'#argus.frag<"{self.instr}", {self.operand}, warps = [{w}]>'

    def __eq__(self, other):
        return isinstance(other, Frag) and (self.instr, self.operand, self.warps) == (
            other.instr, other.operand, other.warps)

    def __hash__(self):
        return hash((self.instr, self.operand, self.warps))

    def __repr__(self):
        return f"frag({self.instr!r}, {self.operand!r}, warps={self.warps})"


def frag(instr: str, operand: str, warps: Sequence[int] = (1, 1)) -> Frag:
    return Frag(instr, operand, warps)


def instruction(name: str) -> Optional[dict]:
    """The descriptor of a matrix-core instruction (M, N, K, operand types,
    target), or None when unknown."""
    try:
        return _ir.extension().mma_instruction(name)
    except ArgusError:
        return None


def check_instruction(name: str, loc: Optional[SourceLoc] = None) -> str:
    if not isinstance(name, str):
        raise _err(UnknownInstructionError, f"instruction name must be a string, got {name!r}",
                   loc)
    try:
        ext = _ir.extension()
    except ArgusError:
        return name
    if ext.mma_instruction(name) is None:
        hint = ext.closest_mma_instruction(name)
        raise _err(UnknownInstructionError,
                   f"unknown matrix-core instruction '{name}'" +
                   (f" (did you mean '{hint}'?)" if hint else ""), loc)
    return name


def _as_layout(x) -> Union[Layout, Frag, None]:
    if x is None or isinstance(x, (Layout, Frag)):
        return x
    if isinstance(x, str):
        return Layout(x)
    raise _err(LayoutError, f"expected a layout (CuTe string, argus.layout or argus.frag), got {x!r}")


#===------------------------------------------------------------------------===#
# Types
#===------------------------------------------------------------------------===#


@dataclasses.dataclass(frozen=True)
class TileType:
    shape: Tuple[int, ...]
    dtype: str
    space: str  # global | shared | register
    layout: Union[Layout, Frag, None] = None

    def mlir(self) -> str:
        s = "x".join(str(d) for d in self.shape) + "x" + self.dtype
        s += ", " + self.space
        if self.layout is not None:
            s += ", " + self.layout.mlir()
        return f"!argus.tile<{s}>"

    @property
    def is_memory(self) -> bool:
        return self.space != "register"


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A kernel tensor parameter: dims are ints (static) or names (dynamic)."""
    shape: Tuple[Union[int, str], ...]
    dtype: str

    def mlir(self) -> str:
        dims = "x".join(str(d) if isinstance(d, int) else "?" for d in self.shape)
        return f"memref<{dims}x{self.dtype}>"


class Tensor:
    """Annotation of a tensor parameter: ``argus.Tensor[("M", "K"), "f16"]``
    (or ``argus.Tensor["M", "K", "f16"]``); int dims are static."""

    def __class_getitem__(cls, item) -> TensorSpec:
        if not isinstance(item, tuple) or len(item) < 2:
            raise TypeError("use argus.Tensor[(dims...), dtype]")
        if isinstance(item[0], (tuple, list)):
            shape, dt = tuple(item[0]), item[1]
        else:
            shape, dt = tuple(item[:-1]), item[-1]
        for d in shape:
            if not isinstance(d, (int, str)):
                raise TypeError(f"tensor dims are ints or names, got {d!r}")
        return TensorSpec(shape, dtype_of(dt))


class _IndexAnnotation:
    def __repr__(self):
        return "argus.index"


index = _IndexAnnotation()  # annotation of an index (integer) parameter

#===------------------------------------------------------------------------===#
# Affine expressions (for tag maps)
#===------------------------------------------------------------------------===#


class AffineExpr:
    def _bin(self, op, other, swap=False):
        o = _to_affine(other)
        if o is None:
            return NotImplemented
        lhs, rhs = (o, self) if swap else (self, o)
        return _affine_bin(op, lhs, rhs)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("floordiv", o)
    def __mod__(self, o): return self._bin("mod", o)
    def __neg__(self): return _affine_bin("*", self, AConst(-1))

    def dims(self) -> FrozenSet[int]:
        return frozenset()


class ADim(AffineExpr):
    def __init__(self, i): self.i = i
    def render(self, syms): return f"d{self.i}"
    def dims(self): return frozenset([self.i])


class AConst(AffineExpr):
    def __init__(self, v): self.v = int(v)
    def render(self, syms): return str(self.v)


class ASym(AffineExpr):
    def __init__(self, value: "IndexValue"): self.value = value

    def render(self, syms):
        name = self.value.name
        if name not in syms:
            syms[name] = len(syms)
        return f"s{syms[name]}"


class ABin(AffineExpr):
    def __init__(self, op, l, r): self.op, self.l, self.r = op, l, r

    def render(self, syms):
        return f"({self.l.render(syms)} {self.op} {self.r.render(syms)})"

    def dims(self):
        return self.l.dims() | self.r.dims()


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


class Value:
    def __init__(self, tracer: "_Tracer", name: str):
        self._tr = tracer
        self.name = name

    @property
    def type_str(self) -> str:
        raise NotImplementedError


class IndexValue(Value):
    """An ``index`` value (block ids, offsets, loop induction variables)."""

    type_str = "index"

    def _arith(self, op, other, swap=False):
        if isinstance(other, AffineExpr):
            return NotImplemented
        o = self._tr.as_index(other)
        if o is None:
            return NotImplemented
        a, b = (o, self) if swap else (self, o)
        return self._tr.arith(op, a, b)

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

    def __bool__(self):
        raise _err(TraceError, "a traced index has no Python truth value (use argus.range for "
                   "loops; Python `if` on traced values is not supported)")

    def __index__(self):
        raise _err(TraceError, "a traced index cannot be used as a Python int")

    def __repr__(self):
        return f"<index {self.name}>"

    # Ordering comparisons build a traced condition (for argus.assume);
    # == and != keep their Python meaning (values are hashable).
    def _cmp(self, pred, other):
        o = self._tr.as_index(other)
        if o is None:
            return NotImplemented
        loc = _user_loc(3)
        name = self._tr.fresh("ok")
        self._tr.emit(f"{name} = arith.cmpi {pred}, {self.name}, {o.name} : index", loc)
        return Condition(self._tr, name)

    def __lt__(self, o): return self._cmp("ult", o)
    def __le__(self, o): return self._cmp("ule", o)
    def __gt__(self, o): return self._cmp("ugt", o)
    def __ge__(self, o): return self._cmp("uge", o)

    def eq(self, o) -> "Condition":
        """``self == o`` as a traced condition (``==`` keeps its Python meaning)."""
        return self._cmp("eq", o)

    def ne(self, o) -> "Condition":
        """``self != o`` as a traced condition."""
        return self._cmp("ne", o)


class Condition(Value):
    """An ``i1`` condition on index values (``K >= 64``), combined with ``&``
    and ``|``; used by :func:`assume`."""

    type_str = "i1"

    def _logic(self, op, other):
        if not isinstance(other, Condition):
            return NotImplemented
        name = self._tr.fresh("ok")
        self._tr.emit(f"{name} = arith.{op} {self.name}, {other.name} : i1", _user_loc(3))
        return Condition(self._tr, name)

    def __and__(self, o): return self._logic("andi", o)
    def __or__(self, o): return self._logic("ori", o)

    def __bool__(self):
        raise _err(TraceError, "a traced condition has no Python truth value: pass it to "
                   "argus.assume")


class TensorValue(Value):
    """A tensor kernel parameter (a memref)."""

    def __init__(self, tracer, name, spec: TensorSpec, pyname: str):
        super().__init__(tracer, name)
        self.spec = spec
        self.pyname = pyname

    @property
    def shape(self):
        return self.spec.shape

    @property
    def dtype(self):
        return self.spec.dtype

    @property
    def type_str(self):
        return self.spec.mlir()

    def view(self, offsets, shape, name=None) -> "Tile":
        return view(self, offsets, shape, name=name)

    def dim(self, k) -> IndexValue:
        """The size of dimension ``k`` (an int, or the dim's name in the
        annotation) as a traced index (``memref.dim``): static dims are
        constants; for the verifier a dynamic one is the parameter
        ``argN.dimK``."""
        loc = _user_loc(2)
        if isinstance(k, str):
            if k not in self.shape:
                raise _err(TraceError, f"tensor {self.pyname} has no dim named {k!r} "
                           f"(its dims: {self.shape})", loc)
            k = self.shape.index(k)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(self.shape):
            raise _err(TraceError, f"tensor {self.pyname} has no dim {k!r}", loc)
        return self._dim(k, loc)

    def _dim(self, k: int, loc) -> IndexValue:
        if isinstance(self.shape[k], int):
            return self._tr.const(self.shape[k], loc)
        name = self._tr.fresh(f"{self.pyname}_dim{k}")
        self._tr.emit(f"{name} = memref.dim {self.name}, {self._tr.const(k, loc).name} : "
                      f"{self.type_str}", loc)
        return IndexValue(self._tr, name)

    def __repr__(self):
        return f"<tensor {self.pyname} {self.spec.mlir()}>"


TagInfo = Optional[Dict[str, FrozenSet[int]]]  # field -> dims it depends on; None: unknown


class Tile(Value):
    """A tile value: shape, element type, memory space and layout."""

    def __init__(self, tracer, name, ttype: TileType, tags: TagInfo = None,
                 site=None, buffer: "Buffer" = None):
        super().__init__(tracer, name)
        self.ttype = ttype
        self._tags = tags
        self.site = site  # (op name, {operand name: Value}) of the defining op
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
    def tags(self) -> TagInfo:
        if self.buffer is not None:
            return self.buffer.tags
        return self._tags

    @property
    def tag_fields(self):
        t = self.tags
        return None if t is None else sorted(t)

    def __add__(self, o): return _binary("add", self, o)
    def __sub__(self, o): return _binary("sub", self, o)
    def __mul__(self, o):
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            return scale(self, o)
        return _binary("mul", self, o)
    def __rmul__(self, o):
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            return scale(self, o)
        return NotImplemented
    def __truediv__(self, o):
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            return scale(self, 1.0 / o)
        return _binary("div", self, o)
    def __neg__(self): return _unary("neg", self)

    def __bool__(self):
        raise _err(TraceError, "a traced tile has no Python truth value")

    def __repr__(self):
        return f"<tile {self.name} {self.ttype.mlir()}>"


class Buffer(Value):
    """A multi-stage shared-memory buffer; ``buf[i]`` selects a stage."""

    def __init__(self, tracer, name, stages: int, tile: TileType, pyname: str):
        super().__init__(tracer, name)
        self.stages = stages
        self.tile = tile
        self.pyname = pyname
        self.tags: TagInfo = None

    @property
    def type_str(self):
        return f"!argus.buffer<{self.stages} x {self.tile.mlir()}>"

    def __getitem__(self, i) -> Tile:
        return stage(self, i)

    def __repr__(self):
        return f"<buffer {self.pyname} {self.type_str}>"


#===------------------------------------------------------------------------===#
# The tracer
#===------------------------------------------------------------------------===#

_state = threading.local()


def _tracer() -> "_Tracer":
    tr = getattr(_state, "tracer", None)
    if tr is None:
        raise _err(TraceError, "argus DSL operations can only be used inside an "
                   "@argus.kernel function while it is traced")
    return tr


_OPERANDS = {
    "argus.mma": ("a", "b", "acc"),
    "argus.add": ("lhs", "rhs"), "argus.sub": ("lhs", "rhs"), "argus.mul": ("lhs", "rhs"),
    "argus.div": ("lhs", "rhs"), "argus.max": ("lhs", "rhs"),
    "argus.store": ("value", "dest"),
    "argus.copy": ("source", "dest"), "argus.copy_async": ("source", "dest"),
    "argus.load": ("source",),
}


class _Tracer:
    def __init__(self, target: str, block: Tuple[int, ...]):
        self.target = target
        self.block = block
        self.counter = 0
        self.names: Dict[str, int] = {}
        self.blocks: List[List[str]] = [[]]
        self.const_scopes: List[Dict[int, IndexValue]] = [{}]
        self.region_stack: List[Tuple[int, str]] = []
        self.region_ids: Dict[int, str] = {}
        self.next_region_id = 1
        self.last_site = None
        self.block_ids: Dict[str, IndexValue] = {}

    # -- names and emission ------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "v"
        if hint[0].isdigit():
            hint = "v" + hint
        n = self.names.get(hint, 0)
        self.names[hint] = n + 1
        return f"%{hint}" if n == 0 else f"%{hint}_{n}"

    def emit(self, text: str, loc: SourceLoc):
        self.blocks[-1].append(f"{text} {loc.mlir()}")

    def push_block(self):
        self.blocks.append([])
        self.const_scopes.append({})

    def pop_block(self) -> List[str]:
        self.const_scopes.pop()
        return self.blocks.pop()

    # -- index arithmetic ---------------------------------------------------
    def const(self, v: int, loc: Optional[SourceLoc] = None) -> IndexValue:
        for scope in reversed(self.const_scopes):
            if v in scope:
                return scope[v]
        name = self.fresh(f"c{v}" if v >= 0 else f"cm{-v}")
        self.emit(f"{name} = arith.constant {v} : index", loc or _user_loc(3))
        val = IndexValue(self, name)
        self.const_scopes[-1][v] = val
        return val

    def as_index(self, x) -> Optional[IndexValue]:
        if isinstance(x, IndexValue):
            return x
        if isinstance(x, bool):
            return None
        if isinstance(x, int):
            return self.const(x)
        return None

    def index_or_err(self, x, what: str) -> IndexValue:
        v = self.as_index(x)
        if v is None:
            raise _err(TraceError, f"{what} must be an int or a traced index, got {x!r}")
        return v

    def arith(self, op: str, a: IndexValue, b: IndexValue) -> IndexValue:
        loc = _user_loc(3)
        name = self.fresh("i")
        self.emit(f"{name} = arith.{op} {a.name}, {b.name} : index", loc)
        return IndexValue(self, name)

    def new_tile(self, hint, ttype, tags=None, site=None, buffer=None) -> Tile:
        return Tile(self, self.fresh(hint), ttype, tags, site, buffer)


#===------------------------------------------------------------------------===#
# DSL operations
#===------------------------------------------------------------------------===#


def block_id(dim: str = "x") -> IndexValue:
    """``gpu.block_id x|y|z``."""
    tr = _tracer()
    if dim not in ("x", "y", "z"):
        raise _err(TraceError, f"block_id dimension must be 'x', 'y' or 'z', got {dim!r}")
    if dim in tr.block_ids and len(tr.blocks) == 1:
        return tr.block_ids[dim]
    name = tr.fresh(f"b{dim}")
    tr.emit(f"{name} = gpu.block_id {dim}", _user_loc(2))
    v = IndexValue(tr, name)
    if len(tr.blocks) == 1:
        tr.block_ids[dim] = v
    return v


def grid_dim(dim: str = "x") -> IndexValue:
    """``gpu.grid_dim x|y|z`` (blocks in the grid)."""
    tr = _tracer()
    if dim not in ("x", "y", "z"):
        raise _err(TraceError, f"grid_dim dimension must be 'x', 'y' or 'z', got {dim!r}")
    name = tr.fresh(f"g{dim}")
    tr.emit(f"{name} = gpu.grid_dim {dim}", _user_loc(2))
    return IndexValue(tr, name)


def thread_id(dim: str = "x") -> IndexValue:
    """``gpu.thread_id x|y|z``."""
    tr = _tracer()
    name = tr.fresh(f"t{dim}")
    tr.emit(f"{name} = gpu.thread_id {dim}", _user_loc(2))
    return IndexValue(tr, name)


def _shape(shape, what="shape") -> Tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    try:
        shape = tuple(int(d) for d in shape)
    except Exception:
        raise _err(ShapeError, f"{what} must be a tuple of ints, got {shape!r}") from None
    if not shape or any(d <= 0 for d in shape):
        raise _err(ShapeError, f"{what} must be non-empty with positive dims, got {shape}")
    return shape


def view(tensor: TensorValue, offsets, shape, name: Optional[str] = None) -> Tile:
    """The global tile of ``tensor`` of ``shape`` whose first element is at
    ``offsets``: ``argus.view``."""
    tr = _tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue):
        raise _err(TraceError, f"argus.view expects a tensor parameter, got {tensor!r}", loc)
    shape = _shape(shape, "view shape")
    offsets = tuple(offsets) if isinstance(offsets, (tuple, list)) else (offsets,)
    if len(offsets) != len(tensor.shape) or len(shape) != len(tensor.shape):
        raise _err(ShapeError, f"tensor '{tensor.pyname}' has rank {len(tensor.shape)} but the "
                   f"view has {len(offsets)} offsets and shape {shape}", loc)
    for d, (t, s) in enumerate(zip(tensor.shape, shape)):
        if isinstance(t, int) and s > t:
            raise _err(ShapeError, f"view dim {d} is {s} but tensor '{tensor.pyname}' dim {d} "
                       f"is only {t}", loc)
    offs = [tr.index_or_err(o, "a view offset") for o in offsets]
    ttype = TileType(shape, tensor.dtype, "global")
    t = tr.new_tile("g" + tensor.pyname, ttype, tags={"tensor": frozenset()})
    nm = name or tensor.pyname
    tr.emit(f'{t.name} = argus.view "{nm}" {tensor.name}[{", ".join(o.name for o in offs)}] : '
            f"{tensor.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.view", {})
    tr.last_site = t.site
    return t


def gather_view(tensor: TensorValue, indices: Tile, col, shape, name: Optional[str] = None) -> Tile:
    """A global tile whose row ``r`` is row ``indices[r]`` of ``tensor``,
    columns ``[col, col + shape[1])`` (``argus.gather_view``)."""
    tr = _tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue) or len(tensor.shape) != 2:
        raise _err(TraceError, f"gather_view expects a 2-D tensor parameter, got {tensor!r}", loc)
    _need_tile(indices, "the gather indices", loc, memory=False)
    shape = _shape(shape, "gather shape")
    if len(shape) != 2 or indices.shape != (shape[0],):
        raise _err(ShapeError, f"gather_view: {_shs(indices.shape)} indices for a "
                   f"{_shs(shape)} tile (need {shape[0]} indices)", loc)
    if indices.dtype not in ("i32", "i64"):
        raise _err(DTypeError, f"gather indices must be i32 or i64, got {indices.dtype}", loc)
    c = tr.index_or_err(col, "the gather column")
    ttype = TileType(shape, tensor.dtype, "global")
    t = tr.new_tile("g" + tensor.pyname, ttype, tags={"tensor": frozenset()})
    tr.emit(f'{t.name} = argus.gather_view "{name or tensor.pyname}" {tensor.name}'
            f"[{indices.name}, {c.name}] : {tensor.type_str}, {indices.type_str} -> "
            f"{ttype.mlir()}", loc)
    t.site = ("argus.gather_view", {"indices": indices})
    tr.last_site = t.site
    return t


def alloc(shape, dtype, layout=None, stages: int = 1, name: str = "smem") -> Buffer:
    """A shared-memory buffer of ``stages`` tiles (``argus.alloc``); the
    layout defaults to row-major."""
    tr = _tracer()
    loc = _user_loc(2)
    shape = _shape(shape)
    dt = dtype_of(dtype)
    if not isinstance(stages, int) or isinstance(stages, bool) or stages < 1:
        raise _err(TraceError, f"stages must be a positive int, got {stages!r}", loc)
    lay = _as_layout(layout) if layout is not None else row_major(*shape)
    if isinstance(lay, Frag):
        raise _err(LayoutError, "a shared-memory buffer needs a memory layout, not a fragment", loc)
    ttype = TileType(shape, dt, "shared", lay)
    buf = Buffer(tr, tr.fresh(name), stages, ttype, name)
    tr.emit(f'{buf.name} = argus.alloc "{name}" : {buf.type_str}', loc)
    return buf


def stage(buf: Buffer, i) -> Tile:
    """Stage ``i`` of a buffer (``argus.stage``); ints are range-checked."""
    tr = _tracer()
    loc = _user_loc(2)
    if not isinstance(buf, Buffer):
        raise _err(TraceError, f"argus.stage expects a buffer, got {buf!r}", loc)
    if isinstance(i, int) and not isinstance(i, bool) and not 0 <= i < buf.stages:
        raise _err(ShapeError, f"stage {i} out of range: buffer '{buf.pyname}' has "
                   f"{buf.stages} stage(s)", loc)
    idx = tr.index_or_err(i, "a stage index")
    t = tr.new_tile(buf.pyname + "_s", buf.tile, buffer=buf)
    tr.emit(f"{t.name} = argus.stage {buf.name}[{idx.name}] : {buf.type_str}", loc)
    t.site = ("argus.stage", {})
    return t


def _need_tile(x, what, loc, memory: Optional[bool] = None) -> Tile:
    if not isinstance(x, Tile):
        raise _err(TraceError, f"{what} must be a tile, got {x!r}", loc)
    if memory is True and not x.ttype.is_memory:
        raise _err(TraceError, f"{what} must be a global or shared tile, got a register tile", loc)
    if memory is False and x.ttype.is_memory:
        raise _err(TraceError, f"{what} must be a register tile, got a {x.space} tile", loc)
    return x


def _same_elements(a: Tile, b: Tile, an: str, bn: str, loc):
    if a.shape != b.shape:
        raise _err(ShapeError, f"shape mismatch: {an} is {_shs(a.shape)} but {bn} is "
                   f"{_shs(b.shape)}", loc)
    if a.dtype != b.dtype:
        raise _err(DTypeError, f"element type mismatch: {an} is {a.dtype} but {bn} is "
                   f"{b.dtype}", loc)


def _shs(shape):
    return "x".join(str(d) for d in shape)


def _copy(kind: str, src: Tile, dst: Tile, threads, loc):
    tr = _tracer()
    _need_tile(src, f"the {kind} source", loc, memory=True)
    _need_tile(dst, f"the {kind} destination", loc, memory=True)
    _same_elements(src, dst, "the source", "the destination", loc)
    if kind == "copy_async" and not (src.space == "global" and dst.space == "shared"):
        raise _err(TraceError, "copy_async copies global to shared memory", loc)
    lay = _as_layout(threads)
    if not isinstance(lay, Layout):
        raise _err(LayoutError, f"the {kind} thread layout must be CuTe notation", loc)
    tr.emit(f"argus.{kind} {src.name}, {dst.name} threads {lay.mlir()} : "
            f"{src.type_str}, {dst.type_str}", loc)
    if dst.buffer is not None:
        st = src.tags
        prev = dst.buffer.tags
        dst.buffer.tags = st if prev is None else (
            None if st is None else {**prev, **st})
    else:
        dst._tags = src.tags
    tr.last_site = (f"argus.{kind}", {"source": src, "dest": dst})


def copy(src: Tile, dst: Tile, threads) -> None:
    """Collective copy between memory tiles; ``threads`` maps (thread, slot)
    to the linear logical coordinate each thread moves."""
    _copy("copy", src, dst, threads, _user_loc(2))


def copy_async(src: Tile, dst: Tile, threads) -> None:
    """Asynchronous global-to-shared copy (cp.async / buffer_load lds)."""
    _copy("copy_async", src, dst, threads, _user_loc(2))


def commit_group() -> None:
    tr = _tracer()
    tr.emit("argus.commit_group", _user_loc(2))
    tr.last_site = ("argus.commit_group", {})


def wait_group(pending: int) -> None:
    tr = _tracer()
    loc = _user_loc(2)
    if not isinstance(pending, int) or isinstance(pending, bool) or pending < 0:
        raise _err(TraceError, f"wait_group needs a non-negative int, got {pending!r}", loc)
    tr.emit(f"argus.wait_group {pending}", loc)
    tr.last_site = ("argus.wait_group", {})


def assume(cond: "Condition", message: str) -> None:
    """State a precondition of every launch (``argus.assume(K >= 64, "K >= 32 (S - 1)")``):
    the verifier proves the kernel under it and the compiled kernel traps when
    it does not hold. Must be called at the top level of the kernel body."""
    tr = _tracer()
    if not isinstance(cond, Condition):
        raise _err(TraceError, "argus.assume takes a comparison of index values "
                   f"(for example K >= 64), got {type(cond).__name__}")
    if len(tr.blocks) != 1:
        raise _err(TraceError, "argus.assume states a kernel precondition: call it at the "
                   "top level of the kernel, not inside a loop")
    msg = str(message).replace("\\", "\\\\").replace('"', '\\"')
    tr.emit(f'argus.assume {cond.name}, "{msg}"', _user_loc(2))


def barrier() -> None:
    tr = _tracer()
    tr.emit("argus.barrier", _user_loc(2))
    tr.last_site = ("argus.barrier", {})


def load(src: Tile, layout) -> Tile:
    """Read a memory tile into registers with a register layout (usually
    ``argus.frag(...)``)."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(src, "the load source", loc, memory=True)
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout (layout=argus.frag(...))", loc)
    ttype = TileType(src.shape, src.dtype, "register", lay)
    t = tr.new_tile("r", ttype, tags=src.tags)
    tr.emit(f"{t.name} = argus.load {src.name} : {src.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.load", {"source": src})
    tr.last_site = t.site
    return t


def store(value: Tile, dest: Tile) -> None:
    """Write a register tile to a memory tile."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(value, "the stored value", loc, memory=False)
    _need_tile(dest, "the store destination", loc, memory=True)
    _same_elements(value, dest, "the value", "the destination", loc)
    tr.emit(f"argus.store {value.name}, {dest.name} : {value.type_str}, {dest.type_str}", loc)
    tr.last_site = ("argus.store", {"value": value, "dest": dest})


def transpose(x: Tile, layout=None) -> Tile:
    """A 2-D memory tile viewed with its dimensions swapped. The result
    layout is derived for plain ``(a,b):(c,d)`` layouts, else give it."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(x, "the transposed tile", loc, memory=True)
    if len(x.shape) != 2:
        raise _err(ShapeError, f"transpose needs a 2-D tile, got {_shs(x.shape)}", loc)
    lay = _as_layout(layout)
    if lay is None:
        m = re.fullmatch(r"\((\d+),(\d+)\):\((\d+),(\d+)\)",
                         (x.layout.text if isinstance(x.layout, Layout) else "").replace(" ", ""))
        if x.layout is None:
            lay = None
        elif m:
            a, b, c, d = m.groups()
            lay = Layout(f"({b},{a}):({d},{c})")
        else:
            raise _err(LayoutError, f"cannot derive the transposed layout of '{x.layout.text}'; "
                       "pass layout=", loc)
    ttype = TileType((x.shape[1], x.shape[0]), x.dtype, x.space, lay)
    tags = None if x.tags is None else {
        f: frozenset({1 - d for d in ds}) for f, ds in x.tags.items()}
    t = tr.new_tile("tr", ttype, tags=tags)
    tr.emit(f"{t.name} = argus.transpose {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.transpose", {"input": x})
    tr.last_site = t.site
    return t


def reinterpret(x: Tile, layout) -> Tile:
    """The same memory through another layout."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(x, "the reinterpreted tile", loc, memory=True)
    ttype = TileType(x.shape, x.dtype, x.space, _as_layout(layout))
    t = tr.new_tile("ri", ttype, tags=x.tags, buffer=x.buffer)
    tr.emit(f"{t.name} = argus.reinterpret {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.reinterpret", {"input": x})
    tr.last_site = t.site
    return t


def _target_family(t: str) -> str:
    return "gfx942" if t.startswith("gfx") else "sm_90a"


def mma(instr: str, a: Tile, b: Tile, acc: Tile) -> Tile:
    """``acc + a @ b`` with the named matrix-core instruction."""
    tr = _tracer()
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
    t = tr.new_tile("acc", acc.ttype, tags=acc.tags)
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
    tr = _tracer()
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
    t = tr.new_tile(op, a.ttype, tags=_union_tags(a.tags, b.tags))
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
    tr = _tracer()
    loc = _user_loc(3)
    _need_tile(x, f"the {op} input", loc, memory=False)
    t = tr.new_tile(op, x.ttype, tags=x.tags)
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
    tr = _tracer()
    loc = _user_loc()
    _need_tile(x, "the scaled tile", loc, memory=False)
    t = tr.new_tile("scaled", x.ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.scale {x.name} by {_f64(factor)} : {x.type_str}", loc)
    t.site = ("argus.scale", {"input": x})
    tr.last_site = t.site
    return t


def fill(value: float, shape, dtype, layout) -> Tile:
    """A register tile with every element equal to ``value``."""
    tr = _tracer()
    loc = _user_loc(2)
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout", loc)
    ttype = TileType(_shape(shape), dtype_of(dtype), "register", lay)
    t = tr.new_tile("fill", ttype, tags={})
    tr.emit(f"{t.name} = argus.fill {_f64(value)} : {ttype.mlir()}", loc)
    t.site = ("argus.fill", {})
    tr.last_site = t.site
    return t


def zeros(shape, dtype, layout) -> Tile:
    return fill(0.0, shape, dtype, layout)


def convert(x: Tile, dtype) -> Tile:
    """Convert the element type, keeping shape and layout."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(x, "the converted tile", loc, memory=False)
    ttype = TileType(x.shape, dtype_of(dtype), "register", x.layout)
    t = tr.new_tile("cvt", ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.convert {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.convert", {"input": x})
    tr.last_site = t.site
    return t


def convert_layout(x: Tile, layout) -> Tile:
    """Redistribute a register tile to another register layout."""
    tr = _tracer()
    loc = _user_loc(2)
    _need_tile(x, "the input", loc, memory=False)
    ttype = TileType(x.shape, x.dtype, "register", _as_layout(layout))
    t = tr.new_tile("cl", ttype, tags=x.tags)
    tr.emit(f"{t.name} = argus.convert_layout {x.name} : {x.type_str} -> {ttype.mlir()}", loc)
    t.site = ("argus.convert_layout", {"input": x})
    tr.last_site = t.site
    return t


def reduce(x: Tile, kind: str, dim: int, layout) -> Tile:
    """Reduce a register tile along ``dim`` (``kind``: sum, max, min); the
    result's register ``layout`` must be given."""
    tr = _tracer()
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
    t = tr.new_tile("red", ttype, tags=tags)
    tr.emit(f"{t.name} = argus.reduce {kind} {x.name} dim {dim} : {x.type_str} -> "
            f"{ttype.mlir()}", loc)
    t.site = ("argus.reduce", {"input": x})
    tr.last_site = t.site
    return t


def broadcast(x: Tile, dim: int, like: Tile = None, shape=None, layout=None) -> Tile:
    """Broadcast a register tile along a new dimension ``dim``; the result
    type is ``like``'s type (or ``shape`` + ``layout``)."""
    tr = _tracer()
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
    t = tr.new_tile("bc", ttype, tags=tags)
    tr.emit(f"{t.name} = argus.broadcast {x.name} dim {dim} : {x.type_str} -> {ttype.mlir()}",
            loc)
    t.site = ("argus.broadcast", {"input": x})
    tr.last_site = t.site
    return t


#===------------------------------------------------------------------------===#
# Tags
#===------------------------------------------------------------------------===#


def tag(x: Tile, fn: Callable, fields: Optional[Sequence[str]] = None) -> Tile:
    """Attach tags: ``fn`` receives the element's logical coordinate (one
    symbolic dim per tile dimension) and returns the field values, built
    from the coordinate, traced indices (block offsets, loop variables) and
    integer constants. The fields are named by ``fn``'s parameters, by
    ``fields``, or by the keys of a returned dict::

        a = argus.tag(a, lambda m, k: (m0 + m, k0 + k))       # fields m, k
        r = argus.tag(r, lambda i: {"m": q0 + i})
    """
    tr = _tracer()
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
    out = fn(*[ADim(i) for i in _brange(rank)])
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
        if not isinstance(n, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n):
            raise _err(TagFieldError, f"bad tag field name {n!r}", loc)
        if n == "tensor":
            raise _err(TagFieldError, "tag field name 'tensor' is reserved: every element of "
                       "a global view carries it (the viewed tensor's argument number)", loc)
    if len(set(names)) != len(names):
        raise _err(TagFieldError, f"duplicate tag field names {names}", loc)
    affs = []
    for n, e in zip(names, exprs):
        a = _to_affine(e)
        if a is None:
            raise _err(TraceError, f"tag field '{n}' is not an affine expression of the "
                       f"coordinate and traced indices: {e!r}", loc)
        affs.append(a)
    syms: Dict[str, int] = {}
    rendered = [a.render(syms) for a in affs]
    dims = ", ".join(f"d{i}" for i in _brange(rank))
    sym_list = ", ".join(f"s{i}" for i in _brange(len(syms)))
    amap = f"affine_map<({dims})" + (f"[{sym_list}]" if syms else "") + \
        f" -> ({', '.join(rendered)})>"
    sym_names = sorted(syms, key=lambda k: syms[k])
    field_list = ", ".join(f'"{n}"' for n in names)
    new_tags = {n: a.dims() for n, a in zip(names, affs)}
    base = x.tags
    tags = None if base is None else {**base, **new_tags}
    t = tr.new_tile(x.name.lstrip("%") + "_t", x.ttype, tags=tags)
    tr.emit(f"{t.name} = argus.tag {x.name} [{', '.join(sym_names)}] [{field_list}] = {amap} : "
            f"{x.type_str}", loc)
    t.site = ("argus.tag", {"input": x})
    tr.last_site = t.site
    return t


_REF = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)")


def tag_assert(*args) -> None:
    """``tag_assert(x, "a.k == b.k")`` checks the predicate at the op that
    defined ``x``; ``tag_assert("value.m == dest.m")`` at the op just
    before (e.g. a store). Operands are named as in the op (a, b, acc, lhs,
    rhs, value, dest, source, input) plus ``result``."""
    tr = _tracer()
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
    site = subject.site if subject is not None else tr.last_site
    if site is not None:
        op, operands = site
        names = dict(operands)
        if subject is not None:
            names["result"] = subject
        expected = _OPERANDS.get(op)
        for ref in _REF.finditer(pred):
            opnd, field = ref.group(1), ref.group(2)
            if opnd not in names:
                if expected is None and op not in ("argus.view", "argus.fill"):
                    continue
                known = ", ".join(list(expected or ()) + (["result"] if subject is not None else []))
                raise _err(TagFieldError, f"tag assertion refers to '{opnd}.{field}' but {op} has "
                           f"no operand '{opnd}' (operands: {known or 'none'})", loc)
            tags = names[opnd].tags if isinstance(names[opnd], Tile) else None
            if tags is not None and field not in tags:
                raise _err(TagFieldError, f"unknown tag field '{field}' of operand '{opnd}' of "
                           f"{op} (its tag fields: {', '.join(sorted(tags)) or 'none'})", loc)
    esc = pred.replace("\\", "\\\\").replace('"', '\\"')
    if subject is not None:
        tr.emit(f'argus.tag_assert {subject.name}, "{esc}" : {subject.type_str}', loc)
    else:
        tr.emit(f'argus.tag_assert "{esc}"', loc)


#===------------------------------------------------------------------------===#
# Regions and loops
#===------------------------------------------------------------------------===#


class region:
    """``with argus.region("mainloop"):`` brackets ops with region markers.
    IDs are assigned 1, 2, ... in order of appearance unless ``id`` is
    given; they are unique within a kernel."""

    def __init__(self, name: str, id: Optional[int] = None):
        self.name = name
        self.id = id
        self._loc = _user_loc(2)

    def __enter__(self):
        tr = _tracer()
        if self.id is None:
            while tr.next_region_id in tr.region_ids:
                tr.next_region_id += 1
            self.id = tr.next_region_id
        if not isinstance(self.id, int) or self.id < 0:
            raise _err(TraceError, f"region id must be a non-negative int, got {self.id!r}",
                       self._loc)
        if self.id in tr.region_ids:
            raise _err(TraceError, f"region id {self.id} is already used by region "
                       f"'{tr.region_ids[self.id]}'", self._loc)
        tr.region_ids[self.id] = self.name
        esc = self.name.replace('"', '\\"')
        tr.emit(f'argus.region.begin "{esc}" id {self.id}', self._loc)
        tr.region_stack.append((self.id, self.name))
        self._depth = len(tr.blocks)
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            return False
        tr = _tracer()
        tr.region_stack.pop()
        tr.emit(f"argus.region.end id {self.id}", _user_loc(2))
        return False


class range:  # noqa: A001 - mirrors the builtin on purpose
    """A traced ``scf.for`` loop. Without carried values::

        for i in argus.range(0, n):
            ...

    With loop-carried values (a value or a tuple), set the next values with
    ``loop.carry(...)`` and read the results after the loop::

        loop = argus.range(0, ktiles, carry=acc)
        for kt, acc in loop:
            acc = argus.mma(..., acc)
            loop.carry(acc)
        acc = loop.results
    """

    def __init__(self, lo, hi=None, step=1, carry=None, name: str = "i"):
        if hi is None:
            lo, hi = 0, lo
        self._loc = _user_loc(2)
        # scf.for needs a positive step: with 0 the loop would never end (the
        # lowering drops it), with a negative one it never runs.
        if isinstance(step, bool) or (isinstance(step, int) and step <= 0):
            raise _err(TraceError, f"argus.range step must be a positive integer, got "
                       f"{step!r}", self._loc)
        self.lo, self.hi, self.step = lo, hi, step
        self._single = carry is not None and not isinstance(carry, (tuple, list))
        self.init = () if carry is None else ((carry,) if self._single else tuple(carry))
        self.iv_name = name
        self._next = None
        self.results = None
        self._used = False

    def carry(self, *values) -> None:
        loc = _user_loc(2)
        if len(values) == 1 and isinstance(values[0], (tuple, list)):
            values = tuple(values[0])
        if len(values) != len(self.init):
            raise _err(TraceError, f"the loop carries {len(self.init)} value(s) but carry() got "
                       f"{len(values)}", loc)
        for i, (v, a) in enumerate(zip(values, self._args)):
            if not isinstance(v, Value) or v.type_str != a.type_str:
                raise _err(TraceError, f"loop-carried value {i} changes type: "
                           f"{a.type_str} -> {getattr(v, 'type_str', repr(v))}", loc)
        self._next = values

    def __iter__(self):
        if self._used:
            raise _err(TraceError, "an argus.range object can be iterated only once", self._loc)
        self._used = True
        tr = _tracer()
        lo = tr.index_or_err(self.lo, "the loop lower bound")
        hi = tr.index_or_err(self.hi, "the loop upper bound")
        st = tr.index_or_err(self.step, "the loop step")
        for i, v in enumerate(self.init):
            if not isinstance(v, (Tile, IndexValue)):
                raise _err(TraceError, f"loop-carried value {i} must be a tile or index, got "
                           f"{v!r}", self._loc)
        iv = IndexValue(tr, tr.fresh(self.iv_name))
        self._args = []
        for v in self.init:
            if isinstance(v, Tile):
                a = Tile(tr, tr.fresh(v.name.lstrip("%") + "_i"), v.ttype, v.tags)
                a.site = None
            else:
                a = IndexValue(tr, tr.fresh("ia"))
            self._args.append(a)
        tr.push_block()
        saved_site = tr.last_site
        if self._single:
            yield iv, self._args[0]
        elif self.init:
            yield iv, tuple(self._args)
        else:
            yield iv
        # The body is traced; close the loop.
        if self.init and self._next is None:
            raise _err(TraceError, "the loop carries values but the body never called "
                       "loop.carry(...)", self._loc)
        types = [a.type_str for a in self._args]
        if self.init:
            tr.emit(f"scf.yield {', '.join(v.name for v in self._next)} : {', '.join(types)}",
                    self._loc)
        body = tr.pop_block()
        header = ""
        results = []
        if self.init:
            rname = tr.fresh("loop")
            n = len(self.init)
            header = f"{rname}:{n} = " if n > 1 else f"{rname} = "
            for i, (a, nv) in enumerate(zip(self._args, self._next)):
                nm = f"{rname}#{i}" if n > 1 else rname
                if isinstance(a, Tile):
                    results.append(Tile(tr, nm, a.ttype, nv.tags))
                else:
                    results.append(IndexValue(tr, nm))
        ia = ""
        if self.init:
            ia = " iter_args(" + ", ".join(f"{a.name} = {v.name}" for a, v in
                                         zip(self._args, self.init)) + \
                f") -> ({', '.join(types)})"
        lines = [f"{header}scf.for {iv.name} = {lo.name} to {hi.name} step {st.name}{ia} {{"]
        lines += ["  " + l for l in body]
        tr.blocks[-1].extend(lines)
        tr.blocks[-1].append(f"}} {self._loc.mlir()}")
        tr.last_site = saved_site
        self.results = (results[0] if self._single else tuple(results)) if self.init else None


#===------------------------------------------------------------------------===#
# Kernels
#===------------------------------------------------------------------------===#

_TARGETS = ("gfx942", "sm_90a", "sm_90")


@dataclasses.dataclass
class Diagnostic:
    """A diagnostic (same fields as ``_argus.Diagnostic``)."""
    severity: str
    file: str
    line: int
    col: int
    location: str
    message: str
    notes: list

    def __str__(self):
        s = (f"{self.file}:{self.line}:{self.col}: " if self.file else "") + \
            f"{self.severity}: {self.message}"
        for n in self.notes:
            s += "\n  " + str(n).replace("\n", "\n  ")
        return s


_LOC_RE = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)')


def _map_generated(d, buf: str, src: str) -> Diagnostic:
    notes = [_map_generated(n, buf, src) for n in getattr(d, "notes", [])]
    file, line, col = d.file, d.line, d.col
    if file == buf and line > 0:
        lines = src.splitlines()
        for l in lines[line - 1:]:
            m = _LOC_RE.findall(l)
            if m:
                f, ln, c = m[-1]
                file, line, col = f.replace('\\"', '"').replace("\\\\", "\\"), int(ln), int(c)
                break
    return Diagnostic(d.severity, file, line, col, f"{file}:{line}:{col}", d.message, notes)


class Kernel:
    """A traced kernel: ``ir()``, ``verify()``, ``compile()``, ``run()``."""

    def __init__(self, fn: Callable, target: str, block, name: Optional[str] = None):
        self.fn = fn
        self.name = name or fn.__name__
        if target not in _TARGETS:
            raise ArgusError(f"unknown target {target!r} (known: {', '.join(_TARGETS)})")
        self.target = target
        self.block = (block,) if isinstance(block, int) else tuple(block)
        self._source = None
        self._module = None
        self.params: List[Tuple[str, Any]] = []
        self.region_names: Dict[int, str] = {}

    # -- tracing --------------------------------------------------------------
    def _trace(self) -> str:
        sig = inspect.signature(self.fn)
        code = self.fn.__code__
        def_loc = SourceLoc(code.co_filename, code.co_firstlineno, 1)
        tr = _Tracer(self.target, self.block)
        args, decls = [], []
        self.params = []
        for p in sig.parameters.values():
            ann = p.annotation
            if isinstance(ann, str):  # from __future__ import annotations
                try:
                    ann = eval(ann, self.fn.__globals__)
                except Exception as e:
                    raise ArgusError(f"cannot evaluate the annotation of '{p.name}': {e}",
                                     def_loc.file, def_loc.line)
            nm = tr.fresh(p.name)
            if isinstance(ann, TensorSpec):
                args.append(TensorValue(tr, nm, ann, p.name))
                decls.append(f"{nm}: {ann.mlir()} {def_loc.mlir()}")
            elif ann is index or ann is int:
                args.append(IndexValue(tr, nm))
                decls.append(f"{nm}: index {def_loc.mlir()}")
            else:
                raise ArgusError(f"kernel parameter '{p.name}' needs an annotation: "
                                 "argus.Tensor[(dims...), dtype] or argus.index",
                                 def_loc.file, def_loc.line)
            self.params.append((p.name, ann))
        prev = getattr(_state, "tracer", None)
        _state.tracer = tr
        try:
            _shape_relations(tr, [p for p, _ in self.params], args, def_loc)
            self.fn(*args)
        finally:
            _state.tracer = prev
        if tr.region_stack:
            raise ArgusError(f"region '{tr.region_stack[-1][1]}' is still open at the end of the "
                             "kernel", def_loc.file, def_loc.line)
        if len(tr.blocks) != 1:
            raise ArgusError("a loop body was left open (break out of argus.range?)",
                             def_loc.file, def_loc.line)
        self.region_names = dict(tr.region_ids)
        block = ", ".join(str(b) for b in self.block)
        lines = ["module {",
                 f"  func.func @{self.name}({', '.join(decls)}) attributes "
                 f'{{argus.kernel = #argus.kernel<block = [{block}], target = "{self.target}">}} {{']
        lines += ["    " + l for l in tr.blocks[0]]
        lines.append(f"    return {def_loc.mlir()}")
        lines.append(f"  }} {def_loc.mlir()}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def source(self) -> str:
        """The generated IR text with Python source locations."""
        if self._source is None:
            self._source = self._trace()
        return self._source

    def module(self) -> _ir.Module:
        """The parsed, op-verified module (errors map to Python lines)."""
        if self._module is None:
            src = self.source()
            buf = f"<argus-generated:{self.name}>"
            try:
                self._module = _ir.parse(src, buf, error_class=IRVerificationError)
            except IRVerificationError as e:
                # Errors found while parsing point into the generated text:
                # map them to the Python line of the op on that line.
                diags = [_map_generated(d, buf, src) for d in e.diagnostics]
                raise classify_ir_error(diags)(f"kernel '{self.name}' is not valid argus IR", diags,
                                          src) from None
        return self._module

    def ir(self, debug_info: bool = False) -> str:
        """The kernel's IR as MLIR prints it (with locations if asked)."""
        return self.module().text(debug_info=debug_info)

    def verify(self, raise_on_violation: bool = True, strict: bool = False, **options):
        """Run the tag verifier (argus-verify-tags). Returns a
        VerificationResult; raises InvariantViolation on a violation and,
        with ``strict=True``, VerificationUnknown when nothing is violated
        but some check is unknown."""
        from ..verify import verify_kernel
        return verify_kernel(self, raise_on_violation=raise_on_violation, strict=strict,
                             **options)

    def compile(self, target: Optional[str] = None, **options):
        """Lower to PTX (sm_90a) or gfx942 assembly: a CompiledKernel."""
        from ..compile import compile_kernel
        return compile_kernel(self, target=target, **options)

    def run(self, *arrays, **options):
        """Run on a GPU through argus-run (raises NoGPU without one)."""
        from ..compile import run_kernel
        return run_kernel(self, *arrays, **options)

    def __call__(self, *a, **k):
        raise TraceError("an argus kernel is not called directly: use .ir(), .verify(), "
                         ".compile() or .run(arrays...)")

    def __repr__(self):
        return f"<argus.Kernel {self.name} target={self.target} block={self.block}>"


def _shape_relations(tr: _Tracer, pynames: List[str], args: List[Value],
                     loc: SourceLoc) -> None:
    """The relations the annotations state, as ``argus.assume``: dims with the
    same name are equal across tensors, and a dim named like an
    ``argus.index`` parameter equals it (``Tensor[("M", "K"), ...]`` with a
    parameter ``K``). The verifier uses them and the kernel checks them at
    launch."""
    params = {p: a for p, a in zip(pynames, args) if isinstance(a, IndexValue)}
    first: Dict[str, list] = {}  # name -> [tensor, dim, its size value or None]
    for p, a in zip(pynames, args):
        if not isinstance(a, TensorValue):
            continue
        for k, d in enumerate(a.shape):
            if not isinstance(d, str):
                continue
            if d in params:
                other, what = params[d], f"the parameter {d}"
            elif d in first:
                f = first[d]
                if f[2] is None:
                    f[2] = f[0]._dim(f[1], loc)
                other, what = f[2], f"{f[0].pyname}.dim{f[1]}"
            else:
                first[d] = [a, k, None]
                continue
            size = a._dim(k, loc)
            ok = tr.fresh("shape_ok")
            tr.emit(f"{ok} = arith.cmpi eq, {size.name}, {other.name} : index", loc)
            msg = f"{p}.dim{k} ({d}) == {what}"
            tr.emit(f'argus.assume {ok}, "{msg}"', loc)


def kernel(fn=None, *, target: str = "gfx942", block=256, name: Optional[str] = None):
    """Decorator: ``@argus.kernel(target="gfx942", block=256)``."""
    def wrap(f):
        return Kernel(f, target, block, name)
    if fn is not None:
        return wrap(fn)
    return wrap
