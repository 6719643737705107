"""``evaluate(task, solution)``: the evaluator's judgement of one solution.

The harness process loads the task (trusted: it is the benchmark), computes
the reference, and never imports the solution: the solution runs in a
spawned worker (argus.kernelbench.worker) that receives fresh inputs for
every trial over a pipe and reports what it saw. The harness decides:

1. *Proofs.* Every distinct kernel variant launched (its IR, as traced in
   the worker) is verified here with the tag verifier: every check proved
   (``allow_unknown``: unknown checks are accepted and reported), and for
   every tensor the kernel writes, the verifier's ``output-once`` and
   ``output-coverage`` checks proved (each element written exactly once).
2. *The proof's envelope.* The kernel's ``argus.assume`` conditions are
   evaluated at every launch's actual shapes, index values and grid
   (argus.kernelbench.envelope): a proof resting on an assumption that is
   false at the task's shapes rejects the solution.
3. *Outputs of this call.* Each output must lie inside a tensor that a
   kernel launched *in this call* writes; it may not share memory with an
   input, the model's tensors or an earlier call's output; the call may not
   write into its inputs; no state (attributes, globals, class attributes,
   mutable defaults, closures) may change across a call; the glue must stay
   within the allow-list (argus.kernelbench.glue).
4. *Correctness* on ``seeds`` trials of fresh inputs, plus a trial with the
   *same* input tensors refilled in place (a solution that skips work on an
   unchanged tensor object fails it), against the reference with
   KernelBench's tolerances (atol = rtol = 1e-2). Where neither a GPU nor a
   CPU executor (the interpreter's hook) is available, correctness is not
   checked and the record says so: ``correct`` is None.
5. *Timing* (GPU only, argus.kernelbench.timing): the solution in the
   worker, eager PyTorch and ``torch.compile`` here.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from typing import Any, Dict, List, Optional, Sequence

from . import executors
from .task import load_task

from .harness_common import ATOL, RTOL

__all__ = ["ATOL", "RTOL", "Options", "WorkerFailure", "compare", "evaluate"]


@dataclasses.dataclass
class Options:
    seeds: int = 5
    seed: int = 42
    atol: float = ATOL
    rtol: float = RTOL
    allow_unknown: bool = False
    allow_torch_ops: Sequence[str] = ()
    executor: Optional[str] = None    # None: gpu if CUDA, else the CPU interpreter, else capture
    timeout_s: float = 300.0          # per request to the worker
    timing: bool = True
    warmup: int = 10
    repetitions: int = 100
    flush_l2: bool = True
    verify_timeout_ms: int = 60000
    torch_compile: bool = True
    # A batch for a GPU host without the extension (docs/Agents.md): export_to
    # (here, with MLIR) writes the proofs and argus.aot exports of what the
    # solution launched; prepared (there) takes them instead of verifying.
    export_to: Optional[str] = None
    prepared: Optional[str] = None


class WorkerFailure(Exception):
    """The worker died (a fault) or did not answer in time (a hang)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class WorkerHandle:
    def __init__(self, timeout_s: float):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        from . import worker
        self.proc = ctx.Process(target=worker.main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.timeout_s = timeout_s

    def request(self, msg: dict, timeout_s: Optional[float] = None) -> dict:
        t = self.timeout_s if timeout_s is None else timeout_s
        try:
            self.conn.send(msg)
            if not self.conn.poll(t):
                self.kill()
                raise WorkerFailure("timeout", f"the solution's process did not answer "
                                    f"'{msg.get('cmd')}' within {t:g} s (a hang): killed")
            return self.conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self.proc.join(5)
            raise WorkerFailure("fault", f"the solution's process died during "
                                f"'{msg.get('cmd')}' (exit code {self.proc.exitcode})") from None

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def close(self) -> None:
        if self.proc.is_alive():
            try:
                self.conn.send({"cmd": "quit"})
                if self.conn.poll(5):
                    self.conn.recv()
            except (EOFError, OSError):
                pass
        self.kill()


def _device() -> str:
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def _to(x, device):
    import torch
    return x.to(device) if isinstance(x, torch.Tensor) else x


def _cpu(xs):
    import torch
    return [x.detach().cpu().clone() if isinstance(x, torch.Tensor) else x for x in xs]


def _as_list(out) -> list:
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for y in out for t in _as_list(y)]
    return []


