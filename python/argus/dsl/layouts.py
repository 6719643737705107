"""Derived layouts: the thread-value layouts ordinary kernels need, computed
from what the kernel already says (a tile shape, an element type, the
block's thread count, an instruction and a warp grid) instead of written as
CuTe strings.

* :func:`copy_layout` (CuTe DSL's ``make_tiled_copy``, Triton's blocked
  layout): (thread, slot) -> element of a tile, coalesced along the
  contiguous dimension with vector accesses of up to 16 bytes, contiguous in
  every memory layout involved (a shared-memory swizzle included); also a
  good register layout for row-wise kernels.
* :func:`tiled_mma` / :class:`TiledMMA` (CuTe DSL's ``TiledMMA``): an
  instruction over a warp grid: the A/B/C fragments, their thread-value
  layouts over a tile (:func:`tv_layout`), shape checks.
* :func:`tma_layout`: the shared-memory layout a TMA copy writes (boxes
  one after another in row-major order, each row-major, swizzled), so that a
  TMA destination is allocated without a ``Sw<B,M,S> o ...`` string.
* :func:`reduce_layout` (Triton's slice layout) and :func:`broadcast_layout`:
  the replicated layouts of ``reduce`` and ``broadcast``: after reducing
  ``dim``, each thread holds exactly the reduced coordinates it held before
  (threads that shared a row all hold its result).

Every layout here is a plain CuTe string (:class:`Layout`), checked by the
layout algebra like a handwritten one; the builders check what they promise
by enumeration before returning (docs/Python.md, "Layouts without strings").

Layouts are read and evaluated by the C++ layout algebra through the
bindings (``_argus.Layout``, ``_argus.register_layout``: parsing, swizzles,
memory offsets and fragments as the dialect reads them); this module only
builds new layouts from (size, stride) leaves (docs/Layout.md).
"""

from __future__ import annotations

import functools
import math
from typing import Dict, List, Optional, Sequence, Tuple

from .. import ir as _ir
from ..errors import ArgusError, LayoutError, ShapeError, UnknownInstructionError
from ._tracer import _err, _user_loc
from .types import Frag, Layout, TileType, _shape, _shs, check_instruction, dtype_of, instruction, row_major

Leaf = Tuple[int, int]  # (size, stride)

#===------------------------------------------------------------------------===#
# Reading CuTe layouts: the layout algebra's own (argus::layout, bound as
# _argus.Layout), so that Python holds no second parser or evaluator
#===------------------------------------------------------------------------===#

def _text(x) -> str:
    return x.text if isinstance(x, Layout) else str(x)


@functools.lru_cache(maxsize=1024)
def _algebra(text: str):
    return _ir.extension().Layout(text)


def _parsed(x):
    """The layout algebra's layout of ``x`` (CuTe text or :class:`Layout`)."""
    try:
        return _algebra(_text(x))
    except ValueError as e:
        raise _err(LayoutError, f"bad layout '{_text(x)}': {e}") from None


def evaluate(layout, index) -> int:
    """The value of a CuTe layout at a 1-D index, or at a coordinate with one
    int per top-level mode (swizzle applied): ``evaluate("(4,8):(8,1)", 5)``
    is 9."""
    p = _parsed(layout)
    try:
        return p(index) if isinstance(index, int) else p.at(list(index))
    except (ValueError, IndexError) as e:
        raise _err(LayoutError, f"'{p.text}' at {index!r}: {e}") from None


def memory_offset(layout, shape, coord) -> int:
    """The element offset a memory tile's layout gives ``coord`` of a tile of
    ``shape`` (one mode per dimension, or a rank-1 layout over the
    colexicographic index), as the dialect computes it."""
    shape = tuple(shape)
    return _offsets(_parsed(layout).text, shape)[_colex(coord, shape)]


def _colex(coord, shape) -> int:
    lin, acc = 0, 1
    for c, s in zip(coord, shape):
        lin += c * acc
        acc *= s
    return lin


def _size(leaves: Sequence[Leaf]) -> int:
    return math.prod(s for s, _ in leaves)


