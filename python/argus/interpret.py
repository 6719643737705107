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


def _np():
    import numpy
    return numpy


def enabled() -> bool:
    """True when ``$ARGUS_INTERPRET`` asks DSL launches to run here."""
    return os.environ.get("ARGUS_INTERPRET", "").strip() not in ("", "0", "false", "no")


def _source(kernel, func: Optional[str]) -> Tuple[str, str, Optional[List[str]]]:
    """(MLIR text, function name, parameter names or None)."""
    if hasattr(kernel, "fn") and hasattr(kernel, "ir"):  # a DSL kernel
        text = kernel.ir()
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
        step_budget: int = DEFAULT_STEP_BUDGET) -> InterpretResult:
    """Run one launch of ``kernel`` on the CPU. ``args`` follow the kernel's
    parameters (numpy arrays or CPU torch tensors for tensors, ints, floats);
    ``grid`` is (gx[, gy[, gz]]), or None for a DSL kernel's grid rule.
    Tensors the kernel writes are updated in place."""
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
        res = ir._argus.interpret_run(text, fname, flat, grid, int(step_budget))
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
    return InterpretResult(res["steps"], written)


def launch(variant, grid, bound) -> "Any":
    """``kernel[grid](...)`` through the interpreter (argus.launch): the
    bound arguments of ``variant``, written tensors updated in place; a
    RunResult without timing."""
    from .compile import RunResult
    from .dsl.types import TensorSpec
    from .launch import _grid
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
