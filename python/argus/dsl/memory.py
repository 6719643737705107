"""Memory ops: global views (``view``, ``gather_view``, ``im2col``), shared-memory
buffers (``alloc``, ``stage``), copies (``copy``, ``copy_async``,
``commit_group``, ``wait_group``, ``barrier``), register loads and stores
(``load``, ``store``) and memory tiles seen another way (``transpose``,
``reinterpret``).
"""

from __future__ import annotations

import re
from typing import Optional

from ..errors import DTypeError, LayoutError, ShapeError, TraceError
from ._tracer import _current_tracer, _err, _user_loc
from .layouts import copy_layout
from .types import Frag, Layout, TileType, _as_layout, _shape, _shs, dtype_of, row_major
from .values import (Buffer, TensorValue, Tile, _index_or_err, _need_tile, _new_tile,
                     _sugar)


def view(tensor: TensorValue, offsets, shape, name: Optional[str] = None,
         clipped: bool = False, bounds=None) -> Tile:
    """The global tile of ``tensor`` of ``shape`` whose first element is at
    ``offsets``: ``argus.view``. A ``clipped`` view is a boundary tile: its
    elements outside the tensor do not exist (stores skip them, loads read
    zero), so the tensor's sizes need not be multiples of the tile.
    ``bounds`` (one index per dimension, in the tensor's coordinates) cut a
    clipped view further: elements at or past a bound do not exist either
    (the last tile of one head of a ``(B * H * S, D)`` tensor stops at the
    head's end). Bulk tensor copies clip at their tensor map only and do
    not take such a view."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue):
        raise _err(TraceError, f"argus.view expects a tensor parameter, got {tensor!r}", loc)
    shape = _shape(shape, "view shape")
    offsets = tuple(offsets) if isinstance(offsets, (tuple, list)) else (offsets,)
    if not isinstance(clipped, bool):
        raise _err(TraceError, f"view(clipped=...) takes True or False, got {clipped!r}", loc)
    # Ranks, offsets, bounds and extents against the tensor's are the op
    # verifier's (ViewOp::verify).
    offs = [_index_or_err(tr, o, "a view offset") for o in offsets]
    bnds = []
    if bounds is not None:
        bounds = tuple(bounds) if isinstance(bounds, (tuple, list)) else (bounds,)
        if not clipped:  # the call's keywords (the op verifier says it in IR terms)
            raise _err(TraceError, "view(bounds=...) cuts a clipped view; hint: pass "
                       "clipped=True as well", loc)
        bnds = [_index_or_err(tr, b, "a view bound") for b in bounds]
    ttype = TileType(shape, tensor.dtype, "global")
    t = _new_tile(tr, "g" + tensor.pyname, ttype)
    t.h = tr.b.view(name or tensor.pyname, tensor.h, [o.h for o in offs], bool(clipped),
                    [b.h for b in bnds], tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def gather_view(tensor: TensorValue, indices: Tile, col, shape, name: Optional[str] = None) -> Tile:
    """A global tile whose row ``r`` is row ``indices[r]`` of ``tensor``,
    columns ``[col, col + shape[1])`` (``argus.gather_view``)."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue) or len(tensor.shape) != 2:
        raise _err(TraceError, f"gather_view expects a 2-D tensor parameter, got {tensor!r}", loc)
    _need_tile(indices, "the gather indices", loc, memory=False)
    shape = _shape(shape, "gather shape")
    c = _index_or_err(tr, col, "the gather column")
    ttype = TileType(shape, tensor.dtype, "global")
    t = _new_tile(tr, "g" + tensor.pyname, ttype)
    t.h = tr.b.gather_view(name or tensor.pyname, tensor.h, indices.h, c.h,
                           tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def _per_dim(value, d: int, what: str, loc) -> list:
    """An int or one int per spatial dimension, as a list of d ints."""
    vals = [value] * d if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(vals, (tuple, list)) or len(vals) != d or \
            any(not isinstance(v, int) or isinstance(v, bool) for v in vals):
        raise _err(TraceError, f"im2col {what} takes an int or {d} ints (one per spatial "
                   f"dimension), got {value!r}", loc)
    return list(vals)


def im2col(tensor: TensorValue, offsets, shape, window, stride=1, padding=0, dilation=1,
           name: Optional[str] = None) -> Tile:
    """The ``shape`` tile at ``offsets`` = (row, column) of the im2col matrix
    of the channels-last ``tensor`` (N, [D,] [H,] W, C) for a convolution
    window (``argus.im2col_view``): row p is an output position (n, oh, ow)
    in row-major order, column k a window tap and channel (kh, kw, c), and
    element (p, k) is ``tensor[n, oh * s + kh * d - pad, ow * s + kw * d -
    pad, c]``, zero in the padding and past the matrix. A convolution is
    then the GEMM of this matrix with the weights as a (KH * KW * C, CO)
    matrix (PyTorch's channels-last weights, ``w.permute(0, 2, 3, 1)``,
    give its transpose). ``window``, ``stride``, ``padding`` and
    ``dilation`` are ints or one int per spatial dimension. The view is
    read-only."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue):
        raise _err(TraceError, f"argus.im2col expects a tensor parameter, got {tensor!r}", loc)
    d = len(tensor.shape) - 2
    geometry = [_per_dim(v, max(d, 1), what, loc) for v, what in
                ((window, "window"), (stride, "stride"), (padding, "padding"),
                 (dilation, "dilation"))]
    shape = _shape(shape, "im2col shape")
    offsets = tuple(offsets) if isinstance(offsets, (tuple, list)) else (offsets,)
    if len(offsets) != 2:
        raise _err(ShapeError, f"an im2col tile is at (row, column) of the im2col matrix, "
                   f"got {len(offsets)} offsets", loc)
    row, col = (_index_or_err(tr, o, "an im2col offset") for o in offsets)
    ttype = TileType(shape, tensor.dtype, "global")
    t = _new_tile(tr, "g" + tensor.pyname, ttype)
    t.h = tr.b.im2col_view(name or tensor.pyname, tensor.h, row.h, col.h, *geometry,
                           tr.type(ttype.mlir(), loc), tr.loc(loc, t.name))
    return t


def conv_output_size(size, window: int, stride: int = 1, padding: int = 0,
                     dilation: int = 1):
    """Output positions of a convolution along one dimension of ``size``
    input positions: ``(size + 2 padding - dilation (window - 1) - 1) //
    stride + 1`` (a traced index for a traced size, an int for an int). The
    subtraction needs ``size`` at least the dilated window minus the
    padding (state it with ``argus.assume`` for a traced size)."""
    span = dilation * (window - 1) + 1
    extra = 2 * padding - span
    if isinstance(size, int) and not isinstance(size, bool):
        return (size + extra) // stride + 1
    if stride == 1:
        extra += 1  # (size + extra) + 1 in one step
    grown = size + extra if extra > 0 else (size - (-extra) if extra < 0 else size)
    return grown // stride + 1 if stride != 1 else grown


def alloc(shape, dtype, layout=None, stages: int = 1, name: str = "smem") -> Buffer:
    """A shared-memory buffer of ``stages`` tiles (``argus.alloc``); the
    layout defaults to row-major."""
    tr = _current_tracer()
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
    buf.h = tr.b.alloc(name, tr.type(buf.type_str, loc), tr.loc(loc, buf.name))
    return buf


def stage(buf: Buffer, i) -> Tile:
    """Stage ``i`` of a buffer (``argus.stage``); ints are range-checked."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(buf, Buffer):
        raise _err(TraceError, f"argus.stage expects a buffer, got {buf!r}", loc)
    idx = _index_or_err(tr, i, "a stage index")
    t = _new_tile(tr, buf.pyname + "_s", buf.tile, buffer=buf)
    tr.op("argus.stage", [buf, idx], [t.type_str], loc, t)
    return t


def _copy(kind: str, src: Tile, dst: Tile, threads, loc):
    tr = _current_tracer()
    _need_tile(src, f"the {kind} source", loc, memory=True)
    _need_tile(dst, f"the {kind} destination", loc, memory=True)
    if threads is None:
        lay = _derived_copy(src, dst, tr.threads(), loc)
    else:
        lay = _as_layout(threads)
    if not isinstance(lay, Layout):
        raise _err(LayoutError, f"the {kind} thread layout must be CuTe notation", loc)
    tr.b.copy(kind == "copy_async", src.h, dst.h, lay.text, tr.loc(loc))


def _memory_layout(t: Tile):
    """A memory tile's layout for copy_layout: None (row-major) for global
    tiles, the layout text for shared ones."""
    if t.space == "global" or t.layout is None:
        return None
    return t.layout


def _derived_copy(src: Tile, dst: Tile, threads: int, loc) -> Layout:
    """copy_layout for the tile with the executing threads, contiguous in
    both memory layouts."""
    return copy_layout(src.shape, src.dtype, threads,
                       memory=[_memory_layout(src), _memory_layout(dst)])


def copy(src: Tile, dst: Tile, threads=None) -> None:
    """Collective copy between memory tiles; ``threads`` maps (thread, slot)
    to the linear logical coordinate each thread moves. Without it, the
    layout is ``copy_layout(shape, dtype, <executing threads>)`` contiguous
    in both tiles' layouts: 16-byte vectors along the contiguous dimension,
    coalesced (docs/Python.md, "Layouts without strings")."""
    _copy("copy", src, dst, threads, _user_loc(2))


def copy_async(src: Tile, dst: Tile, threads=None) -> None:
    """Asynchronous global-to-shared copy (cp.async / buffer_load lds);
    ``threads`` as for :func:`copy` (derived when omitted)."""
    _copy("copy_async", src, dst, threads, _user_loc(2))


def commit_group() -> None:
    tr = _current_tracer()
    tr.op("argus.commit_group", [], [], _user_loc(2))


def wait_group(pending: int) -> None:
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(pending, int) or isinstance(pending, bool) or pending < 0:
        raise _err(TraceError, f"wait_group needs a non-negative int, got {pending!r}", loc)
    tr.b.wait_group(pending, tr.loc(loc))


def barrier() -> None:
    tr = _current_tracer()
    tr.op("argus.barrier", [], [], _user_loc(2))


def _other_value(value, dtype: str, loc):
    """``value`` as the number ``other=`` fills an integer or float tile of
    ``dtype`` with (the builder makes it a constant of that type, exactly:
    ``-inf`` stays ``-inf`` in bf16)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _err(TraceError, f"other= takes a Python number, got {value!r}", loc)
    if dtype.startswith(("i", "u")):
        if not isinstance(value, int) and not float(value).is_integer():
            raise _err(DTypeError, f"other={value!r} is not an integer, but the tile holds "
                       f"{dtype}", loc)
        return int(value)
    return float(value)


def load(src: Tile, layout=None, other=None) -> Tile:
    """Read a memory tile into registers with a register layout (an mma
    operand's fragment, ``TiledMMA.a``, or a CuTe string). Without one, the
    coalesced ``copy_layout`` of the tile over the executing threads (a
    Triton-style blocked layout). Elements of a clipped view outside the
    tensor read as zero, or as ``other`` (Triton's ``other=``, for example
    ``float("-inf")`` before a row maximum)."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(src, "the load source", loc, memory=True)
    if layout is None:
        layout = _derived_copy(src, src, tr.threads(), loc)
    lay = _as_layout(layout)
    if lay is None:
        raise _err(LayoutError, "a register tile needs a layout (layout=argus.frag(...))", loc)
    fill = None if other is None else _other_value(other, src.dtype, loc)
    ttype = TileType(src.shape, src.dtype, "register", lay)
    t = _new_tile(tr, "r", ttype)
    t.h = tr.b.load(src.h, tr.type(ttype.mlir(), loc), fill, tr.loc(loc, t.name))
    return t


_ATOMIC_KINDS = ("add", "max", "min")


def _store(value: Tile, dest: Tile, atomic: Optional[str], loc) -> None:
    tr = _current_tracer()
    _need_tile(value, "the stored value", loc, memory=False)
    _need_tile(dest, "the store destination", loc, memory=True)
    if atomic is not None and atomic not in _ATOMIC_KINDS:
        raise _err(TraceError, f"atomic must be add, max or min, got {atomic!r}", loc,
                   hint='argus.store(value, dest, atomic="add") accumulates into dest')
    tr.b.store(value.h, dest.h, atomic or "", tr.loc(loc))


def store(value: Tile, dest: Tile, atomic: Optional[str] = None) -> None:
    """Write a register tile to a memory tile. With ``atomic`` ("add", "max"
    or "min") every element of the global tile ``dest`` becomes
    ``dest <op> value`` with one atomic read-modify-write, so many blocks may
    accumulate into one element (add: i32, i64, f32, f64; max, min: i32,
    i64). Elements outside a clipped view are skipped."""
    _store(value, dest, atomic, _user_loc(2))


def atomic_add(value: Tile, dest: Tile) -> None:
    """``store(value, dest, atomic="add")``: accumulate a register tile into
    a global tile atomically (column sums over many blocks, split-K)."""
    _store(value, dest, "add", _user_loc(2))


def _split_modes(text: str):
    """The top-level modes of a CuTe tuple ``(a,(b,c))`` -> ``["a", "(b,c)"]``
    (a bare ``a`` is one mode); None when the parentheses do not balance."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return [text]
    inner, out, depth, cur = text[1:-1], [], 0, ""
    for ch in inner:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        return None
    out.append(cur)
    return [m.strip() for m in out]


def _transposed_layout(lay: Layout) -> Optional[Layout]:
    """``lay`` with its two top-level modes swapped (shape and stride), the
    swizzle prefix kept: the same offsets read with the coordinates swapped.
    ``Sw<3,3,3> o (128,(64,2)):(64,(1,8192))`` gives
    ``Sw<3,3,3> o ((64,2),128):((1,8192),64)``. None for other forms."""
    text = lay.text
    m = re.fullmatch(r"(Sw<\s*\d+\s*,\s*\d+\s*,\s*\d+\s*>\s*o\s*)?(.*)", text, re.S)
    prefix, body = m.group(1) or "", m.group(2)
    depth, colon = 0, -1
    for i, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == ":" and depth == 0:
            colon = i
            break
    if colon < 0:
        return None
    shape, stride = _split_modes(body[:colon]), _split_modes(body[colon + 1:])
    if not shape or not stride or len(shape) != 2 or len(stride) != 2:
        return None
    return Layout(f"{prefix}({shape[1]},{shape[0]}):({stride[1]},{stride[0]})")


def transpose(x: Tile, layout=None) -> Tile:
    """A 2-D memory tile viewed with its dimensions swapped (for example a
    shared stage of K read as K^T by ``mma_async``). The result layout swaps
    the two top-level modes of the input's, keeping a swizzle
    (``Sw<3,3,3> o (128,(64,2)):(64,(1,8192))`` gives
    ``Sw<3,3,3> o ((64,2),128):((1,8192),64)``); pass ``layout`` for other
    forms. The C++ op verifier checks that it is the transpose."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the transposed tile", loc, memory=True)
    if len(x.shape) != 2:
        raise _err(ShapeError, f"transpose needs a 2-D tile, got {_shs(x.shape)}", loc)
    lay = _as_layout(layout)
    if lay is None and x.layout is not None:
        lay = _transposed_layout(x.layout) if isinstance(x.layout, Layout) else None
        if lay is None:
            raise _err(LayoutError, f"cannot derive the transposed layout of "
                       f"'{getattr(x.layout, 'text', x.layout)}'; pass layout=", loc)
    ttype = TileType((x.shape[1], x.shape[0]), x.dtype, x.space, lay)
    t = _new_tile(tr, "tr", ttype)
    tr.op("argus.transpose", [x], [ttype.mlir()], loc, t)
    return t


def reinterpret(x: Tile, layout) -> Tile:
    """The same memory through another layout."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _need_tile(x, "the reinterpreted tile", loc, memory=True)
    ttype = TileType(x.shape, x.dtype, x.space, _as_layout(layout))
    t = _new_tile(tr, "ri", ttype, buffer=x.buffer)
    tr.op("argus.reinterpret", [x], [ttype.mlir()], loc, t)
    return t


# TensorValue.view and Buffer.__getitem__ (values.py) call these.
_sugar.update(view=view, stage=stage)
