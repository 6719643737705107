"""Element types, layouts and the types of traced values: dtypes
(``dtype_of``), :class:`Layout` in CuTe notation and its helpers (``layout``,
``row_major``, ``col_major``, ``swizzle``), matrix-core fragments
(:class:`Frag`, ``frag``, ``instruction``), :class:`TileType`, and the kernel
parameter annotations (``Tensor[...]`` giving a :class:`TensorSpec`,
``index``). Pure descriptions: nothing here emits IR.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence, Tuple, Union

from .. import ir as _ir
from ..errors import ArgusError, DTypeError, LayoutError, ShapeError, TraceError, UnknownInstructionError
from ._tracer import SourceLoc, _err, _user_loc

#===------------------------------------------------------------------------===#
# Element types and layouts
#===------------------------------------------------------------------------===#

_DTYPES = {
    "f16": "f16", "float16": "f16", "half": "f16",
    "bf16": "bf16", "bfloat16": "bf16",
    "f32": "f32", "float32": "f32", "float": "f32",
    "f64": "f64", "float64": "f64",
    "i8": "i8", "int8": "i8", "i32": "i32", "int32": "i32",
    "i64": "i64", "int64": "i64", "i1": "i1", "bool": "i1",
    "f8E4M3FN": "f8E4M3FN", "f8E4M3FNUZ": "f8E4M3FNUZ",
}


def dtype_of(name: Any) -> str:
    key = getattr(name, "name", name) if not isinstance(name, str) else name
    if isinstance(key, str) and key in _DTYPES:
        return _DTYPES[key]
    raise _err(DTypeError, f"unknown element type {name!r} (known: f16, bf16, f32, "
               "f64, i1, i8, i32, i64, f8E4M3FN, f8E4M3FNUZ)")


def is_float(dtype: str) -> bool:
    return dtype.startswith(("f", "bf"))


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
# Shapes
#===------------------------------------------------------------------------===#


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


def _shs(shape):
    """``128x32``: a shape as MLIR and the error messages write it."""
    return "x".join(str(d) for d in shape)


#===------------------------------------------------------------------------===#
# Tile and kernel parameter types
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
    """A kernel tensor parameter: dims are ints (static) or names (dynamic);
    ``access`` is its declared role ("in", "out", "inout"; "" undeclared),
    which the verifier's ``argument-access`` check holds the kernel to."""
    shape: Tuple[Union[int, str], ...]
    dtype: str
    access: str = ""

    def mlir(self) -> str:
        dims = "x".join(str(d) if isinstance(d, int) else "?" for d in self.shape)
        return f"memref<{dims}x{self.dtype}>"


class Tensor:
    """Annotation of a tensor parameter: ``argus.Tensor[("M", "K"), "f16"]``
    (or ``argus.Tensor["M", "K", "f16"]``); int dims are static. Its role is
    undeclared: ``argus.In``, ``argus.Out`` and ``argus.InOut`` take the same
    arguments and declare it."""

    _access = ""

    def __class_getitem__(cls, item) -> TensorSpec:
        if not isinstance(item, tuple) or len(item) < 2:
            raise _err(TraceError, f"bad tensor annotation argus.{cls.__name__}[{item!r}]",
                       hint=f'write argus.{cls.__name__}[(dims...), dtype], e.g. '
                       f'argus.{cls.__name__}[("M", "K"), "f16"]')
        if isinstance(item[0], (tuple, list)):
            shape, dt = tuple(item[0]), item[1]
        else:
            shape, dt = tuple(item[:-1]), item[-1]
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, (int, str)):
                raise _err(TraceError, f"tensor dims are ints or names, got {d!r}",
                           hint='a static dim is an int (64), a dynamic one a name ("M") or "?"')
        return TensorSpec(shape, dtype_of(dt), cls._access)


class In(Tensor):
    """A tensor the kernel only reads: ``argus.In[("M", "K"), "f16"]``. A
    kernel that may write it is violated (``argument-access``)."""
    _access = "in"


class Out(Tensor):
    """A tensor the kernel writes: ``argus.Out[("M", "N"), "f32"]``. A kernel
    that never writes it is violated (``argument-access``); that each element
    is written once is ``output-coverage``."""
    _access = "out"


class InOut(Tensor):
    """A tensor the kernel reads and may write (an accumulator, a buffer
    updated in place): ``argus.InOut[("M", "N"), "f32"]``."""
    _access = "inout"


class _IndexAnnotation:
    def __repr__(self):
        return "argus.index"


index = _IndexAnnotation()  # annotation of an index (integer) parameter


class _ConstexprAnnotation:
    """Annotation of a compile-time constant parameter: the kernel body sees
    the Python value given at launch (``kernel[grid](..., BM=128)``),
    ``kernel.specialize(BM=128)`` or the parameter's default; each value
    traces and compiles a variant of its own."""

    def __repr__(self):
        return "argus.constexpr"


constexpr = _ConstexprAnnotation()


@dataclasses.dataclass(frozen=True)
class ScalarSpec:
    """A scalar kernel parameter of a float or integer element type (``eps``)."""
    dtype: str

    def mlir(self) -> str:
        return self.dtype

    def __repr__(self):
        return f"argus.Scalar[{self.dtype!r}]"


class Scalar:
    """Annotation of a scalar parameter: ``eps: argus.Scalar["f32"]`` (a
    Python ``float`` annotation is ``Scalar["f32"]``)."""

    def __class_getitem__(cls, item) -> ScalarSpec:
        dt = dtype_of(item)
        if dt in ("i1", "i8") or dt.startswith("f8"):
            raise _err(DTypeError, f"scalar parameters are f16, bf16, f32, f64, i32 or i64, "
                       f"not {dt}", hint="pass the value as f32 (or i32) and argus.convert "
                       "the tile it meets")
        return ScalarSpec(dt)
