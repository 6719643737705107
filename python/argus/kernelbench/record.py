"""Recording the kernel launches of a solution's ``forward``.

``Recorder`` hooks ``kernel[grid](...)`` (``argus.launch._launch_hooks``): no
source is parsed, every launch of every Argus kernel object is seen as it
happens, with the variant launched (its IR, hence what the proof is about),
the grid, and each argument (tensors by shape, dtype and address, so the
harness can tell which tensors a launch wrote). What happens to the launch
is the executor's:

* ``capture``: nothing runs (no GPU here): outputs stay as allocated;
* ``gpu``: the variant is exported once (``argus.aot``) and launched on the
  device tensors, asynchronously on the current stream (``kernel[grid]``'s
  own path with ``$ARGUS_AOT_PATH``);
* a Python callable ``execute(variant, grid, bound)`` that computes the
  kernel's outputs on the arguments in place: the hook for the CPU
  interpreter (``argus.kernelbench.executors``), and the tests' fakes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import tempfile
from typing import Any, Callable, Dict, List, Optional

from .. import launch as _launch
from ..compile import RunResult


def ir_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclasses.dataclass
class LaunchRecord:
    call: int                 # which forward call (0, 1, ...)
    kernel: str               # the kernel's name
    variant: str              # argus.aot.variant_name
    ir_hash: str
    target: str
    grid: Optional[List[int]]  # None: the kernel's grid rule
    args: List[dict]          # per parameter: tensor {name, shape, dtype, ptr, nbytes} or value
    meta: Dict[str, Any] = dataclasses.field(default_factory=dict)  # named dims, index values

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _arg_record(name, ann, val) -> dict:
    if hasattr(ann, "shape"):
        d = {"name": name, "kind": "tensor", "shape": [int(n) for n in getattr(val, "shape", ())],
             "dtype": str(getattr(val, "dtype", "?")).replace("torch.", "")}
        if hasattr(val, "data_ptr"):
            d["ptr"] = int(val.data_ptr())
            d["nbytes"] = int(val.numel() * val.element_size())
            d["device"] = str(val.device)
        elif hasattr(val, "__array_interface__"):
            d["ptr"] = int(val.__array_interface__["data"][0])
            d["nbytes"] = int(val.nbytes)
            d["device"] = "numpy"
        return d
    v = val.item() if hasattr(val, "item") else val
    return {"name": name, "kind": "value", "value": v}


class Recorder:
    """``with Recorder(executor) as r: out = model(*inputs)``; ``r.launches``
    are this recorder's :class:`LaunchRecord` s, ``r.ir`` maps IR hashes to
    the IR text, ``r.variants`` IR hashes to the kernel variants.
    ``monitor`` (a GlueMonitor) is suspended during each launch."""

    def __init__(self, executor: Any = "capture", monitor=None, export_dir: Optional[str] = None,
                 exported: Optional[set] = None, record: bool = True):
        self.executor = executor
        self.monitor = monitor
        self.call = 0
        self.launches: List[LaunchRecord] = []
        self.ir: Dict[str, str] = {}
        self.variants: Dict[str, Any] = {}
        self._hash_of: Dict[int, str] = {}
        self._export_dir = export_dir
        # IR hashes already exported to export_dir (share the set across
        # recorders of one process: each export compiles)
        self._exported: set = set() if exported is None else exported
        self.findings: List[str] = []
        # record=False (timing): no launch records, only the exports, so that
        # the harness adds no per-launch work to the solution's time
        self.record = record
        self._ready: set = set()

    def _hash(self, variant) -> str:
        h = self._hash_of.get(id(variant))
        if h is None:
            from .. import aot
            from ..ir import _argus
            if _argus is None:
                # a GPU host without the extension: the variant is known by
                # its export's name; its proof comes from the prepared batch
                h = "aot:" + aot.variant_name(variant)
            else:
                text = variant.ir()
                h = ir_hash(text)
                self.ir[h] = text
            self._hash_of[id(variant)] = h
            self.variants[h] = variant
        return h

    def _hook(self, variant, grid, bound, run):
        from .. import aot
        if not self.record and self.executor == "gpu" and id(variant) in self._ready:
            return run()
        ctx = self.monitor.suspended() if self.monitor is not None else contextlib.nullcontext()
        with ctx:
            h = self._hash(variant)
            g = None
            if grid is not None:
                g = list(_launch._grid(grid, dict(bound.meta, block=variant.block), variant))
            self.launches.append(LaunchRecord(
                self.call, variant.name, aot.variant_name(variant), h, variant.target, g,
                [_arg_record(n, a, v) for n, a, v in bound.values],
                {k: v for k, v in bound.meta.items() if isinstance(v, int)
                 and not isinstance(v, bool) and k not in bound.constexprs}))
            if self.executor == "capture":
                return RunResult({"launch": "recorded, not executed"}, None, None, [], {})
            if self.executor == "gpu":
                import torch
                if torch.cuda.current_stream() != torch.cuda.default_stream():
                    # events on the default stream would not time it: refused
                    self.findings.append(f"{variant.name} launched on a non-default CUDA "
                                         "stream")
                if h not in self._exported and aot.find(variant) is None:
                    if self._export_dir is None:
                        self._export_dir = tempfile.mkdtemp(prefix="argus-kb-aot-")
                    aot.export(variant, self._export_dir)
                    path = os.environ.get("ARGUS_AOT_PATH", "")
                    if self._export_dir not in path.split(os.pathsep):
                        os.environ["ARGUS_AOT_PATH"] = self._export_dir + \
                            (os.pathsep + path if path else "")
                    self._exported.add(h)
                self._ready.add(id(variant))
                return run()
            execute: Callable = self.executor
            execute(variant, g, bound)
            return RunResult({"launch": "executed by " + getattr(execute, "__name__", "?")},
                             None, None, [], {})

    def __enter__(self):
        _launch._launch_hooks.append(self._hook)
        return self

    def __exit__(self, *exc):
        _launch._launch_hooks.remove(self._hook)
        return False
