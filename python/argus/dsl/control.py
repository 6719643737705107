"""Control flow and launch geometry: ``range`` (traced ``scf.for`` loops,
with loop-carried values), ``when`` (a traced ``scf.if`` without results),
``region`` (measured region markers), ``assume`` (launch preconditions) and
``block_id``, ``grid_dim``, ``thread_id``.
"""

from __future__ import annotations

import builtins
import re
import sys
from typing import Optional

from ..errors import TraceError
from ._tracer import _current_tracer, _err, _is_user_frame, _user_loc
from .values import Condition, IndexValue, Tile, Value, _const, _index_or_err

#===------------------------------------------------------------------------===#
# Launch geometry and preconditions
#===------------------------------------------------------------------------===#


def block_id(dim: str = "x") -> IndexValue:
    """``gpu.block_id x|y|z``."""
    tr = _current_tracer()
    _dim(dim, "block_id")
    if dim in tr.block_ids and tr.depth == 0:
        return tr.block_ids[dim]
    v = _launch_index(tr, "block_id", "b", dim)
    if tr.depth == 0:
        tr.block_ids[dim] = v
    return v


def grid_dim(dim: str = "x") -> IndexValue:
    """``gpu.grid_dim x|y|z`` (blocks in the grid)."""
    return _launch_index(_current_tracer(), "grid_dim", "g", _dim(dim, "grid_dim"))


def cluster_id(dim: str = "x") -> IndexValue:
    """``gpu.cluster_id x|y|z``: the thread-block cluster's index in the grid
    (a kernel with ``cluster``; the block id without one)."""
    return _launch_index(_current_tracer(), "cluster_id", "cid", _dim(dim, "cluster_id"))


def cluster_rank(dim: str = "x") -> IndexValue:
    """``gpu.cluster_block_id x|y|z``: the block's index in its cluster."""
    return _launch_index(_current_tracer(), "cluster_block_id", "rank",
                         _dim(dim, "cluster_rank"))


def num_clusters(dim: str = "x") -> IndexValue:
    """``gpu.cluster_dim x|y|z``: clusters in the grid."""
    return _launch_index(_current_tracer(), "cluster_dim", "clusters",
                         _dim(dim, "num_clusters"))


def _dim(dim: str, what: str) -> str:
    """``dim`` when it names a launch dimension; else the error at the
    user's line."""
    if dim not in ("x", "y", "z"):
        raise _err(TraceError, f"{what} dimension must be 'x', 'y' or 'z', got {dim!r}")
    return dim


def thread_id(dim: str = "x") -> IndexValue:
    """``gpu.thread_id x|y|z``."""
    return _launch_index(_current_tracer(), "thread_id", "t", dim)


def _launch_index(tr, kind: str, prefix: str, dim: str) -> IndexValue:
    """``gpu.block_id`` / ``grid_dim`` / ``thread_id`` along ``dim``."""
    loc = _user_loc(3)
    v = IndexValue(tr, tr.fresh(prefix + str(dim)))
    v.h = tr.b.gpu_index(kind, dim, tr.loc(loc, v.name))
    return v


def assume(cond: "Condition", message: str) -> None:
    """State a precondition of every launch (``argus.assume(K >= 64, "K >= 32 (S - 1)")``):
    the verifier proves the kernel under it and the compiled kernel traps when
    it does not hold. Must be called at the top level of the kernel body."""
    tr = _current_tracer()
    if not isinstance(cond, Condition):
        raise _err(TraceError, "argus.assume takes a comparison of index values "
                   f"(for example K >= 64), got {type(cond).__name__}")
    if tr.depth != 0:
        raise _err(TraceError, "argus.assume states a kernel precondition: call it at the "
                   "top level of the kernel, not inside a loop")
    tr.b.assume(cond.h, str(message), tr.loc(_user_loc(2)))


def assume_indices(tensor, below, distinct: bool = False, message: Optional[str] = None) -> None:
    """State what every launch guarantees about the entries of a 1-D integer
    tensor parameter that gathers and scatters take rows from
    (``argus.assume_indices(ids, below=Y.dim(0), distinct=True)``): each
    entry is in ``[0, below)`` and, with ``distinct``, no entry repeats.
    The verifier proves gathered rows in bounds and scattered rows written
    once from this declaration (without it those checks are unknown) and
    lists it among the kernel's assumptions; ``kernel[grid](...)`` checks
    the entries before each launch. Top level of the kernel body only."""
    from .values import TensorValue, _index_or_err
    tr = _current_tracer()
    if not isinstance(tensor, TensorValue):
        raise _err(TraceError, "argus.assume_indices declares the entries of a tensor "
                   f"parameter, got {type(tensor).__name__}",
                   hint="pass the index tensor the kernel takes, e.g. assume_indices(ids, ...)")
    spec = tensor.spec
    if len(spec.shape) != 1 or not str(spec.dtype).startswith(("i", "u")):
        raise _err(TraceError, f"argus.assume_indices expects a 1-D integer tensor, got "
                   f"{tensor.pyname} of shape {tuple(spec.shape)} and type {spec.dtype}")
    if tr.depth != 0:
        raise _err(TraceError, "argus.assume_indices states a kernel precondition: call it "
                   "at the top level of the kernel, not inside a loop")
    bound = _index_or_err(tr, below, "argus.assume_indices(below=...)")
    if message is None:
        message = (f"the entries of {tensor.pyname} are " + ("distinct and " if distinct else "")
                   + "below the bound")
    tr.b.assume_indices(tensor.h, bound.h, bool(distinct), str(message), tr.loc(_user_loc(2)))


