"""The solution's process.

The harness (argus.kernelbench.harness) never imports the solution: it
starts this worker (``multiprocessing``, spawned: a fresh interpreter) and
sends it commands over a pipe. The worker builds ``ModelNew``, runs
``forward`` on the inputs the harness sends (fresh ones every trial) under
the glue monitor and the launch recorder, and reports what it saw: the
outputs, the launches, the glue, state that changed across the call, inputs
the call wrote into, outputs that alias an input, the model's tensors or an
earlier call's output. The harness judges; the worker only observes.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any, Dict, List, Tuple

# Attributes of torch.nn.Module that are its machinery, not the model's state.
_MODULE_INTERNALS = frozenset("""
_parameters _buffers _modules training _backward_hooks _backward_pre_hooks _forward_hooks
_forward_pre_hooks _forward_hooks_with_kwargs _forward_pre_hooks_with_kwargs
_forward_hooks_always_called _state_dict_hooks _state_dict_pre_hooks _load_state_dict_pre_hooks
_load_state_dict_post_hooks _non_persistent_buffers_set _is_full_backward_hook
_compiled_call_impl
""".split())


def _is_argus_object(v) -> bool:
    mod = type(v).__module__ or ""
    return mod == "argus" or mod.startswith("argus.")


def fingerprint(v, depth: int = 3, seen=None):
    """A value's identity and contents, as far as they can change without
    its ``id`` changing: a tensor's address and version counter, a
    container's items, an object's attributes. Argus kernel objects (their
    variant caches) are left out."""
    seen = set() if seen is None else seen
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
        return ("v", repr(v)[:200])
    if _is_argus_object(v) or id(v) in seen:
        return ("id", id(v))
    seen = seen | {id(v)}
    try:
        import torch
        if isinstance(v, torch.Tensor):
            return ("t", v.data_ptr(), v._version, tuple(v.shape), str(v.dtype))
    except ImportError:
        pass
    if hasattr(v, "__array_interface__"):
        return ("a", v.__array_interface__["data"][0], getattr(v, "shape", None),
                hash(v.tobytes()) if getattr(v, "nbytes", 1 << 30) < (1 << 20) else None)
    if depth <= 0:
        return ("id", id(v))
    if isinstance(v, dict):
        return ("d", id(v), tuple((repr(k)[:80], fingerprint(x, depth - 1, seen))
                                  for k, x in list(v.items())[:64]), len(v))
    if isinstance(v, (list, tuple, set, frozenset)):
        items = list(v)[:64] if not isinstance(v, (set, frozenset)) else sorted(map(repr, v))[:64]
        return ("l", id(v), len(v), tuple(fingerprint(x, depth - 1, seen) for x in items))
    if callable(v) and hasattr(v, "__code__"):  # a function: its mutable parts
        cells = tuple(fingerprint(c.cell_contents, depth - 1, seen)
                      for c in (v.__closure__ or ()) if _cell_ok(c))
        return ("f", id(v), fingerprint(v.__defaults__, depth - 1, seen),
                fingerprint(v.__kwdefaults__, depth - 1, seen),
                fingerprint(vars(v), depth - 1, seen), cells)
    if isinstance(v, type) or type(v).__name__ == "module":
        return ("id", id(v))
    attrs = getattr(v, "__dict__", None)
    if isinstance(attrs, dict):
        return ("o", id(v), fingerprint(attrs, depth - 1, seen))
    return ("id", id(v))


def _cell_ok(c) -> bool:
    try:
        c.cell_contents
        return True
    except ValueError:
        return False


def state_of(model, solution_module) -> Dict[str, Any]:
    """Everything a ``forward`` could keep across calls, by name: the
    modules' attributes (parameters and buffers by address and version),
    the solution module's globals, the attributes and methods of its
    classes (class attributes, mutable defaults, closures)."""
    out: Dict[str, Any] = {}
    for mname, m in model.named_modules():
        pre = "self" + ("." + mname if mname else "")
        for k, v in vars(m).items():
            if k not in _MODULE_INTERNALS:
                out[f"{pre}.{k}"] = fingerprint(v)
        for k, p in m._parameters.items():
            out[f"{pre}.{k}"] = fingerprint(p)
        for k, b in m._buffers.items():
            out[f"{pre}.{k}"] = fingerprint(b)
    if solution_module is not None:
        for k, v in vars(solution_module).items():
            if k.startswith("__") or type(v).__name__ == "module":
                continue
            if isinstance(v, type):
                if v.__module__ != solution_module.__name__:
                    continue
                for ck, cv in vars(v).items():
                    if not ck.startswith("__") or ck == "__call__":
                        out[f"{k}.{ck}"] = fingerprint(cv)
            else:
                out[k] = fingerprint(v)
    return out


def state_diff(before: Dict[str, Any], after: Dict[str, Any]) -> List[str]:
    changed = []
    for k in sorted(set(before) | set(after)):
        if k not in before:
            changed.append(f"{k} (created by the call)")
        elif k not in after:
            changed.append(f"{k} (deleted by the call)")
        elif before[k] != after[k]:
            changed.append(f"{k} (changed by the call)")
    return changed


def _storage_range(t) -> Tuple[int, int]:
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.data_ptr() + s.nbytes()
    except AttributeError:
        s = t.storage()
        return s.data_ptr(), s.data_ptr() + s.size() * s.element_size()


def _overlap(a, b) -> bool:
    (a0, a1), (b0, b1) = _storage_range(a), _storage_range(b)
    return a0 < b1 and b0 < a1 and a1 > a0 and b1 > b0


def _tensor_list(x) -> list:
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _tensor_list(y)]
    return []


def _resolve_executor(spec: str):
    """"capture", "gpu", or "module:function" (a CPU executor: the
    interpreter's hook, or a test's fake)."""
    if spec in ("capture", "gpu"):
        return spec
    import importlib
    mod, _, fn = spec.partition(":")
    return getattr(importlib.import_module(mod), fn)


class Worker:
    def __init__(self):
        self.model = None
        self.solution = None
        self.previous_outputs: list = []
        self.previous_inputs: list = []
        self.calls = 0
        self.export_dir = None      # argus.aot exports of the launched variants (gpu)
        self.exported: set = set()
        self.variants: dict = {}    # IR hash -> the kernel variant, over all calls

    def setup(self, msg: dict) -> dict:
        import torch
        from .task import load_solution
        for p in msg.get("sys_path", []):
            if p not in sys.path:
                sys.path.insert(0, p)
        if msg.get("aot_path"):  # a prepared batch's exports (argus.aot)
            os.environ["ARGUS_AOT_PATH"] = msg["aot_path"]
        self.device = torch.device(msg.get("device", "cpu"))
        self.executor = _resolve_executor(msg.get("executor", "capture"))
        self.allow = list(msg.get("allow_torch_ops", []))
        self.solution = load_solution(msg["solution"])
        torch.manual_seed(msg.get("seed", 42))
        init = [x.to(self.device) if isinstance(x, torch.Tensor) else x
                for x in msg.get("init_inputs", [])]
        self.model = self.solution.ModelNew(*init).to(self.device)
        loaded = None
        ref_state = msg.get("state_dict")
        if ref_state:
            own = self.model.state_dict()
            if set(own) == set(ref_state) and all(tuple(own[k].shape) == tuple(ref_state[k].shape)
                                                  for k in own):
                self.model.load_state_dict({k: v.to(self.device) for k, v in ref_state.items()})
                loaded = sorted(own)
        return {"ok": True, "loaded_state": loaded}

    def call(self, msg: dict) -> dict:
        import torch
        from .glue import GlueMonitor
        if msg.get("inplace"):
            # The same tensor objects as last call, their contents replaced:
            # a solution that skips work on unchanged tensors is caught here.
            inputs = self.previous_inputs
            with torch.no_grad():
                for dst, src in zip(inputs, msg["inputs"]):
                    if isinstance(dst, torch.Tensor):
                        dst.copy_(src.to(self.device))
        else:
            inputs = [x.to(self.device) if isinstance(x, torch.Tensor) else x
                      for x in msg["inputs"]]
        pristine = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        before = state_of(self.model, self.solution)
        monitor = GlueMonitor(self.allow)
        rec = self._recorder(monitor)
        rec.call = self.calls
        error = None
        out = None
        try:
            with torch.no_grad(), rec, monitor:
                out = self.model(*inputs)
            if self.device.type == "cuda":
                torch.cuda.synchronize()
        except Exception as e:  # the solution's own failure: reported, not fatal
            error = f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=6)
        after = state_of(self.model, self.solution)
        outs = _tensor_list(out) if out is not None else []
        findings = list(rec.findings)
        if out is not None and not outs:
            findings.append(f"forward returned {type(out).__name__}, not tensors")
        for i, (x, p) in enumerate(zip(inputs, pristine)):
            if isinstance(x, torch.Tensor) and not torch.equal(x, p):
                findings.append(f"forward wrote into input {i} (the harness's tensor)")
        state_tensors = [t for t in list(self.model.parameters()) + list(self.model.buffers())]
        for i, o in enumerate(outs):
            for j, x in enumerate(inputs):
                if isinstance(x, torch.Tensor) and _overlap(o, x):
                    findings.append(f"output {i} shares memory with input {j}")
            for k, prev in enumerate(self.previous_outputs):
                if any(_overlap(o, p) for p in prev):
                    findings.append(f"output {i} is the tensor returned by call {k} "
                                    "(a tensor kept across calls)")
            if any(_overlap(o, s) for s in state_tensors):
                findings.append(f"output {i} is a tensor the model holds")
        reply = {
            "error": error,
            "outputs": [o.detach().to("cpu").clone() for o in outs],
            "output_ranges": [list(_storage_range(o)) + [o.data_ptr(),
                                                         o.data_ptr() + o.numel() * o.element_size()]
                              for o in outs],
            "launches": [l.to_dict() for l in rec.launches],
            "ir": rec.ir,
            "glue": monitor.report.to_dict(),
            "state_changes": state_diff(before, after),
            "findings": findings,
        }
        self.variants.update(rec.variants)
        self.previous_outputs.append(outs)  # kept alive: a reused buffer keeps its address
        self.previous_inputs = inputs
        self.calls += 1
        return reply

    def time(self, msg: dict) -> dict:
        import torch
        from .timing import time_cuda
        inputs = [x.to(self.device) if isinstance(x, torch.Tensor) else x for x in msg["inputs"]]
        with torch.no_grad(), self._recorder(None, record=False):
            t = time_cuda(lambda: self.model(*inputs), **msg.get("options", {}))
        return {"times_ms": t}

    def export(self, msg: dict) -> dict:
        """argus.aot exports of every variant launched so far into
        ``msg["dir"]`` (a prepared batch): {IR hash: the export's JSON}."""
        from .. import aot
        return {"exports": {h: aot.export(v, msg["dir"]) for h, v in self.variants.items()}}

    def _recorder(self, monitor, record: bool = True):
        import tempfile
        from .record import Recorder
        if self.executor == "gpu" and self.export_dir is None:
            self.export_dir = tempfile.mkdtemp(prefix="argus-kb-aot-")
        return Recorder(self.executor, monitor, self.export_dir, self.exported, record)


def main(conn) -> None:
    """The worker's loop: one reply per command until ``quit``."""
    w = Worker()
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        cmd = msg.get("cmd")
        if cmd == "quit":
            conn.send({"ok": True})
            return
        try:
            reply = getattr(w, cmd)(msg)
        except Exception as e:
            reply = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        conn.send(reply)