def _table(th: Sequence[Leaf], sl: Sequence[Leaf]) -> List[List[int]]:
    """``[t][s]`` -> the linear coordinate that slot ``s`` of thread ``t``
    holds, evaluated by the layout algebra."""
    threads = _size(th)
    values = _parsed(_render(th, sl)).values()
    return [values[t::threads] for t in range(threads)]


def _uncolex(lin: int, shape) -> Tuple[int, ...]:
    out = []
    for s in shape:
        out.append(lin % s)
        lin //= s
    return tuple(out)


def _prefix(shape) -> List[int]:
    out, acc = [], 1
    for s in shape:
        out.append(acc)
        acc *= s
    return out


#===------------------------------------------------------------------------===#
# Thread-value layouts of register tiles
#===------------------------------------------------------------------------===#

def instruction_tv(name: str) -> Dict[str, str]:
    """The (thread, value) -> flat index layouts of an instruction's operands:
    ``{"a": ..., "b": ..., "c": ...}`` (flat index ``m + M*k``, ``n + N*k``,
    ``m + M*n``, as ``argus-layout --mma`` prints them)."""
    desc = instruction(name)
    if desc is None:
        check_instruction(name, _user_loc(2))
        raise _err(UnknownInstructionError, f"unknown matrix-core instruction '{name}'")
    # One table: lib/Layout/Instructions.cpp, through the binding.
    return {"a": desc["a_tv"], "b": desc["b_tv"], "c": desc["c_tv"]}


def _restride(leaves: Sequence[Leaf], dims: Sequence[int], unit: Sequence[int]) -> List[Leaf]:
    """Leaves over the colexicographic index of ``dims`` re-expressed with
    stride ``unit[j]`` per step along dimension ``j``; a leaf that crosses
    from one dimension into the next is split where it does. ValueError when
    a leaf wraps a dimension unevenly (no such split exists)."""
    pre = _prefix(dims)
    out: List[Leaf] = []
    for s, d in leaves:
        if s == 1:
            continue
        if d == 0:
            out.append((s, 0))
            continue
        if d < 0:
            raise ValueError(f"negative stride {d}")
        while True:
            j = max(k for k in range(len(dims)) if pre[k] <= d)
            if d % pre[j]:
                raise ValueError(f"stride {d} is not a multiple of {pre[j]} (dimension {j})")
            e = d // pre[j]
            if (s - 1) * e < dims[j]:
                out.append((s, e * unit[j]))
                break
            if dims[j] % e or s % (dims[j] // e) or j + 1 >= len(dims):
                raise ValueError(f"the mode {s}:{d} wraps dimension {j} (extent {dims[j]})")
            a = dims[j] // e
            out.append((a, e * unit[j]))
            s, d = s // a, d * a
    return out


def _tv_leaves(layout, shape) -> Tuple[Sequence[Leaf], Sequence[Leaf]]:
    """(thread leaves, slot leaves) of a register layout over a tile: the
    dialect's reading (getRegisterLayout), a fragment expanded over its warp
    grid and the tile's repetitions."""
    lay = layout if isinstance(layout, (Frag, Layout)) else Layout(_text(layout))
    return _register_modes(TileType(tuple(shape), "f32", "register", lay).mlir(),
                           isinstance(lay, Frag))


@functools.lru_cache(maxsize=1024)
def _register_modes(tile_type: str, is_frag: bool) -> Tuple[Tuple[Leaf, ...], Tuple[Leaf, ...]]:
    try:
        th, sl = _ir.extension().register_layout(_ir.context(), tile_type).modes()
    except ValueError as e:
        # A fragment the instruction does not tile, or a layout that is not
        # a (thread, slot) layout of the tile.
        raise _err(ShapeError if is_frag else LayoutError, str(e)) from None
    return tuple(th), tuple(sl)  # cached: not to be changed by a caller


def _simplify(leaves: Sequence[Leaf]) -> List[Leaf]:
    """Drop size-1 leaves and merge neighbours that continue each other."""
    out: List[Leaf] = []
    for s, d in leaves:
        if s == 1:
            continue
        if out and out[-1][1] * out[-1][0] == d and out[-1][1] != 0:
            ps, pd = out[-1]
            out[-1] = (ps * s, pd)
        elif out and out[-1][1] == 0 and d == 0:
            out[-1] = (out[-1][0] * s, 0)
        else:
            out.append((s, d))
    return out


def _render_mode(leaves: Sequence[Leaf]) -> Tuple[str, str]:
    leaves = _simplify(leaves) or [(1, 0)]
    if len(leaves) == 1:
        return str(leaves[0][0]), str(leaves[0][1])
    return ("(" + ",".join(str(s) for s, _ in leaves) + ")",
            "(" + ",".join(str(d) for _, d in leaves) + ")")


def _render(th: Sequence[Leaf], sl: Sequence[Leaf]) -> Layout:
    (ts, td), (ss, sd) = _render_mode(th), _render_mode(sl)
    return Layout(f"({ts},{ss}):({td},{sd})")


def tv_layout(layout, shape) -> Layout:
    """The plain thread-value layout (thread, slot) -> ``d0 + D0*d1 + ...`` of
    a register layout over a tile of ``shape``: a CuTe string as it is, a
    fragment (``argus.frag`` / ``TiledMMA.c``) expanded over the warp grid
    and the tile's repetitions as the dialect does."""
    shape = _shape(shape)
    th, sl = _tv_leaves(layout, shape)
    return _render(th, sl)


def thread_values(layout, shape) -> List[List[Tuple[int, ...]]]:
    """For each thread, the coordinates its slots hold (slot order): the
    table a layout stands for, for inspection and tests."""
    shape = _shape(shape)
    th, sl = _tv_leaves(layout, shape)
    return [[_uncolex(x, shape) for x in row] for row in _table(th, sl)]


def layout_threads(layout, shape) -> int:
    """How many threads a register layout over ``shape`` spans."""
    th, _ = _tv_leaves(layout, _shape(shape))
    return _size(th)


#===------------------------------------------------------------------------===#
# Copy layouts
#===------------------------------------------------------------------------===#

_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i8": 8, "i32": 32, "i64": 64,
         "i1": 8, "f8E4M3FN": 8, "f8E4M3FNUZ": 8}


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


