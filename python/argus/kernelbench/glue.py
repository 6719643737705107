"""What a solution's ``forward`` may do besides launching Argus kernels.

Every ATen operator that runs during ``forward`` outside a kernel launch is
seen through a ``TorchDispatchMode`` (the layer below every torch function,
method and operator, so a torch op cannot hide behind a helper's name) and
classified:

* ``view``: views and reshapes (no data moves);
* ``alloc``: allocation and initialisation of new tensors (``empty``,
  ``zeros``, ``full``, ``fill_``/``zero_`` of a tensor allocated in this
  call);
* ``copy``: same-device, same-dtype copies (``clone``, ``contiguous``,
  ``copy_``) and metadata queries;
* anything else is a *torch op*: compute (``relu``, ``mm``, a dtype
  conversion), a host transfer (``.cpu()``, ``.item()``), an in-place write
  into a tensor the call did not allocate. Torch ops reject the solution
  unless named in ``allow`` (``--allow-torch-op aten.relu``), and allowed ones
  are reported separately.

Operators run inside a kernel launch (the launcher's own host copies, the
recorder suspends the monitor there) are not glue.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, List, Optional, Set

# ATen overload packets (``func.overloadpacket.__name__`` without the
# namespace) by class.
VIEW_OPS = frozenset("""
view _unsafe_view _reshape_alias reshape view_as t transpose permute unsqueeze squeeze
flatten unflatten expand expand_as slice select narrow as_strided alias detach split
split_with_sizes unbind chunk movedim swapaxes swapdims unfold diagonal view_as_real
view_as_complex lift_fresh
""".split())
ALLOC_OPS = frozenset("""
empty empty_like empty_strided new_empty new_empty_strided zeros zeros_like new_zeros
ones ones_like new_ones full full_like new_full scalar_tensor
""".split())
# Ops that write only into their first argument: glue when that tensor was
# allocated in this call (initialising an output), a torch op otherwise.
INIT_OPS = frozenset("zero_ fill_".split())
COPY_OPS = frozenset("clone contiguous copy_ sym_size sym_stride sym_numel "
                     "sym_storage_offset is_contiguous".split())


def op_name(func) -> str:
    """``aten.relu`` for the overload ``aten.relu.default``."""
    packet = getattr(func, "overloadpacket", None)
    name = getattr(packet, "__name__", None) or str(func).split(".")[-2]
    ns = getattr(func, "namespace", "aten")
    return f"{ns}.{name}"


@dataclasses.dataclass
class GlueReport:
    """The glue of one call: counts per class and op, the torch ops that
    were allowed, and the rejected ones with a reason each."""
    counts: Dict[str, int] = dataclasses.field(default_factory=dict)
    allowed_torch_ops: Dict[str, int] = dataclasses.field(default_factory=dict)
    rejected: List[str] = dataclasses.field(default_factory=list)
    # address ranges of the results of allowed torch ops (outputs may come from them)
    torch_results: List[tuple] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rejected

    def to_dict(self) -> dict:
        return {"counts": dict(self.counts), "allowed_torch_ops": dict(self.allowed_torch_ops),
                "rejected": list(self.rejected), "torch_results": list(self.torch_results)}


def _tensors(x) -> Iterable:
    import torch
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _tensors(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _tensors(y)


def _storage_key(t) -> int:
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:  # torch < 2.0
        return t.storage().data_ptr()


def classify(func, args, kwargs, fresh: Set[int]) -> Optional[str]:
    """The class of one ATen call ("view", "alloc", "copy") or None for a
    torch op; ``fresh`` holds the storages allocated in this call."""
    import torch
    name = op_name(func).split(".", 1)[1]
    if name in VIEW_OPS or name in ALLOC_OPS:
        return "view" if name in VIEW_OPS else "alloc"
    if name in INIT_OPS:
        return "alloc" if args and _storage_key(args[0]) in fresh else None
    if name in COPY_OPS:
        if name == "copy_" and len(args) >= 2:
            dst, src = args[0], args[1]
            if not isinstance(src, torch.Tensor) or dst.dtype != src.dtype or \
                    dst.device != src.device or _storage_key(dst) not in fresh:
                return None  # a conversion, a transfer or a write into a tensor not ours
        return "copy"
    if name == "_to_copy":
        src = args[0] if args else None
        kw = kwargs or {}
        same = isinstance(src, torch.Tensor) and \
            kw.get("dtype", src.dtype) in (None, src.dtype) and \
            (kw.get("device") is None or torch.device(kw["device"]) == src.device)
        return "copy" if same else None
    return None


def _reason(name, args, kwargs) -> str:
    kw = kwargs or {}
    if name == "aten._local_scalar_dense":
        return "reads tensor data on the host"
    if name == "aten._to_copy":
        src = args[0] if args else None
        if kw.get("device") is not None and getattr(src, "device", None) is not None and \
                str(kw["device"]) != str(src.device):
            return "a transfer between devices"
        return "a dtype conversion"
    if name in ("aten.copy_", "aten.zero_", "aten.fill_"):
        return "a write into a tensor this call did not allocate, or a conversion"
    return "compute"


class GlueMonitor:
    """``with GlueMonitor(allow) as g: model(*inputs)``; then ``g.report``.
    ``suspended()`` is a context in which nothing is recorded (kernel
    launches)."""

    def __init__(self, allow: Iterable[str] = ()):
        self.allow = {a if a.startswith(("aten.", "prims.")) or "." in a else "aten." + a
                      for a in allow}
        self.report = GlueReport()
        self._fresh: Set[int] = set()
        self._suspend = 0
        self._mode = None

    def _record(self, func, args, kwargs, out) -> None:
        cls = classify(func, args, kwargs, self._fresh)
        name = op_name(func)
        if cls is None:
            if name in self.allow:
                self.report.allowed_torch_ops[name] = self.report.allowed_torch_ops.get(name, 0) + 1
                cls = "torch"
            else:
                why = _reason(name, args, kwargs)
                msg = f"{name} ({why}) runs in forward outside an Argus kernel"
                if msg not in self.report.rejected:
                    self.report.rejected.append(msg)
                cls = "rejected"
        self.report.counts[cls] = self.report.counts.get(cls, 0) + 1
        if cls in ("alloc", "copy", "torch") and name.split(".")[1] not in INIT_OPS:
            for t in _tensors(out):
                self._fresh.add(_storage_key(t))
                if cls == "torch":  # an allowed op's result may be an output
                    p = t.data_ptr()
                    self.report.torch_results.append((p, p + t.numel() * t.element_size()))

    def __enter__(self):
        from torch.utils._python_dispatch import TorchDispatchMode
        monitor = self

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                if not monitor._suspend:
                    monitor._record(func, args, kwargs, out)
                return out

        self._mode = _Mode()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        self._mode.__exit__(*exc)
        return False

    def suspended(self):
        monitor = self

        class _S:
            def __enter__(self):
                monitor._suspend += 1

            def __exit__(self, *exc):
                monitor._suspend -= 1
                return False
        return _S()
