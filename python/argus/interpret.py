"""Run argus kernels on the CPU: the tile-level interpreter (lib/Interpret).

``argus.interpret.run(kernel, *arrays, grid=...)`` runs one launch of a DSL
kernel (``@argus.kernel``), or of MLIR text / a ``.mlir`` file, on numpy
arrays (or CPU torch tensors) and writes every tensor the kernel wrote back
into its array in place, as a GPU launch does. Values are exact for the
element types (f16, bf16 and fp8 rounded to nearest even, tf32 operands at
tf32 matrix instructions, f32 accumulation in k order); an op the
interpreter cannot run is an :class:`InterpretError` naming the op, its
location and the block.

``kernel[grid](..., interpret=True)`` and ``ARGUS_INTERPRET=1`` route DSL
launches here (argus.launch); :func:`kernelbench_execute` is the CPU
executor of the KernelBench evaluator (``--executor
argus.interpret:kernelbench_execute``); :func:`differential` runs random
small launches against a numpy reference.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .errors import ArgusError

#: Ops executed (over all blocks) before a run stops: a kernel that loops
#: forever ends in an error, never a hang.
DEFAULT_STEP_BUDGET = 50_000_000


class InterpretError(ArgusError):
    """The interpreter could not run the kernel (an unsupported op, an
    out-of-bounds access, a failed ``argus.assume``, a spent step budget)."""


@dataclasses.dataclass
class InterpretResult:
    """``steps``: ops executed; ``written``: names (or argument numbers) of
    the tensors the kernel wrote, each written back in place."""
    steps: int
    written: List[Any]
    #: With ``track_writers=True``: per written tensor (by name or argument
    #: number), arrays of its shape giving the linear block id, the index
    #: into ``writer_ops`` of the op that wrote each element last, and the
    #: thread (register stores: the layout's first holder; else -1).
    writers: Dict[Any, Tuple[Any, Any, Any]] = dataclasses.field(default_factory=dict)
    writer_ops: List[str] = dataclasses.field(default_factory=list)


def _np():
    import numpy
    return numpy


def enabled() -> bool:
    """True when ``$ARGUS_INTERPRET`` asks DSL launches to run here."""
    return os.environ.get("ARGUS_INTERPRET", "").strip() not in ("", "0", "false", "no")


def _source(kernel, func: Optional[str]) -> Tuple[str, str, Optional[List[str]]]:
    """(MLIR text, function name, parameter names or None)."""
    if hasattr(kernel, "fn") and hasattr(kernel, "ir"):  # a DSL kernel
        text = kernel.ir(debug_info=True)  # errors name the Python lines
        return text, func or kernel.name, [p for p, _ in kernel.params]
    if isinstance(kernel, os.PathLike) or (isinstance(kernel, str) and kernel.endswith(".mlir")
                                           and "\n" not in kernel):
        with open(kernel) as f:
            return f.read(), func or "", None
    if isinstance(kernel, str):
        return kernel, func or "", None
    raise TypeError(f"argus.interpret.run: expected a DSL kernel, MLIR text or a .mlir path, "
                    f"got {type(kernel).__name__}")


def bf16_bits_to_float(bits) -> "numpy.ndarray":
    np = _np()
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def float_to_bf16_bits(x) -> "numpy.ndarray":
    """bf16 bit patterns of values that are already bf16 (exact)."""
    np = _np()
    return (np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _to_f64(a, elt: str):
    np = _np()
    if elt == "bf16" and a.dtype in (np.uint16, np.int16):
        return bf16_bits_to_float(a.view(np.uint16))
    return np.array(a, dtype=np.float64, order="C", copy=True)


def _write_back(dst, src, elt: str) -> None:
    np = _np()
    if elt == "bf16" and dst.dtype in (np.uint16, np.int16):
        dst[...] = float_to_bf16_bits(src).view(dst.dtype)
    elif np.issubdtype(dst.dtype, np.integer):
        dst[...] = np.rint(src).astype(dst.dtype)
    else:
        dst[...] = src.astype(dst.dtype)


def run(kernel, *args, grid=None, func: Optional[str] = None,
        step_budget: int = DEFAULT_STEP_BUDGET, schedule_seed: int = 0,
        track_writers: bool = False) -> InterpretResult:
    """Run one launch of ``kernel`` on the CPU. ``args`` follow the kernel's
    parameters (numpy arrays or CPU torch tensors for tensors, ints, floats);
    ``grid`` is (gx[, gy[, gz]]), or None for a DSL kernel's grid rule.
    Tensors the kernel writes are updated in place. Warp roles (Hopper
    kernels) run as cooperative tasks switched where they wait;
    ``schedule_seed`` (nonzero) picks another deterministic order."""
    from . import ir
    from .launch import is_torch_tensor, to_host
    np = _np()
    if ir._argus is None or not hasattr(ir._argus, "interpret_run"):
        raise InterpretError("argus.interpret needs the _argus extension built with "
                             "lib/Interpret")
    text, fname, names = _source(kernel, func)
    sig = ir._argus.interpret_signature(text, fname)
    if len(args) != len(sig):
        raise InterpretError(f"{fname or 'the kernel'} takes {len(sig)} arguments, got "
                             f"{len(args)}")
    hosts, flat = [], []
    for i, ((kind, elt, rank), a) in enumerate(zip(sig, args)):
        if kind == "buffer":
            h = to_host(a, elt) if is_torch_tensor(a) else None
            arr = h.array if h is not None else a
            if not hasattr(arr, "shape") or len(arr.shape) != rank:
                raise InterpretError(f"argument {names[i] if names else i} must be a rank-{rank} "
                                     f"array")
            hosts.append((i, a, h, arr, elt))
            flat.append(_to_f64(np.asarray(arr), elt))
        elif kind == "float":
            flat.append(float(a))
        else:
            flat.append(int(a))
    if grid is None:
        if names is None:
            raise InterpretError("give the grid for an MLIR kernel: "
                                 "argus.interpret.run(text, ..., grid=(gx, gy, gz))")
        grid = kernel.compile().grid(*args)
    if isinstance(grid, int):
        grid = (grid,)
    grid = [int(g) for g in grid] + [1] * (3 - len(grid))
    try:
        res = ir._argus.interpret_run(text, fname, flat, grid, int(step_budget),
                                      int(schedule_seed), bool(track_writers))
    except RuntimeError as e:
        raise InterpretError(f"argus.interpret: {fname}: {e}") from None
    written = []
    for i, a, h, arr, elt in hosts:
        if i not in res["written"]:
            continue
        _write_back(arr, flat[i], elt)
        if h is not None:
            h.write_back()
        written.append(names[i] if names else i)
    writers = {}
    for i, arrays in res.get("writers", {}).items():
        shape = flat[i].shape
        writers[names[i] if names else i] = tuple(x.reshape(shape) for x in arrays)
    return InterpretResult(res["steps"], written, writers, list(res.get("writer_ops", [])))


def launch(variant, grid, bound) -> "Any":
    """``kernel[grid](...)`` through the interpreter (argus.launch): the
    bound arguments of ``variant``, written tensors updated in place; a
    RunResult without timing."""
    from .compile import RunResult
    from .dsl.types import TensorSpec
    from .launch import _grid
    unsupported = [k for k in ("check", "probes") if bound.options.get(k)]
    if unsupported:
        code = variant.fn.__code__
        raise ArgusError(f"{', '.join(unsupported)}: not available in the interpreter "
                         f"(argus.interpret runs values, not the device runtime)",
                         code.co_filename, code.co_firstlineno,
                         hint="compare with numpy after the launch, or launch on a GPU")
    values = [val for _, _, val in bound.values]
    g = _grid(grid, dict(bound.meta, block=variant.block), variant)
    res = run(variant, *values, grid=g)
    outputs = {name: val for name, ann, val in bound.values
               if isinstance(ann, TensorSpec) and name in res.written}
    return RunResult({"launch": "argus.interpret", "steps": res.steps}, None, None, [], outputs)


def kernelbench_execute(variant, grid, bound) -> None:
    """The KernelBench evaluator's CPU executor (argus.kernelbench.executors):
    runs the launch on the bound CPU tensors, written tensors in place."""
    launch(variant, grid, bound)


#===------------------------------------------------------------------------===#
# Differential checks: random small launches against a numpy reference
#===------------------------------------------------------------------------===#

#: Default tolerances by element type (|got - expected| <= atol + rtol |expected|).
TOLERANCES = {"f64": (1e-12, 1e-12), "f32": (1e-4, 1e-5), "f16": (1e-2, 1e-2),
              "bf16": (4e-2, 4e-2), "f8E4M3FN": (0.13, 0.05), "f8E4M3FNUZ": (0.13, 0.05)}

_NUMPY_OF = {"f64": "float64", "f32": "float32", "f16": "float16", "i8": "int8",
             "i32": "int32", "i64": "int64", "u8": "uint8", "u32": "uint32", "i1": "bool"}


@dataclasses.dataclass
class Counterexample:
    """A launch whose output differs from the reference: its sizes, grid
    and arguments (shapes of tensors, values of scalars), the tensor and the
    element (its index), the expected and the computed value."""
    launch: int
    sizes: Dict[str, int]
    grid: Tuple[int, int, int]
    arguments: Dict[str, Any]
    tensor: str
    index: Tuple[int, ...]
    expected: float
    got: float
    mismatches: int
    tolerance: Tuple[float, float]
    #: The block (x, y, z) and op (name and location) that wrote the element
    #: last; None when no block wrote it.
    block: Optional[Tuple[int, int, int]] = None
    program_point: Optional[str] = None
    #: The thread of that block that wrote it (register stores), or None.
    thread: Optional[int] = None

    def __str__(self) -> str:
        thread = f" thread {self.thread}" if self.thread is not None else ""
        where = (f", written by block {self.block}{thread} at {self.program_point}"
                 if self.block else ", never written by the kernel")
        return (f"differential launch {self.launch} (sizes {self.sizes}, grid {self.grid}): "
                f"{self.tensor}[{', '.join(map(str, self.index))}] = {self.got!r}, the "
                f"reference gives {self.expected!r}{where} ({self.mismatches} elements "
                f"differ beyond rtol={self.tolerance[0]}, atol={self.tolerance[1]})")


@dataclasses.dataclass
class DifferentialResult:
    kernel: str
    launches: int
    skipped: int
    counterexample: Optional[Counterexample] = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    def summary(self) -> str:
        if self.ok:
            return (f"{self.kernel}: {self.launches} random launches match the reference"
                    + (f" ({self.skipped} size draws outside the kernel's assumptions)"
                       if self.skipped else ""))
        return f"{self.kernel}: {self.counterexample}"


class DifferentialMismatch(ArgusError):
    """The interpreter's output differs from the reference."""

    def __init__(self, result: DifferentialResult):
        super().__init__(result.summary())
        self.result = result
        self.counterexample = result.counterexample