def compare(got: list, want: list, atol: float, rtol: float) -> Dict[str, Any]:
    """KernelBench's check (``torch.allclose``) per output, with where and by
    how much the worst element differs."""
    import torch
    if len(got) != len(want):
        return {"correct": False, "why": f"{len(got)} outputs, the reference has {len(want)}"}
    worst = {"correct": True, "max_abs_diff": 0.0}
    for i, (g, w) in enumerate(zip(got, want)):
        w = w.detach().cpu()
        if tuple(g.shape) != tuple(w.shape):
            return {"correct": False, "why": f"output {i} has shape {tuple(g.shape)}, the "
                    f"reference {tuple(w.shape)}"}
        g32, w32 = g.float(), w.float()
        diff = (g32 - w32).abs()
        bad = ~torch.isclose(g32, w32, atol=atol, rtol=rtol)
        if diff.numel():
            d = torch.nan_to_num(diff, nan=float("inf"))
            m = float(d.max())
            if m > worst["max_abs_diff"]:
                worst["max_abs_diff"] = m
        if bool(bad.any()):
            idx = int(torch.nonzero(bad.flatten())[0])
            coord = [int(c) for c in _unravel(idx, tuple(g.shape))]
            return {"correct": False, "max_abs_diff": worst["max_abs_diff"],
                    "why": f"output {i}: {int(bad.sum())} of {bad.numel()} elements differ "
                    f"beyond atol={atol:g}, rtol={rtol:g}; first at {coord}: got "
                    f"{float(g32.flatten()[idx]):.6g}, expected {float(w32.flatten()[idx]):.6g}",
                    "mismatches": int(bad.sum()), "first_mismatch": coord}
    return worst


def _unravel(i: int, shape) -> List[int]:
    out = []
    for n in reversed(shape):
        out.append(i % n)
        i //= n
    return list(reversed(out))


def _covered(lo: int, hi: int, ranges) -> bool:
    """[lo, hi) lies inside the union of the half-open ``ranges``."""
    at = lo
    for a, b in sorted(ranges):
        if a > at:
            break
        at = max(at, b)
        if at >= hi:
            return True
    return at >= hi


def _provenance(reply: dict, written: Dict[str, List[int]]) -> List[str]:
    """Outputs not covered by the tensors that kernels launched in this call
    write (several launches may write parts of one output: a batch loop),
    or by the results of torch ops allowed by name."""
    problems = []
    ranges = []
    for l in reply.get("launches", []):
        for j in written.get(l["ir_hash"], []):
            a = l["args"][j] if j < len(l["args"]) else {}
            if a.get("kind") == "tensor" and "ptr" in a:
                ranges.append((a["ptr"], a["ptr"] + a["nbytes"]))
    ranges += [tuple(r) for r in reply.get("glue", {}).get("torch_results", [])]
    for i, rng in enumerate(reply.get("output_ranges", [])):
        lo, hi = rng[2], rng[3]
        if hi > lo and not _covered(lo, hi, ranges):
            problems.append(f"output {i} was not written by any kernel launched in this call")
    return problems


def evaluate(task_path: str, solution_path: str, options: Optional[Options] = None) -> dict:
    """Evaluates one solution; returns the JSON record (see docs/Agents.md)."""
    import torch
    o = options or Options()
    t_start = time.time()
    task = load_task(task_path)
    device = _device()
    executor = o.executor or ("gpu" if device == "cuda" else executors.cpu_executor_spec())
    rec: Dict[str, Any] = {
        "task": task.name, "task_path": task.path, "solution_path": os.path.abspath(solution_path),
        "device": device if device == "cpu" else torch.cuda.get_device_name(),
        "executor": executor or "capture", "tolerance": {"atol": o.atol, "rtol": o.rtol},
        "reasons": [], "notes": [],
    }
    if executor is None:
        executor = "capture"
    if executor == "capture":
        rec["notes"].append(executors.NOT_CHECKED)
    torch.manual_seed(o.seed)
    init = task.get_init_inputs()
    torch.manual_seed(o.seed)
    ref = task.Model(*init).to(device).eval()
    state = {k: v.detach().cpu() for k, v in ref.state_dict().items()}
    w = WorkerHandle(o.timeout_s)
    calls: List[dict] = []
    try:
        r = w.request({"cmd": "setup", "solution": os.path.abspath(solution_path),
                       "device": device, "executor": executor, "seed": o.seed,
                       "allow_torch_ops": list(o.allow_torch_ops), "init_inputs": _cpu(init),
                       "state_dict": state,
                       "aot_path": os.path.join(o.prepared, "aot") if o.prepared else None})
        if r.get("error"):
            rec["reasons"].append(f"the solution failed to load: {r['error']}")
            return _finish(rec, t_start)
        rec["loaded_reference_state"] = bool(r.get("loaded_state"))
        trials = [("fresh", o.seed + i) for i in range(o.seeds)] + [("inplace", o.seed + o.seeds)]
        checked = executor != "capture"
        rec["trials"] = []
        for kind, seed in trials:
            torch.manual_seed(seed)
            inputs = task.get_inputs()
            if checked:  # the reference, on this process's own copy of the inputs
                with torch.no_grad():
                    want = _as_list(ref(*[_to(x, device) for x in inputs]))
            reply = w.request({"cmd": "call", "inputs": _cpu(inputs), "inplace": kind == "inplace"})
            calls.append(reply)
            t = {"kind": kind, "seed": seed}
            if reply.get("error"):
                t["error"] = reply["error"]
            elif checked:
                t.update(compare(reply["outputs"], want, o.atol, o.rtol))
            rec["trials"].append(t)
        _judge_calls(rec, calls)
        if o.prepared:
            proofs, written, generic = _prove_prepared(rec, calls, o, task.name)
        else:
            proofs, written = _prove(rec, calls, o)
            generic = None
        rec["kernels"] = proofs
        for i, reply in enumerate(calls):
            for p in _provenance(reply, written):
                _reason(rec, f"call {i}: {p}")
        from .envelope import check_launches
        for msg in check_launches(calls, rec["_compiled"], generic):
            _reason(rec, msg)
        if o.export_to:
            _export_batch(rec, w, calls, o, task, solution_path)
        if checked:
            bad = [t for t in rec["trials"] if t.get("correct") is False or t.get("error")]
            rec["correct"] = not bad
            if bad:
                b = bad[0]
                _reason(rec, f"incorrect on the {b['kind']} trial (seed {b['seed']}): "
                        f"{b.get('why') or b.get('error')}")
        else:
            rec["correct"] = None
        if device == "cuda" and o.timing and rec.get("correct") and not rec["reasons"]:
            _time(rec, w, task, ref, o)
    except WorkerFailure as e:
        rec["reasons"].append(f"{e.kind}: {e}")
        rec["failure"] = e.kind
    finally:
        w.close()
    return _finish(rec, t_start)