def _for_target_name() -> Optional[str]:
    """The variable of the user's ``for NAME in argus.range(...)`` (the
    first one of ``for NAME, ... in loop``), read from the bytecode after
    the FOR_ITER the user's frame is executing; None when it is not a plain
    name (or the bytecode is not understood)."""
    import dis
    f = sys._getframe(1)
    while f is not None and not _is_user_frame(f):
        f = f.f_back
    if f is None:
        return None
    try:
        ins = list(dis.get_instructions(f.f_code))
        i = next(k for k, x in enumerate(ins) if x.offset >= f.f_lasti)
        for k in builtins.range(i, min(i + 3, len(ins))):  # (range is argus.range here)
            if ins[k].opname == "FOR_ITER":
                nxt = ins[k + 1]
                if nxt.opname == "UNPACK_SEQUENCE":
                    nxt = ins[k + 2]
                if nxt.opname in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
                    name = str(nxt.argval)
                    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else None
                return None
    except Exception:
        return None
    return None


#===------------------------------------------------------------------------===#
# Regions and loops
#===------------------------------------------------------------------------===#


# Probe records carry a region's ID in 32 bits (ProbeFormat.h).
_MAX_REGION_ID = 2**32 - 1


class region:
    """``with argus.region("mainloop"):`` brackets ops with region markers.
    IDs are assigned 1, 2, ... in order of appearance unless ``id`` is
    given; they are unique within a kernel."""

    def __init__(self, name: str, id: Optional[int] = None):
        self.name = name
        self.id = id
        self._loc = _user_loc(2)

    def __enter__(self):
        tr = _current_tracer()
        if self.id is None:
            while tr.next_region_id in tr.region_ids:
                tr.next_region_id += 1
            self.id = tr.next_region_id
        if isinstance(self.id, bool) or not isinstance(self.id, int) or self.id < 0:
            raise _err(TraceError, f"region id must be a non-negative int, got {self.id!r}",
                       self._loc)
        if self.id > _MAX_REGION_ID:
            # The op verifier's bound too (RegionMarkers.cpp); a larger int
            # would not even reach it (a 64-bit attribute).
            raise _err(TraceError, f"region id {self.id} does not fit the 32-bit region_id of "
                       f"a probe record (at most {_MAX_REGION_ID})", self._loc,
                       hint="choose IDs below 2**32")
        # An ID used twice is the op verifier's (RegionBeginOp::verify).
        tr.region_ids[self.id] = self.name
        tr.b.region_begin(str(self.name), self.id, tr.loc(self._loc))
        tr.region_stack.append((self.id, self.name))
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            return False
        tr = _current_tracer()
        tr.region_stack.pop()
        tr.b.region_end(self.id, tr.loc(_user_loc(2)))
        return False