@functools.lru_cache(maxsize=256)
def _offsets(text: str, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """The offset of every element of a memory tile (by colexicographic
    index), as the dialect places it (memoryTileOffset)."""
    try:
        return tuple(_algebra(text).memory_offsets(list(shape)))
    except ValueError as e:
        raise _err(LayoutError, f"memory layout '{text}' of a {_shs(shape)} tile: {e}") from None


@functools.lru_cache(maxsize=256)
def _vector_ok(shape: Tuple[int, ...], c: int, v: int, memory: Tuple[str, ...]) -> bool:
    """Every group of ``v`` elements along dim ``c`` starting at a multiple of
    ``v`` is ``v`` consecutive, ``v``-aligned offsets of each memory layout
    (texts)."""
    if v == 1:
        return True
    step = _prefix(shape)[c]
    n = math.prod(shape)
    for text in memory:
        offs = _offsets(text, shape)
        for lin in range(n):
            if (lin // step) % shape[c] % v:
                continue
            o = offs[lin]
            if o % v:
                return False
            for i in range(1, v):
                if offs[lin + i * step] != o + i:
                    return False
    return True


def _contiguous_dim(shape, memory) -> int:
    """The dimension along which every given memory layout is unit-stride at
    the origin (the last dimension by default: row-major global tiles)."""
    cands = [d for d in reversed(range(len(shape))) if shape[d] > 1] or [len(shape) - 1]
    for d in cands:
        ok = True
        for lay in memory:
            if lay is None:
                if d != len(shape) - 1:
                    ok = False
                continue
            e = tuple(1 if k == d else 0 for k in range(len(shape)))
            z = (0,) * len(shape)
            if memory_offset(lay, shape, e) - memory_offset(lay, shape, z) != 1:
                ok = False
        if ok:
            return d
    return len(shape) - 1


def copy_layout(shape, dtype, threads: int, vector: Optional[int] = None,
                order: Optional[Sequence[int]] = None, memory: Sequence = ()) -> Layout:
    """A (thread, slot) layout that moves a tile of ``shape`` and ``dtype``
    with ``threads`` threads, as CuTe DSL's ``make_tiled_copy`` or a Triton
    blocked layout would:

    * each thread moves ``vector`` consecutive elements along the contiguous
      dimension per access (default: the widest power of two up to 16 bytes
      that divides that dimension and is contiguous and aligned in every
      layout of ``memory``, e.g. a swizzled shared tile's ``Sw<B,M,S>``
      keeps runs of ``2^M`` elements);
    * consecutive threads take consecutive vectors along the contiguous
      dimension, then the next dimensions (``order``: dimensions fastest
      first; default the contiguous one, then the others from the last), so
      a warp's accesses are coalesced;
    * each thread repeats its pattern over the rest of the tile (slots).

    ``memory``: the memory layouts (CuTe strings or :class:`Layout`, ``None``
    for a row-major global tile) the accesses must be contiguous in.

    A tile with fewer than ``threads * vector`` elements is moved by fewer
    threads (one vector each; the others idle): a copy layout must be
    one-to-one, so replicating elements over threads would write them twice.
    Raises :class:`LayoutError` with a hint when the threads cannot share
    the tile evenly or an explicit ``vector`` does not fit."""
    loc = _user_loc(2)
    shape = _shape(shape)
    dt = dtype_of(dtype)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise _err(LayoutError, f"copy_layout needs a positive thread count, got {threads!r}",
                   loc)
    memory = [None if m is None else Layout(m) for m in memory]
    for m in memory:
        if m is not None and _parsed(m).swizzle is None and len(_parsed(m).modes()) not in (
                1, len(shape)):
            raise _err(LayoutError, f"memory layout '{m.text}' does not fit a "
                       f"{_shs(shape)} tile", loc)
    memtexts = tuple(m.text for m in memory if m is not None)
    c = _contiguous_dim(shape, memory) if order is None else int(order[0])
    if order is None:
        order = [c] + [d for d in reversed(range(len(shape))) if d != c]
    order = [int(d) for d in order]
    if sorted(order) != list(range(len(shape))):
        raise _err(LayoutError, f"order must list the dimensions 0..{len(shape) - 1} once, "
                   f"got {order}", loc)
    max_v = max(1, 128 // _BITS.get(dt, 32))
    if vector is not None:
        if isinstance(vector, bool) or not isinstance(vector, int) or vector < 1:
            raise _err(LayoutError, f"vector must be a positive int, got {vector!r}", loc)
        if shape[c] % vector:
            raise _err(LayoutError, f"a vector of {vector} elements does not divide dimension "
                       f"{c} ({shape[c]}) of the {_shs(shape)} tile",
                       loc, hint=f"use vector={math.gcd(vector, shape[c])} or a tile whose "
                       f"dimension {c} is a multiple of {vector}")
        if not _vector_ok(shape, c, vector, memtexts):
            raise _err(LayoutError, f"{vector}-element vectors along dimension {c} are not "
                       "contiguous and aligned in the memory layouts "
                       f"{', '.join(m.text for m in memory if m is not None)}", loc,
                       hint="leave vector=None to get the widest that is (a swizzle "
                       "Sw<B,M,S> keeps runs of 2^M elements)")
        v = vector
    else:
        v = min(max_v, _pow2_floor(shape[c] & -shape[c]))
        while v > 1 and not _vector_ok(shape, c, v, memtexts):
            v //= 2
    chunks = list(shape)
    chunks[c] //= v
    n = math.prod(chunks)
    t = {d: 1 for d in range(len(shape))}
    if n <= threads:  # small tile: one vector per thread, fewer threads
        t = {d: chunks[d] for d in range(len(shape))}
    else:
        rem = threads
        for d in order:
            t[d] = math.gcd(chunks[d], rem)
            rem //= t[d]
        if rem != 1:
            raise _err(LayoutError, f"{threads} threads cannot share the {_shs(shape)} tile "
                       f"evenly in {v}-element vectors (per-thread pieces "
                       f"{'x'.join(str(x) for x in chunks)})", loc,
                       hint="choose tile dimensions that are multiples of the thread "
                       "arrangement (powers of two usually are), a thread count that divides "
                       f"{n}, or vector=")
    pre = _prefix(shape)
    th: List[Leaf] = []
    sl: List[Leaf] = [(v, pre[c])]
    for d in order:
        step = pre[d] * (v if d == c else 1)
        th.append((t[d], step))
    for d in order:
        step = pre[d] * (v if d == c else 1)
        sl.append((chunks[d] // t[d], step * t[d]))
    lay = _render(th, sl)
    _check_copy(lay.text, shape, threads, v, c)
    return lay


@functools.lru_cache(maxsize=256)
def _check_copy(text: str, shape: Tuple[int, ...], threads: int, v: int, c: int) -> None:
    """What a derived copy layout promises (an internal error otherwise): a
    bijection onto the tile over at most ``threads`` threads whose
    consecutive ``v`` slots are ``v`` consecutive elements along ``c`` (so
    contiguous wherever the memory layouts were checked to be)."""
    th, sl = _tv_leaves(Layout(text), shape)
    n = math.prod(shape)
    step = _prefix(shape)[c]
    seen = set()
    for t, row in enumerate(_table(th, sl)):
        prev = None
        for s, x in enumerate(row):
            if not 0 <= x < n or x in seen:
                raise AssertionError(f"copy layout {text}: ({t}, {s}) -> {x}")
            if s % v and x != prev + step:
                raise AssertionError(f"copy layout {text}: slot {s} of thread {t} breaks the "
                                     "vector")
            seen.add(x)
            prev = x
    if len(seen) != n or _size(th) > threads:
        raise AssertionError(f"copy layout {text} does not cover the tile")


#===------------------------------------------------------------------------===#
# Reductions and broadcasts
#===------------------------------------------------------------------------===#


def _check_same_holders(th, sl, shape, rth, rsl, rshape, project) -> None:
    held = [{project(_uncolex(x, shape)) for x in row} for row in _table(th, sl)]
    if _size(rth) != len(held):
        raise ValueError("thread count changed")
    for t, row in enumerate(_table(rth, rsl)):
        got = [_uncolex(x, rshape) for x in row]
        if len(set(got)) != len(got) or set(got) != held[t]:
            raise ValueError(f"thread {t} would hold {sorted(set(got))}, not {sorted(held[t])}")


def reduce_layout(layout, shape, dim: int) -> Layout:
    """The register layout of ``reduce(x, kind, dim)`` for ``x`` of ``shape``
    in ``layout`` (a CuTe string or a fragment): thread ``t`` holds exactly
    the coordinates of the result it held an element of (so the threads
    that shared a row all hold its result: stride-0 thread modes), each
    once. Reducing a 1-D tile gives a ``(1,)`` tile."""
    loc = _user_loc(2)
    shape = _shape(shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < len(shape):
        raise _err(ShapeError, f"reduce dim {dim!r} out of range for a {_shs(shape)} tile", loc)
    if isinstance(layout, str):
        layout = Layout(layout)
    try:
        return Layout(_reduce_text(layout, shape, dim))
    except ValueError as e:
        raise _err(LayoutError, f"cannot derive the layout of reducing dimension {dim} of a "
                   f"{_shs(shape)} tile in '{_text(layout)}': {e}", loc,
                   hint="pass the result layout explicitly (reduce(..., layout=...))") from None


@functools.lru_cache(maxsize=256)
def _reduce_text(layout, shape: Tuple[int, ...], dim: int) -> str:
    th, sl = _tv_leaves(layout, shape)
    rshape = tuple(s for d, s in enumerate(shape) if d != dim) or (1,)
    rpre = _prefix(rshape)
    unit, k = [], 0
    for d in range(len(shape)):
        if d == dim:
            unit.append(0)
        else:
            unit.append(rpre[k])
            k += 1
    rth = _restride(th, shape, unit)
    rsl = [l for l in _restride(sl, shape, unit) if l[1] != 0]
    _check_same_holders(th, sl, shape, rth, rsl, rshape,
                        lambda co: tuple(x for d, x in enumerate(co) if d != dim) or (0,))
    return _render(rth, rsl).text


def broadcast_layout(layout, shape, dim: int, size: int) -> Layout:
    """The register layout of a tile of ``shape`` in ``layout`` broadcast
    along a new dimension ``dim`` of ``size``: every thread keeps its
    coordinates and holds all ``size`` of the new dimension (so the
    broadcast needs no exchange). ``broadcast(x, dim)`` prefers the layout
    the reduction came from when it knows it."""
    loc = _user_loc(2)
    shape = _shape(shape)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise _err(ShapeError, f"broadcast size must be a positive int, got {size!r}", loc)
    if not 0 <= dim <= len(shape):
        raise _err(ShapeError, f"cannot insert dimension {dim} into a {_shs(shape)} tile", loc)
    th, sl = _tv_leaves(layout, shape)
    nshape = tuple(shape[:dim]) + (size,) + tuple(shape[dim:])
    npre = _prefix(nshape)
    unit = [npre[d if d < dim else d + 1] for d in range(len(shape))]
    try:
        bth = _restride(th, shape, unit)
        bsl = _restride(sl, shape, unit) + [(size, npre[dim])]
    except ValueError as e:
        raise _err(LayoutError, f"cannot derive the broadcast of '{_text(layout)}': {e}", loc,
                   hint="pass like= or layout=") from None
    return _render(bth, bsl)


#===------------------------------------------------------------------------===#
# Tiled MMA
#===------------------------------------------------------------------------===#


class TiledMMA:
    """A matrix-core instruction over a warp grid, as CuTe DSL's ``TiledMMA``:
    ``a``, ``b``, ``c`` are the operands' register layouts (fragments, for
    ``argus.load(..., layout=mma.a)`` and ``argus.zeros(shape, "f32", mma.c)``),
    ``threads`` the threads it uses, ``atom`` the instruction's ``(M, N, K)``
    and ``tile`` the block tile ``(TM, TN, TK)`` it was checked against."""

    def __init__(self, instr: str, warps: Sequence[int], tile: Optional[Sequence[int]] = None,
                 loc=None):
        loc = loc or _user_loc(2)
        self.instr = check_instruction(instr, loc)
        desc = instruction(instr)
        if desc is None:
            raise _err(ArgusError, "the argus extension is needed to describe instructions",
                       loc)
        self.desc = desc
        self.atom = (desc["M"], desc["N"], desc["K"])
        self.warps = tuple(int(w) for w in warps)
        if len(self.warps) != 2 or min(self.warps) < 1:
            raise _err(ShapeError, f"the warp grid is two positive ints, got {warps!r}", loc)
        self.threads = desc["threads"] * self.warps[0] * self.warps[1]
        self.a = Frag(instr, "a", self.warps)
        self.b = Frag(instr, "b", self.warps)
        self.c = Frag(instr, "c", self.warps)
        self.tile = None
        if tile is not None:
            tile = _shape(tile, "the mma tile")
            if len(tile) != 3:
                raise _err(ShapeError, f"the mma tile is (TM, TN, TK), got {tile}", loc)
            self.check_tile(tile, loc)
            self.tile = tile

    def unit(self) -> Tuple[int, int, int]:
        """The smallest block tile: ``(M * WM, N * WN, K)``."""
        return (self.atom[0] * self.warps[0], self.atom[1] * self.warps[1], self.atom[2])

    def check_tile(self, tile, loc=None) -> None:
        um, un, uk = self.unit()
        tm, tn, tk = tile
        if tm % um or tn % un or tk % uk:
            raise _err(ShapeError, f"the {tm}x{tn}x{tk} tile is not a multiple of "
                       f"{self.instr} ({self.atom[0]}x{self.atom[1]}x{self.atom[2]}) over a "
                       f"{self.warps[0]}x{self.warps[1]} warp grid ({um}x{un}x{uk})",
                       loc or _user_loc(2),
                       hint=f"use TM a multiple of {um}, TN of {un}, TK of {uk}, or another "
                       "warp grid")

    def shapes(self) -> Dict[str, Tuple[int, int]]:
        if self.tile is None:
            raise _err(ShapeError, "this TiledMMA has no tile: pass tile=(TM, TN, TK)")
        tm, tn, tk = self.tile
        return {"a": (tm, tk), "b": (tk, tn), "c": (tm, tn)}

    def tv(self, operand: str, shape=None) -> Layout:
        """The plain (thread, slot) layout of operand ``a``/``b``/``c`` over a
        tile (default: the operand's block tile)."""
        frag = {"a": self.a, "b": self.b, "c": self.c}.get(operand)
        if frag is None:
            raise _err(LayoutError, f"operand must be 'a', 'b' or 'c', got {operand!r}")
        return tv_layout(frag, shape if shape is not None else self.shapes()[operand])

    def reduced(self, dim: int, shape=None) -> Layout:
        """The layout of the C tile reduced along ``dim`` (e.g. row maxima of
        attention scores: ``dim=1``)."""
        return reduce_layout(self.c, shape if shape is not None else self.shapes()["c"], dim)

    def __repr__(self):
        return (f"TiledMMA({self.instr!r}, warps={self.warps}"
                + (f", tile={self.tile}" if self.tile else "") + ")")


def _warp_grid(w: int, atom, tile) -> Tuple[int, int]:
    best = None
    for wm in range(1, w + 1):
        if w % wm:
            continue
        wn = w // wm
        if tile is not None and (tile[0] % (atom[0] * wm) or tile[1] % (atom[1] * wn)):
            continue
        if tile is not None:
            pm, pn = tile[0] / (atom[0] * wm) * atom[0], tile[1] / (atom[1] * wn) * atom[1]
        else:
            pm, pn = wn, wm  # most square grid, more warps along M on ties
        score = (abs(math.log(pm / pn)), -wm)
        if best is None or score < best[0]:
            best = (score, (wm, wn))
    return None if best is None else best[1]


def tiled_mma(instr: str, warps: Optional[Sequence[int]] = None, threads: Optional[int] = None,
              tile: Optional[Sequence[int]] = None) -> TiledMMA:
    """A :class:`TiledMMA` of ``instr`` over a warp grid ``warps=(WM, WN)``,
    or over the grid of ``threads`` threads (default: the traced kernel's
    block) that splits ``tile=(TM, TN, TK)`` most evenly::

        mma = argus.tiled_mma("v_mfma_f32_32x32x8_f16", threads=256, tile=(128, 128, 32))
        mma.warps            # (2, 2)
        acc = argus.zeros((128, 128), "f32", mma.c)
    """
    loc = _user_loc(2)
    check_instruction(instr, loc)
    desc = instruction(instr)
    if warps is None:
        if threads is None:
            from ._tracer import _state
            tr = getattr(_state, "tracer", None)
            if tr is None:
                raise _err(LayoutError, "tiled_mma needs warps=(WM, WN) or threads= outside a "
                           "kernel", loc)
            threads = tr.threads()
        if threads % desc["threads"]:
            raise _err(ShapeError, f"{threads} threads are not whole groups of the "
                       f"{desc['threads']} threads {instr} needs", loc,
                       hint=f"use a multiple of {desc['threads']} threads")
        tl = None if tile is None else _shape(tile, "the mma tile")
        g = _warp_grid(threads // desc["threads"], (desc["M"], desc["N"]), tl)
        if g is None:
            raise _err(ShapeError, f"no grid of {threads // desc['threads']} warps splits the "
                       f"{_shs(tl)} tile into {instr} tiles ({desc['M']}x{desc['N']})", loc,
                       hint="change the tile or the thread count, or give warps=")
        warps = g
    return TiledMMA(instr, warps, tile, loc)


__all__ = ["TiledMMA", "broadcast_layout", "copy_layout", "evaluate", "instruction_tv",
           "layout_threads", "memory_offset", "reduce_layout", "thread_values", "tiled_mma",
           "tv_layout"]


def swizzled_rows(shape, dtype) -> Optional[Layout]:
    """A row-major shared-memory layout of a 2-D ``shape`` tile of ``dtype``
    whose 16-byte chunks are XORed with the row: ``Sw<B,M,3>`` (M: the
    elements of a 16-byte chunk; B: log2 of the chunks a row holds, at most
    3), so the same chunk of eight consecutive rows lands in eight different
    banks and fragment loads (``ldmatrix``) do not conflict. ``None`` (the
    plain row-major layout) when a row holds fewer than two chunks.

    ``argus.swizzled_rows((64, 32), "f16")`` gives ``Sw<2,3,3> o (64,32):(32,1)``."""
    loc = _user_loc(2)
    shape = _shape(shape, "the tile")
    if len(shape) != 2:
        raise _err(ShapeError, f"swizzled_rows takes a 2-D tile, got {_shs(shape)}", loc)
    dt = dtype_of(dtype)
    eb = _BITS.get(dt, 0) // 8
    if eb not in (1, 2, 4, 8):
        raise _err(LayoutError, f"no swizzled row layout for {dt} elements", loc)
    chunks = shape[1] * eb // 16
    if chunks < 2:
        return None
    return row_major(*shape).swizzle(min(chunks.bit_length() - 1, 3),
                                     (16 // eb).bit_length() - 1, 3)


#===------------------------------------------------------------------------===#
# Shared-memory layouts of TMA copies
#===------------------------------------------------------------------------===#


def tma_layout(tmap, shape, dtype=None, swizzle: Optional[int] = None) -> Layout:
    """The shared-memory layout of a ``shape`` tile that bulk tensor copies
    through ``tmap`` (an ``argus.tensor_map``, or a box shape with ``dtype``
    and ``swizzle``) fill: the tile is a grid of boxes, laid one after another
    in row-major order, each box row-major, and the bytes swizzled with
    ``Sw<B,4,3>`` (B = 3, 2, 1 for 128, 64, 32 bytes; written ``Sw<B,M,3>``
    on elements of 2^(4-M) bytes). The dialect checks the same placement
    (``argus.tma_load`` / ``argus.tma_store``), element by element.

    ``argus.alloc((128, 32), "f32", argus.tma_layout(tmA, (128, 32)))`` gives
    ``Sw<3,2,3> o (128,32):(32,1)``; a (64, 256) bf16 tile of (64, 64) boxes
    gives ``Sw<3,3,3> o (64,(64,4)):(64,(1,4096))``."""
    loc = _user_loc(2)
    if hasattr(tmap, "box") and hasattr(tmap, "swizzle"):
        box, dt = tuple(tmap.box), dtype_of(tmap.dtype)
        sw = tmap.swizzle if swizzle is None else swizzle
    else:
        box = _shape(tmap, "the TMA box")
        if dtype is None:
            raise _err(LayoutError, "tma_layout needs the element type with a box shape", loc,
                       hint="pass dtype=, or the tensor map itself")
        dt, sw = dtype_of(dtype), 128 if swizzle is None else swizzle
    shape = _shape(shape, "the tile")
    if len(shape) != len(box):
        raise _err(ShapeError, f"the {_shs(shape)} tile and the {_shs(box)} box have different "
                   "ranks", loc)
    bad = [d for d in range(len(shape)) if shape[d] % box[d]]
    if bad:
        raise _err(ShapeError, f"the {_shs(shape)} tile is not a grid of {_shs(box)} boxes "
                   f"(dimension {bad[0]})", loc,
                   hint="choose a tile whose dimensions are multiples of the box's")
    eb = _BITS.get(dt, 0) // 8
    b = {0: 0, 32: 1, 64: 2, 128: 3}.get(sw)
    if b is None or eb not in (1, 2, 4, 8):
        raise _err(LayoutError, f"no TMA layout for swizzle {sw!r} and {dt} elements", loc,
                   hint="swizzle is 0, 32, 64 or 128 bytes")
    if b and box[-1] * eb != sw:
        raise _err(LayoutError, f"a {_shs(box)} box of {dt} has {box[-1] * eb}-byte rows but "
                   f"swizzle {sw} needs {sw}-byte rows", loc,
                   hint=f"use an innermost box dimension of {sw // eb} elements")
    grid = [shape[d] // box[d] for d in range(len(shape))]
    box_elems = math.prod(box)
    modes = []
    for d in range(len(shape)):
        inner = math.prod(box[d + 1:])
        outer = box_elems * math.prod(grid[d + 1:])
        modes.append([(box[d], inner), (grid[d], outer)])
    texts = [_render_mode(m) for m in modes]
    base = f"({','.join(t[0] for t in texts)}):({','.join(t[1] for t in texts)})"
    if len(texts) == 1:
        base = f"{texts[0][0]}:{texts[0][1]}"
    m = 4 - eb.bit_length() + 1
    return Layout(f"Sw<{b},{m},3> o {base}" if b else base)
