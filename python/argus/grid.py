"""The grid of a launch from a kernel's grid rule: the launch ABI's
``grid`` (``CompiledKernel.abi.grid``, or the ``"grid"`` of
argus-dump-binary's JSON), which the lowering derives from the kernel's
``argus.assume`` conditions on ``gpu.grid_dim`` (docs/Lowering.md, "Grid
rule"). Pure Python, so hosts without the extension (the benchmarks on a GPU
machine) evaluate the same rule the same way."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .errors import ArgusError

_GRID_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
             "mul": lambda a, b: a * b, "div": lambda a, b: a // b,
             "ceildiv": lambda a, b: -(-a // b), "max": max}


def _extent(expr, args: Sequence[Any], dim: str, why: Optional[str]) -> int:
    """One grid extent expression (argus/Analysis/GridRule.h) evaluated on
    the launch's arguments."""
    if isinstance(expr, int):
        return expr
    (op, val), = expr.items()
    if op == "size":
        a, d = val
        shape = getattr(args[a], "shape", args[a])
        return int(shape[d])
    if op == "arg":
        return int(args[val])
    lhs, rhs = (_extent(x, args, dim, why) for x in val)
    if op in ("div", "ceildiv") and rhs <= 0:
        raise ArgusError(f"grid.{dim}: the grid rule divides by {rhs}"
                         + (f" (from the assumption \"{why}\")" if why else ""))
    return _GRID_OPS[op](lhs, rhs)


def launch_grid(rule, args: Sequence[Any]) -> tuple:
    """The grid (x, y, z) a launch must use, from a kernel's grid rule (the
    launch ABI's ``grid``: ``CompiledKernel.abi.grid``, or the ``"grid"`` of
    argus-dump-binary's JSON) and the launch's arguments by position: a
    tensor's shape (or any object with ``.shape``), an integer's value.
    Raises ArgusError when a dimension is the host's choice ("free": a
    persistent kernel) or when the arguments cannot satisfy the assumption
    the extent comes from (a size that is not a multiple of the tile)."""
    if not rule:
        raise ArgusError("this kernel's launch ABI has no grid rule",
                         hint="give the grid: kernel[(gx, gy, gz)](...)")
    grid = []
    for dim, entry in zip("xyz", rule):
        expr, why = entry["extent"], entry.get("assume")
        if expr == "free":
            raise ArgusError(f"no assumption of this kernel determines grid.{dim} "
                             "(a persistent kernel's grid is the caller's choice)",
                             hint="give the grid: kernel[(gx, gy, gz)](...)")
        n = _extent(expr, args, dim, why)
        if entry.get("exact"):  # extent = div(e, m) from grid * m == e
            num, den = (_extent(x, args, dim, why) for x in expr["div"])
            if num % den:
                raise ArgusError(f"grid.{dim}: {num} is not a multiple of {den}, as the "
                                 f"kernel assumes (\"{why}\")")
        if n < 1:
            raise ArgusError(f"grid.{dim} would be {n} blocks"
                             + (f" (from the assumption \"{why}\")" if why else ""))
        grid.append(n)
    return tuple(grid)


def _first_bad(values, bound, distinct):
    """(kind, position, other position) of the first entry outside [0, bound)
    (bound None: unchecked) or, with ``distinct``, repeating an earlier one;
    None when every entry is fine. ``values`` is a numpy array (vectorised:
    routing tables have millions of entries) or a list."""
    if hasattr(values, "dtype"):  # numpy
        import numpy as np
        v = values.astype(np.int64, copy=False)
        if bound is not None and v.size:
            out = (v < 0) | (v >= bound)
            if out.any():
                return ("range", int(np.argmax(out)), None)
        if distinct and v.size:
            _, first = np.unique(v, return_index=True)
            if first.size != v.size:
                seen = np.zeros(v.size, dtype=bool)
                seen[first] = True
                j = int(np.argmin(seen))  # the first position repeating a value
                return ("repeat", int(np.argmax(v == v[j])), j)
        return None
    first = {}
    for pos, x in enumerate(values):
        x = int(x)
        if bound is not None and not 0 <= x < bound:
            return ("range", pos, None)
        if distinct:
            if x in first:
                return ("repeat", first[x], pos)
            first[x] = pos
    return None


