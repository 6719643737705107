"""Hopper (sm_90a) asynchronous constructs: TMA tensor maps and bulk tensor
copies (``tensor_map``, ``tma_load``, ``tma_store``, ``tma_store_wait``),
mbarrier rings (``mbarrier``,
``ring[stage]``, ``mbarrier_arrive``, ``mbarrier_arrive_expect_tx``,
``mbarrier_wait``, ``fence_proxy_async``), warp roles with register budgets
(``with role("producer", warps=(0, 4), regs=40):``) and asynchronous wgmma
(``mma_async``, ``wgmma_commit``, ``wgmma_wait``).

Python only checks what it needs to write the IR (the kinds of the
arguments); the rules of each op (top-level placement, TMA placement and box
sizes, parity 0/1, role warp ranges and register budgets, wgmma operands)
are the C++ op verifiers', and their diagnostics come back at the user's
line. The protocol (which phase a wait observes, transaction bytes, stage
release after retirement) is the tag verifier's.
"""

from __future__ import annotations

from typing import Optional, Sequence

from ..errors import TraceError
from ._tracer import _current_tracer, _err, _user_loc
from .types import _shape, _shs
from .values import (TensorValue, Tile, Value, _index_or_err, _need_tile,
                     _new_tile)

#===------------------------------------------------------------------------===#
# Values
#===------------------------------------------------------------------------===#


class TensorMap(Value):
    """A TMA descriptor over a tensor parameter (``argus.tensor_map``): the
    box one bulk copy moves (outermost dimension first), the element type
    and the shared-memory swizzle in bytes."""

    def __init__(self, tracer, name, tensor: TensorValue, box, swizzle: int, pyname: str):
        super().__init__(tracer, name)
        self.tensor = tensor
        self.box = box
        self.swizzle = swizzle
        self.pyname = pyname

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def type_str(self):
        return f"!argus.tensor_map<{_shs(self.box)}x{self.dtype}, swizzle = {self.swizzle}>"

    def __repr__(self):
        return f"<tensor_map {self.pyname} {self.type_str}>"


class MBarrier(Value):
    """A ring of ``stages`` mbarriers in shared memory (``argus.mbarrier.alloc``);
    ``ring[s]`` is the barrier of stage ``s`` that the mbarrier ops and
    ``tma_load`` take."""

    def __init__(self, tracer, name, stages: int, arrivals: int, pyname: str):
        super().__init__(tracer, name)
        self.stages = stages
        self.arrivals = arrivals
        self.pyname = pyname

    @property
    def type_str(self):
        return f"!argus.mbarrier<{self.stages}>"

    def __getitem__(self, stage) -> "BarrierSlot":
        return BarrierSlot(self, stage)

    def __repr__(self):
        return f"<mbarrier {self.pyname} {self.type_str}>"


class BarrierSlot:
    """``ring[stage]``: one barrier of a ring (nothing is emitted until an op
    uses it; ``stage`` is an int or a traced index)."""

    def __init__(self, ring: MBarrier, stage):
        self.ring = ring
        self.stage = stage

    def __repr__(self):
        return f"<{self.ring.pyname}[{getattr(self.stage, 'name', self.stage)}]>"


def _slot(x, what: str, loc):
    """``(ring, stage index value)`` of a ``ring[stage]`` argument."""
    if isinstance(x, MBarrier):
        raise _err(TraceError, f"{what} takes one barrier of the ring: "
                   f"{x.pyname}[stage], not the whole ring", loc)
    if not isinstance(x, BarrierSlot):
        raise _err(TraceError, f"{what} takes a barrier of an mbarrier ring "
                   f"(ring[stage] of argus.mbarrier(...)), got {x!r}", loc)
    tr = _current_tracer()
    return x.ring, _index_or_err(tr, x.stage, f"the stage of {x.ring.pyname}")


def _bulk_copy_operands(op: str, src, dst, tmap, loc) -> None:
    """The kinds of a bulk tensor copy's operands: two memory tiles and a
    tensor map."""
    _need_tile(src, f"the {op} source", loc, memory=True)
    _need_tile(dst, f"the {op} destination", loc, memory=True)
    if not isinstance(tmap, TensorMap):
        raise _err(TraceError, f"{op} needs a tensor map (argus.tensor_map(...)), got "
                   f"{tmap!r}", loc)