class when:
    """``with argus.when(cond):`` traces the body into an ``scf.if`` without
    results: it runs when the traced condition (``kt.ne(0)``, ``i < n``,
    combined with ``&`` and ``|``) holds. Values defined inside stay inside."""

    def __init__(self, cond: Condition):
        self._loc = _user_loc(2)
        if not isinstance(cond, Condition):
            raise _err(TraceError, "argus.when takes a traced condition of index values (for "
                       f"example kt.ne(0) or i < n), got {cond!r}", self._loc)
        self.cond = cond
        self._entered = False

    def __enter__(self):
        if self._entered:
            raise _err(TraceError, "an argus.when can be entered only once", self._loc)
        self._entered = True
        tr = self._tr = _current_tracer()
        tr.b.begin_if(self.cond.h, tr.loc(self._loc))
        tr.enter()
        return self

    def __exit__(self, et, ev, tb):
        tr = self._tr
        tr.leave()
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

    def __init__(self, lo, hi=None, step=1, carry=None, name: Optional[str] = None):
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
        self._named = name is not None
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
        tr = _current_tracer()
        lo = _index_or_err(tr, self.lo, "the loop lower bound")
        hi = _index_or_err(tr, self.hi, "the loop upper bound")
        st = _index_or_err(tr, self.step, "the loop step")
        init = []
        for i, v in enumerate(self.init):
            if isinstance(v, int) and not isinstance(v, bool):
                v = _const(tr, v, self._loc)  # an index counter starting at a constant
            if not isinstance(v, (Tile, IndexValue)):
                raise _err(TraceError, f"loop-carried value {i} must be a tile, an index or an "
                           f"int, got {v!r}", self._loc)
            init.append(v)
        self.init = tuple(init)
        if self.iv_name is None:
            self.iv_name = _for_target_name()
        iv = IndexValue(tr, tr.fresh(self.iv_name or "i"))
        self._args = []
        for v in self.init:
            if isinstance(v, Tile):
                a = Tile(tr, tr.fresh(v.name.lstrip("%") + "_i"), v.ttype)
            else:
                a = IndexValue(tr, tr.fresh("ia"))
            self._args.append(a)
        # The induction variable's name (a NameLoc) also names the loop in
        # the verifier's counterexamples; the loop's results are %loop.
        rname = tr.fresh("loop") if self.init else ""
        hs = tr.b.begin_for(lo.h, hi.h, st.h, [v.h for v in self.init], tr.loc(self._loc, rname),
                            tr.loc(self._loc, self.iv_name or ""),
                            [tr.loc(self._loc, a.name) for a in self._args])
        iv.h = hs[0]
        for a, h in zip(self._args, hs[1:]):
            a.h = h
        tr.enter()
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
        if self.init:
            tr.b.yield_([v.h for v in self._next], tr.loc(self._loc))
        hs = tr.leave()
        results = []
        if self.init:
            n = len(self.init)
            for i, (a, nv, h) in enumerate(zip(self._args, self._next, hs)):
                nm = f"{rname}#{i}" if n > 1 else rname
                if isinstance(a, Tile):
                    results.append(Tile(tr, nm, a.ttype, h=h))
                else:
                    results.append(IndexValue(tr, nm, h=h))
        self.results = (results[0] if self._single else tuple(results)) if self.init else None


def pipeline(n, load, compute, carry, stages: int = 2, name: Optional[str] = "kt",
             wait: Optional[int] = None):
    """A software-pipelined loop over ``n`` slabs through ``stages`` shared
    stages (Triton's ``num_stages``), traced as ``argus.range`` loops:

    * ``load(k, s)`` issues the asynchronous copies of slab ``k`` into
      stage ``s`` (``argus.copy_async``; the pipeline commits the group);
    * ``compute(k, s, carry)`` reads stage ``s`` for slab ``k`` and returns
      the next carried value(s) (a value or a tuple, like ``carry``).

    Slabs 0 .. S - 2 are issued before the loop; iteration ``kt`` waits
    until slab ``kt`` has landed (``wait_group(S - 2)``: the S - 2 newer
    groups may stay in flight; ``wait`` overrides the depth), passes a
    barrier (every thread is past slab kt - 1's compute, whose stage the
    next load refills), issues slab ``kt + S - 1`` into stage
    ``(kt + S - 1) % S`` and computes slab ``kt``. The loop issues S - 1
    slabs past ``n``: ``load`` must read nothing there (clipped views,
    which read zeros past the tensor; the verifier's bounds checks hold it
    to that), which also makes any ``n`` >= 0 work. ``stages=1`` copies,
    waits and computes one slab at a time. Returns the loop's results::

        def load(k, s):
            argus.copy_async(argus.tag(argus.view(A, (m0, k * 32), (64, 32), clipped=True),
                                       lambda m, kk: (m0 + m, k * 32 + kk)), sa[s])
        def compute(k, s, acc):
            return argus.mma(instr, argus.load(sa[s], layout=FA), ..., acc)
        acc = argus.pipeline(argus.cdiv(K, 32), load, compute, carry=acc, stages=3)
    """
    from .memory import barrier, commit_group, wait_group
    loc = _user_loc(2)
    if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1:
        raise _err(TraceError, f"argus.pipeline needs stages >= 1 (an int), got {stages!r}", loc)
    if wait is not None and (isinstance(wait, bool) or not isinstance(wait, int) or wait < 0):
        raise _err(TraceError, f"argus.pipeline's wait must be an int >= 0, got {wait!r}", loc)
    S = stages
    if S == 1:
        loop = range(0, n, carry=carry, name=name)
        for kt, c in loop:
            load(kt, 0)
            commit_group()
            wait_group(0 if wait is None else wait)
            barrier()
            c = compute(kt, 0, c)
            barrier()
            loop.carry(c)
        return loop.results
    # A traced prologue loop: the slab index stays a symbol of the views'
    # tag maps, as in the main loop (a Python constant would be folded in).
    for p in range(0, S - 1, name=f"{name}_fill" if name else None):
        load(p, p)
        commit_group()
    loop = range(0, n, carry=carry, name=name)
    for kt, c in loop:
        wait_group(S - 2 if wait is None else wait)
        barrier()
        kn = kt + (S - 1)
        load(kn, kn % S)
        commit_group()
        loop.carry(compute(kt, kt % S, c))
    wait_group(0)
    return loop.results