def check_indices(rules, args: Sequence[Any]) -> None:
    """Checks a launch's index tensors against the kernel's data
    preconditions (``argus.assume_indices``: the launch ABI's ``indices``),
    on which its proof rests: every entry in ``[0, below)`` and, with
    ``distinct``, no entry twice. Raises ArgusError naming the first entry
    that breaks one; a bound the host cannot evaluate is not checked."""
    for rule in rules or ():
        arg, why = rule["arg"], rule["message"]
        x = args[arg]
        if hasattr(x, "detach"):  # a torch tensor
            x = x.detach().cpu().numpy()
        values = x if hasattr(x, "dtype") and hasattr(x, "ndim") else list(x)
        nested = isinstance(values, list) and values and isinstance(values[0], (list, tuple))
        if getattr(values, "ndim", 1) != 1 or nested:
            raise ArgusError(f"argument {arg}: argus.assume_indices declares a 1-D index "
                             f"tensor (\"{why}\"), got a nested array")
        below = rule.get("below")
        bound = _extent(below, args, "indices", why) if below is not None else None
        bad = _first_bad(values, bound, bool(rule.get("distinct")))
        if bad is None:
            continue
        kind, pos, other = bad
        if kind == "range":
            raise ArgusError(
                f"argument {arg}: entry {pos} is {int(values[pos])}, outside [0, {bound}): the "
                f"kernel was proved for launches where \"{why}\"",
                hint="fix the indices (or the tensor they index) before the launch")
        raise ArgusError(
            f"argument {arg}: entries {pos} and {other} are both {int(values[pos])}: the "
            f"kernel was proved for launches where \"{why}\" (distinct entries)",
            hint="a repeated index makes two positions write one row")


def _slot(p, key):
    return p[key] if isinstance(p, dict) else getattr(p, key)


def _integer_dtype(dtype) -> bool:
    """i32, i64, u32, index, ...: the scalar types the verifier models."""
    return isinstance(dtype, str) and (dtype == "index" or dtype[:1] in ("i", "u"))


def _modelled_slots(slots):
    """(range key, arg, dim) of each parameter slot the verifier models: the
    dynamic sizes of tensors ("size") and integer scalars ("integer")."""
    for p in slots or ():
        kind, arg = _slot(p, "kind"), _slot(p, "arg")
        if arg is None or arg < 0:
            continue
        if kind == "size":
            yield "size", arg, _slot(p, "dim")
        elif kind == "index" or (kind == "scalar" and _integer_dtype(_slot(p, "dtype"))):
            yield "integer", arg, None


def check_limits(limits, slots, args: Sequence[Any], grid=None, names=None) -> None:
    """Checks a launch against the verifier model's ranges (the launch ABI's
    ``limits``: ``{"integer": [lo, hi], "size": [lo, hi], "grid": [lo, hi]}``,
    half-open, from argus/Verify/ModelLimits.h): integer arguments, dynamic
    tensor sizes and grid sizes outside them are outside every proof of the
    kernel, so the launch is refused with the limit and the value. ``slots``
    are the ABI's parameter slots (``abi.params`` or an export's
    ``"slots"``); ``names`` the parameters' names by position."""
    if not limits:
        return

    def name(arg):
        return f"'{names[arg]}'" if names and 0 <= arg < len(names) else f"{arg}"

    def refuse(what, value, rng, model):
        lo, hi = rng
        raise ArgusError(
            f"{what} is {value}, outside [{lo}, {hi}): the verifier models {model} in that "
            "range only, so no proof of this kernel covers this launch",
            hint="keep the launch inside the proved envelope (docs/Verifier.md, \"The model's "
                 "limits\"): e.g. a larger tile for fewer blocks, or split the work into "
                 "several launches")

    for key, arg, dim in _modelled_slots(slots):
        if arg >= len(args):
            continue
        lo, hi = limits[key]
        if key == "integer":
            v = int(args[arg])
            if not lo <= v < hi:
                refuse(f"integer argument {name(arg)}", v, (lo, hi), "integer kernel arguments")
        else:
            shape = getattr(args[arg], "shape", args[arg])
            v = int(shape[dim])
            if not lo <= v < hi:
                refuse(f"size {dim} of tensor argument {name(arg)}", v, (lo, hi),
                       "dynamic tensor sizes")
    if grid is not None:
        lo, hi = limits["grid"]
        for d, n in zip("xyz", grid):
            if not lo <= int(n) < hi:
                refuse(f"grid.{d}", int(n), (lo, hi), "grid sizes (and block ids)")


def envelope(limits, slots, names) -> Optional[dict]:
    """The ``"envelope"`` of an argus-run launch spec (docs/Runtime.md): the
    model's ranges per scalar argument of the spec, by the names
    ``CompiledKernel.launch_spec`` gives them, and for the grid; argus-run
    and the runtime's C API refuse a spec outside it."""
    if not limits:
        return None
    scalars = {}
    for key, arg, dim in _modelled_slots(slots):
        scalars[f"{names[arg]}_size{dim}" if key == "size" else names[arg]] = list(limits[key])
    return {"grid": list(limits["grid"]), "scalars": scalars}