def _pending_groups(pending, op: str, loc) -> int:
    """The group count of a wait (``wgmma_wait``, ``tma_store_wait``)."""
    if isinstance(pending, bool) or not isinstance(pending, int) or pending < 0:
        raise _err(TraceError, f"{op} needs a non-negative int, got {pending!r}", loc)
    return pending


def _int_attr(x, what: str, loc) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise _err(TraceError, f"{what} must be a Python int, got {x!r}", loc)
    return x


#===------------------------------------------------------------------------===#
# TMA
#===------------------------------------------------------------------------===#


def tensor_map(tensor: TensorValue, box, swizzle: int = 128,
               name: Optional[str] = None) -> TensorMap:
    """The TMA descriptor of a tensor parameter (``argus.tensor_map``), at the
    top level of the kernel: each bulk copy through it moves a ``box``
    (outermost dimension first) into shared memory swizzled by ``swizzle``
    bytes (0, 32, 64 or 128). The host encodes it from the tensor argument."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(tensor, TensorValue):
        raise _err(TraceError, f"argus.tensor_map describes a tensor parameter, got {tensor!r}",
                   loc)
    box = _shape(box, "the tensor-map box")
    _int_attr(swizzle, "the tensor-map swizzle", loc)
    nm = name or tensor.pyname
    m = TensorMap(tr, tr.fresh("tm" + tensor.pyname), tensor, box, swizzle, nm)
    m.h = tr.b.tensor_map(nm, tensor.h, tr.type(m.type_str, loc), tr.loc(loc, m.name))
    return m


def tma_load(src: Tile, dst: Tile, tmap: TensorMap, barrier: BarrierSlot,
             multicast: bool = False) -> None:
    """Bulk tensor copy of the global tile ``src`` (a view of ``tmap``'s
    tensor, possibly tagged) into the shared tile ``dst`` (``argus.tma_load``),
    completing on ``barrier`` (``ring[stage]``): its bytes count towards the
    transaction bytes of that barrier's current phase, announced by
    ``mbarrier_arrive_expect_tx``. Read ``dst`` only after a wait on the phase.
    ``multicast`` (a kernel with ``cluster``): the blocks of the cluster load
    the tile together, each issuing a share of the boxes, delivered to
    ``dst`` and ``barrier`` in every block; release such a stage with
    ``mbarrier_arrive(..., cluster=True)``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _bulk_copy_operands("tma_load", src, dst, tmap, loc)
    ring, s = _slot(barrier, "tma_load's barrier", loc)
    if not isinstance(multicast, bool):
        raise _err(TraceError, f"tma_load's multicast must be True or False, got "
                               f"{multicast!r}", loc)
    tr.op("argus.tma_load", [src, dst, tmap, ring, s], [], loc,
          unit_attrs=("multicast",) if multicast else ())


def tma_store(src: Tile, dst: Tile, tmap: TensorMap) -> None:
    """Bulk tensor copy of the shared tile ``src`` into the global tile
    ``dst`` (a view of ``tmap``'s tensor, possibly tagged and clipped: the
    copy writes only what lies inside the tensor), ``argus.tma_store``. One
    thread issues it as a bulk group that reads ``src`` until
    ``tma_store_wait`` retires it: fence the writes of ``src``
    (``fence_proxy_async``) and ``barrier()`` before it, and wait (then
    ``barrier()``) before ``src`` is written again."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _bulk_copy_operands("tma_store", src, dst, tmap, loc)
    tr.op("argus.tma_store", [src, dst, tmap], [], loc)


def tma_store_wait(pending: int = 0) -> None:
    """Wait until every bulk store group but the ``pending`` most recent has
    finished reading shared memory (``argus.tma_store_wait``, by the issuing
    thread: follow it with ``barrier()`` before other threads rewrite the
    source). Every bulk store must be retired so before its role ends."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _pending_groups(pending, "tma_store_wait", loc)
    tr.b.tma_store_wait(pending, tr.loc(loc))


#===------------------------------------------------------------------------===#
# mbarriers
#===------------------------------------------------------------------------===#