def _default_candidates(max_size: int) -> List[int]:
    c = set(range(1, 9))
    for t in (16, 32, 64, 128):
        for k in range(1, max_size // t + 1):
            c.update({t * k - 1, t * k, t * k + 1})
    return sorted(x for x in c if 1 <= x <= max_size)


def _random_tensor(r, shape, dtype: str):
    np = _np()
    if dtype.startswith("i") or dtype.startswith("u"):
        return r.integers(0, 8, size=shape).astype(_NUMPY_OF.get(dtype, "int32"))
    x = r.standard_normal(shape)
    if dtype == "bf16":
        return float_to_bf16_bits(x.astype(np.float32))
    return x.astype(_NUMPY_OF.get(dtype, "float32"))


def _as_float(a, dtype: str):
    np = _np()
    if dtype == "bf16" and a.dtype in (np.uint16, np.int16):
        return bf16_bits_to_float(a)
    return np.asarray(a, dtype=np.float64)


def differential(kernel, reference: Callable, n: int = 10, *, seed: int = 0,
                 dims: Optional[Dict[str, Sequence[int]]] = None, max_size: int = 160,
                 scalars: Optional[Dict[str, Any]] = None, inputs: Optional[Callable] = None,
                 outputs: Sequence[str] = (), rtol: Optional[float] = None,
                 atol: Optional[float] = None, grid=None, max_draws: int = 200,
                 step_budget: int = DEFAULT_STEP_BUDGET) -> DifferentialResult:
    """Run ``n`` random small launches of DSL ``kernel`` on the interpreter and
    compare every written tensor with ``reference``.

    Sizes: each named dim of the tensor annotations is drawn from
    ``dims[name]`` (default: 1..8 and tile multiples +-1 up to ``max_size``);
    an ``argus.index`` parameter named like a dim takes the dim's value,
    others are drawn the same way; ``scalars`` gives float parameters (default
    1e-5). A draw that breaks the kernel's preconditions (its ``argus.assume``
    conditions, or its grid rule) is redrawn, at most ``max_draws`` draws in
    all. The grid is the kernel's grid rule (or ``grid``, a tuple or a
    callable of the sizes). Tensors are random normal (integers 0..7),
    except those named in ``outputs`` or annotated ``out``, which start at
    zero; ``inputs(sizes, rng)`` may return arrays by name instead.

    ``reference(**arrays)`` gets copies of the launch's arrays before the run
    (bf16 as float64 values, by parameter name, plus the index and scalar
    parameters) and returns the expected written tensors: a dict by name, or
    one array when the kernel writes one tensor. The first element outside
    ``atol + rtol |expected|`` (defaults by element type: ``TOLERANCES``)
    is the counterexample."""
    from .dsl.types import TensorSpec
    np = _np()
    r = np.random.default_rng(seed)
    kernel.source()
    params = list(kernel.params)
    cands = _default_candidates(max_size)
    dims = dict(dims or {})
    scalars = dict(scalars or {})
    compiled = None
    launches = skipped = draws = 0
    while launches < n:
        draws += 1
        if draws > max_draws:
            raise ArgusError(f"differential check of {kernel.name}: {skipped} of {draws - 1} "
                             f"size draws broke the kernel's preconditions",
                             hint="give dims={name: [sizes]} that satisfy the kernel's "
                             "assumptions")
        sizes: Dict[str, int] = {}
        for _, ann in params:
            for d in getattr(ann, "shape", ()):
                if isinstance(d, str) and d not in sizes:
                    sizes[d] = int(r.choice(dims.get(d, cands)))
        args, named = [], {}
        given = inputs(dict(sizes), r) if inputs else {}
        for name, ann in params:
            if isinstance(ann, TensorSpec):
                shape = tuple(sizes[d] if isinstance(d, str) else d for d in ann.shape)
                if name in given:
                    a = np.array(given[name], copy=True)
                elif name in outputs or ann.access == "out":
                    a = (np.zeros(shape, np.uint16) if ann.dtype == "bf16"
                         else np.zeros(shape, _NUMPY_OF.get(ann.dtype, "float32")))
                else:
                    a = _random_tensor(r, shape, ann.dtype)
                args.append(a)
                named[name] = a
            elif getattr(ann, "dtype", "index").startswith(("f", "bf")):
                v = float(scalars.get(name, 1e-5))
                args.append(v)
                named[name] = v
            else:
                v = int(scalars.get(name, sizes.get(name, r.choice(dims.get(name, cands)))))
                sizes.setdefault(name, v)
                args.append(v)
                named[name] = v
        if grid is None and compiled is None:
            # The grid rule comes from the launch ABI of the compiled kernel;
            # a kernel that does not lower needs grid= instead.
            compiled = kernel.compile()
        try:
            g = (grid(dict(sizes)) if callable(grid) else grid) if grid is not None \
                else compiled.grid(*args)
        except ArgusError:  # the sizes cannot satisfy the grid rule: redraw
            skipped += 1
            continue
        g = tuple(int(x) for x in (g if not isinstance(g, int) else (g,)))
        g = g + (1,) * (3 - len(g))
        before = {k: (_as_float(v, ann.dtype) if isinstance(ann, TensorSpec) else v)
                  for (k, ann), v in zip(params, args)}
        try:
            res = run(kernel, *args, grid=g, step_budget=step_budget, track_writers=True)
        except InterpretError as e:
            if "assumption" in str(e):
                skipped += 1
                continue
            raise
        launches += 1
        expected = reference(**{k: (v.copy() if hasattr(v, "copy") else v)
                                for k, v in before.items()})
        if not isinstance(expected, dict):
            if isinstance(expected, (tuple, list)):
                expected = dict(zip(res.written, expected))
            else:
                if len(res.written) != 1:
                    raise ArgusError(f"{kernel.name} wrote {res.written}: the reference must "
                                     "return a dict of the written tensors by name")
                expected = {res.written[0]: expected}
        anns = dict(params)
        for name, exp in expected.items():
            ann = anns[name]
            got = _as_float(named[name], ann.dtype)
            exp = np.broadcast_to(np.asarray(exp, dtype=np.float64), got.shape)
            rt, at = TOLERANCES.get(ann.dtype, (1e-4, 1e-5))
            rt = rtol if rtol is not None else rt
            at = atol if atol is not None else at
            bad = ~(np.abs(got - exp) <= at + rt * np.abs(exp))
            bad &= ~(np.isnan(got) & np.isnan(exp))
            if bad.any():
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                shapes = {k: (tuple(v.shape) if hasattr(v, "shape") else v)
                          for k, v in named.items()}
                ce = Counterexample(launches - 1, sizes, g, shapes, name, idx,
                                    float(exp[idx]), float(got[idx]), int(bad.sum()), (rt, at))
                if name in res.writers:
                    blk, op, thr = (int(w[idx]) for w in res.writers[name])
                    if blk >= 0:
                        ce.block = (blk % g[0], blk // g[0] % g[1], blk // (g[0] * g[1]))
                        ce.program_point = res.writer_ops[op]
                        ce.thread = thr if thr >= 0 else None
                return DifferentialResult(kernel.name, launches, skipped, ce)
    return DifferentialResult(kernel.name, launches, skipped)