def _reason(rec: dict, msg: str) -> None:
    if msg not in rec["reasons"]:
        rec["reasons"].append(msg)


def _judge_calls(rec: dict, calls: List[dict]) -> None:
    glue: Dict[str, int] = {}
    allowed: Dict[str, int] = {}
    for i, reply in enumerate(calls):
        if reply.get("error"):
            _reason(rec, f"call {i}: forward raised {reply['error'].splitlines()[0]}")
            continue
        if not reply.get("launches"):
            _reason(rec, f"call {i}: forward launched no Argus kernel")
        for m in reply["glue"]["rejected"]:
            _reason(rec, f"glue: {m}")
        for k, n in reply["glue"]["counts"].items():
            glue[k] = glue.get(k, 0) + n
        for k, n in reply["glue"]["allowed_torch_ops"].items():
            allowed[k] = allowed.get(k, 0) + n
        for s in reply["state_changes"]:
            _reason(rec, f"state survives across calls: {s}")
        for f in reply["findings"]:
            _reason(rec, f"call {i}: {f}")
    rec["glue"] = glue
    rec["allowed_torch_ops"] = allowed


def _prove(rec: dict, calls: List[dict], o: Options):
    """Verify and compile every distinct variant; returns (kernel records,
    written tensor argument positions by IR hash)."""
    from .proof import prove_ir
    irs: Dict[str, str] = {}
    names: Dict[str, str] = {}
    targets: Dict[str, str] = {}
    kernels: Dict[str, str] = {}
    for reply in calls:
        irs.update(reply.get("ir") or {})
        for l in reply.get("launches", []):
            names[l["ir_hash"]] = l["variant"]
            targets[l["ir_hash"]] = l["target"]
            kernels[l["ir_hash"]] = l["kernel"]
    out, written, compiled = [], {}, {}
    for h, text in irs.items():
        p = prove_ir(text, names.get(h, h), o.allow_unknown, o.verify_timeout_ms,
                     targets.get(h), kernels.get(h))
        p["ir_hash"] = h
        out.append(p)
        written[h] = p.get("written_args", [])
        compiled[h] = p.pop("_compiled", None)
        for msg in p["reasons"]:
            _reason(rec, f"kernel {p['variant']}: {msg}")
        if p.get("unknown") and o.allow_unknown:
            rec["notes"].append(f"kernel {p['variant']}: {len(p['unknown'])} unknown check(s) "
                                "accepted (--allow-unknown): " + "; ".join(p["unknown"]))
    rec["_compiled"] = compiled
    return out, written