def mbarrier(name: str, stages: int, arrivals: int) -> MBarrier:
    """A ring of ``stages`` mbarriers, each expecting ``arrivals`` arrivals
    per phase (``argus.mbarrier.alloc``), at the top level of the kernel
    before any role. ``ring[s]`` is stage ``s``'s barrier."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(name, str):
        raise _err(TraceError, f"the mbarrier ring's name must be a string, got {name!r}", loc)
    _int_attr(stages, "the number of mbarrier stages", loc)
    _int_attr(arrivals, "the mbarrier arrival count", loc)
    ring = MBarrier(tr, tr.fresh(name or "mbar"), stages, arrivals, name)
    ring.h = tr.b.mbarrier_alloc(name, arrivals, tr.type(ring.type_str, loc),
                                 tr.loc(loc, ring.name))
    return ring


def mbarrier_arrive(barrier: BarrierSlot, cluster: bool = False) -> None:
    """Every thread of the executing role arrives once on ``ring[stage]``
    (release: its earlier shared accesses, and the wgmma reads retired by
    an earlier ``wgmma_wait``, happen before the phase completes). With
    ``cluster`` (a kernel with ``cluster``), on that barrier in every block
    of the cluster: each block's phase then counts the arrivals of all."""
    tr = _current_tracer()
    loc = _user_loc(2)
    ring, s = _slot(barrier, "mbarrier_arrive", loc)
    if not isinstance(cluster, bool):
        raise _err(TraceError, f"mbarrier_arrive's cluster must be True or False, got "
                               f"{cluster!r}", loc)
    tr.op("argus.mbarrier.arrive", [ring, s], [], loc,
          unit_attrs=("cluster",) if cluster else ())


def mbarrier_arrive_expect_tx(barrier: BarrierSlot, bytes: int) -> None:  # noqa: A002
    """One thread of the executing role announces ``bytes`` transaction
    bytes on ``ring[stage]``'s current phase and arrives once."""
    tr = _current_tracer()
    loc = _user_loc(2)
    ring, s = _slot(barrier, "mbarrier_arrive_expect_tx", loc)
    _int_attr(bytes, "the expected transaction bytes", loc)
    tr.b.arrive_expect_tx(ring.h, s.h, bytes, tr.loc(loc))


def mbarrier_wait(barrier: BarrierSlot, parity) -> None:
    """Wait until the phase of ``ring[stage]`` with parity ``parity`` (0 or
    1, an int or a traced index) has completed. A ring of S stages used in
    order has parity ``(i // S) % 2`` at iteration ``i``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    ring, s = _slot(barrier, "mbarrier_wait", loc)
    p = _index_or_err(tr, parity, "the mbarrier_wait parity")
    tr.op("argus.mbarrier.wait", [ring, s, p], [], loc)


def _named_barrier(sync: bool, slot, threads: int) -> None:
    tr = _current_tracer()
    loc = _user_loc(3)
    op = "named_barrier_sync" if sync else "named_barrier_arrive"
    s = _index_or_err(tr, slot, f"the {op} slot")
    _int_attr(threads, f"the {op} thread count", loc)
    if threads <= 0 or threads % 32 or threads > 1024:
        raise _err(TraceError, f"{op} counts whole warps (a multiple of 32 up to 1024), got "
                   f"{threads}", loc)
    tr.b.named_barrier(sync, s.h, threads, tr.loc(loc))


def named_barrier_sync(slot, threads: int) -> None:
    """``bar.sync``: wait at named barrier ``slot`` (0-7, an int or a traced
    index such as the warpgroup) until ``threads`` threads have arrived, these
    included. For issue scheduling between warpgroups (a ping-pong): the
    verifier gives named barriers no ordering, so proofs never rest on them
    (order data with ``barrier()`` or mbarriers)."""
    _named_barrier(True, slot, threads)


def named_barrier_arrive(slot, threads: int) -> None:
    """``bar.arrive``: count towards the ``threads`` arrivals that
    ``named_barrier_sync(slot, threads)`` waits for, without waiting."""
    _named_barrier(False, slot, threads)


def fence_proxy_async() -> None:
    """``fence.proxy.async.shared::cta``: this thread's ordinary shared
    writes become visible to later TMA / wgmma reads once a barrier or an
    mbarrier phase orders them."""
    tr = _current_tracer()
    tr.op("argus.fence_proxy_async", [], [], _user_loc(2))


#===------------------------------------------------------------------------===#
# Warp roles
#===------------------------------------------------------------------------===#


class role:
    """``with argus.role("producer", warps=(0, 4), regs=40):`` — the body runs
    on warps ``[first, end)`` of the block only (``argus.role``); thread
    indices inside count from the role's first thread. ``regs`` sets the
    role's per-thread register budget (``setmaxnreg``; whole warpgroups).
    Roles sit at the top level of the kernel, are disjoint, and talk only
    through mbarriers (a block-wide ``barrier()`` inside one is rejected)."""

    def __init__(self, name: str, warps: Sequence[int], regs: Optional[int] = None):
        self._loc = _user_loc(2)
        if not isinstance(name, str):
            raise _err(TraceError, f"the role name must be a string, got {name!r}", self._loc)
        if (not isinstance(warps, (tuple, list)) or len(warps) != 2 or
                any(isinstance(w, bool) or not isinstance(w, int) for w in warps)):
            raise _err(TraceError, "role warps are a pair of Python ints (first, end): warps "
                       f"first .. end - 1 run the body, got {warps!r}", self._loc)
        if regs is not None:
            _int_attr(regs, "the role's register budget", self._loc)
        self.name = name
        self.warps = (warps[0], warps[1])
        self.regs = regs
        self._entered = False

    def __enter__(self):
        if self._entered:
            raise _err(TraceError, "an argus.role can be entered only once", self._loc)
        self._entered = True
        tr = _current_tracer()
        tr.b.begin_role(self.name, self.warps[0], self.warps[1], self.regs, tr.loc(self._loc))
        tr.enter()
        self._tr = tr
        warp = 64 if tr.target.startswith("gfx") else 32
        tr.role_threads.append((self.warps[1] - self.warps[0]) * warp)
        return self

    def __exit__(self, et, ev, tb):
        tr = self._tr
        tr.role_threads.pop()
        tr.leave()
        return False


#===------------------------------------------------------------------------===#
# Asynchronous wgmma
#===------------------------------------------------------------------------===#


def mma_async(instr: str, a: Tile, b: Tile, acc: Tile) -> Tile:
    """Issue ``acc + a @ b`` with a ``wgmma`` instruction without waiting
    (``argus.mma_async``): the result is pending, and ``a``/``b`` (shared
    tiles) are still read, until a ``wgmma_wait`` retires its group
    (closed by ``wgmma_commit``). Until then the result may only feed
    another ``mma_async`` (as ``acc``) or ``wgmma_wait``."""
    tr = _current_tracer()
    loc = _user_loc(2)
    if not isinstance(instr, str):
        raise _err(TraceError, f"the instruction name must be a string, got {instr!r}", loc)
    _need_tile(a, "mma_async operand a", loc)
    _need_tile(b, "mma_async operand b", loc)
    _need_tile(acc, "the mma_async accumulator", loc, memory=False)
    t = _new_tile(tr, "acc", acc.ttype)
    t.h = tr.b.mma(True, instr, a.h, b.h, acc.h, tr.loc(loc, t.name))
    return t


def wgmma_commit() -> None:
    """Close the current group of ``mma_async`` ops (``wgmma.commit_group``)."""
    tr = _current_tracer()
    tr.op("argus.wgmma_commit", [], [], _user_loc(2))


def wgmma_wait(pending: int, *values: Tile):
    """Retire every wgmma group but the ``pending`` most recent ones
    (``argus.wgmma_wait``). ``values`` are accumulators of retired groups;
    the results are the same values, ready to use (one tile, a tuple of
    several, or None without values)."""
    tr = _current_tracer()
    loc = _user_loc(2)
    _pending_groups(pending, "wgmma_wait", loc)
    if len(values) == 1 and isinstance(values[0], (tuple, list)):
        values = tuple(values[0])
    for i, v in enumerate(values):
        _need_tile(v, f"wgmma_wait value {i}", loc, memory=False)
    if not values:
        tr.b.wgmma_wait(pending, [], tr.loc(loc))
        return None
    base = tr.fresh("ready")
    n = len(values)
    outs = []
    for i, v in enumerate(values):
        nm = f"{base}#{i}" if n > 1 else base
        t = Tile(tr, nm, v.ttype)
        outs.append(t)
    for t, h in zip(outs, tr.b.wgmma_wait(pending, [v.h for v in values],
                                          tr.loc(loc, base))):
        t.h = h
    return outs[0] if n == 1 else tuple(outs)