def _export_batch(rec: dict, w: WorkerHandle, calls: List[dict], o: Options, task,
                  solution_path: str) -> None:
    """Writes ``export_to/aot/`` (argus.aot exports of every variant launched)
    and ``export_to/prepared/<task>.json`` (each variant's proof record, its
    IR in generic form, written arguments and grid rule, by export name)."""
    import json
    from .envelope import generic_text
    irs: Dict[str, str] = {}
    for reply in calls:
        irs.update(reply.get("ir") or {})
    aot_dir = os.path.join(o.export_to, "aot")
    os.makedirs(aot_dir, exist_ok=True)
    r = w.request({"cmd": "export", "dir": aot_dir})
    if r.get("error"):
        _reason(rec, f"export for the prepared batch failed: {r['error']}")
        return
    kernels = {}
    for k in rec.get("kernels", []):
        h = k["ir_hash"]
        kernels[k["variant"]] = dict(k, generic_ir=generic_text(irs[h]) if h in irs else None,
                                     compiled=rec["_compiled"].get(h))
    os.makedirs(os.path.join(o.export_to, "prepared"), exist_ok=True)
    with open(os.path.join(o.export_to, "prepared", task.name + ".json"), "w") as f:
        json.dump({"task": task.name, "solution": os.path.abspath(solution_path),
                   "accepted_here": not rec["reasons"], "reasons": rec["reasons"],
                   "kernels": kernels}, f, indent=1, default=str)
    rec["exported_to"] = o.export_to


def _prove_prepared(rec: dict, calls: List[dict], o: Options, task_name: str):
    """The proofs of a prepared batch (``argus-kernelbench prepare``), for a
    host without the extension: every variant launched must be in the
    batch, proved there; its written arguments, grid rule and IR (for the
    envelope) come from the batch."""
    import json
    path = os.path.join(o.prepared, "prepared", task_name + ".json")
    try:
        with open(path) as f:
            prep = json.load(f)
    except (OSError, ValueError) as e:
        _reason(rec, f"the prepared batch has no record of this task ({path}: {e})")
        rec["_compiled"] = {}
        return [], {}, {}
    out, written, generic, compiled = [], {}, {}, {}
    seen = set()
    for reply in calls:
        for l in reply.get("launches", []):
            h = l["ir_hash"]
            if h in seen:
                continue
            seen.add(h)
            k = prep["kernels"].get(l["variant"])
            if k is None:
                _reason(rec, f"kernel {l['variant']} is not in the prepared batch: it was "
                        "not proved")
                continue
            k = dict(k, ir_hash=h, proved_in="prepared batch " + o.prepared)
            written[h] = k.get("written_args", [])
            compiled[h] = k.get("compiled")
            if k.get("generic_ir"):
                generic[h] = k["generic_ir"]
            for msg in k.get("reasons", []):
                _reason(rec, f"kernel {k['variant']}: {msg}")
            out.append({x: y for x, y in k.items() if x not in ("generic_ir", "compiled")})
    rec["_compiled"] = compiled
    return out, written, generic


def _time(rec: dict, w: WorkerHandle, task, ref, o: Options) -> None:
    import torch
    from .timing import time_cuda
    torch.manual_seed(o.seed)
    inputs = task.get_inputs()
    opts = {"warmup": o.warmup, "repetitions": o.repetitions, "flush_l2": o.flush_l2}
    r = w.request({"cmd": "time", "inputs": _cpu(inputs), "options": opts})
    if r.get("error"):  # correct but not timed: no speedup (fast_p > 0 does not count it)
        rec["timing_error"] = r["error"]
        rec["notes"].append(f"timing failed: {r['error'].splitlines()[0]}")
        return
    dev = [_to(x, "cuda") for x in inputs]
    with torch.no_grad():
        eager = time_cuda(lambda: ref(*dev), **opts)
        timing = {"method": "CUDA events around each forward, median of repetitions",
                  "solution_ms": r["times_ms"], "eager_ms": eager, **opts}
        if o.torch_compile:
            try:
                comp = torch.compile(ref)
                timing["compile_ms"] = time_cuda(lambda: comp(*dev), **opts)
            except Exception as e:  # torch.compile unavailable or failing: reported
                timing["compile_error"] = f"{type(e).__name__}: {e}"
    rec["timing"] = timing
    rec["speedup"] = eager["median"] / r["times_ms"]["median"]
    if "compile_ms" in timing:
        rec["speedup_compile"] = timing["compile_ms"]["median"] / r["times_ms"]["median"]


def _finish(rec: dict, t_start: float) -> dict:
    rec.pop("_compiled", None)
    rec.setdefault("correct", None)
    rec["accepted"] = not rec["reasons"] and rec.get("correct") is not False
    if rec["accepted"] and rec.get("correct") is None:
        rec["status"] = "proved, not run (correctness not checked)"
    else:
        rec["status"] = "accepted" if rec["accepted"] else "rejected"
    rec["seconds"] = round(time.time() - t_start, 2)
    return rec
