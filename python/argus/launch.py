"""Launching kernels Triton-style and autotuning them, on top of
:func:`argus.compile.run_kernel`.

``kernel[grid](*args, **kwargs)`` binds the arguments to the kernel's
parameters (positional or by name; ``argus.constexpr`` parameters select a
specialised variant, see ``Kernel.specialize``), converts PyTorch tensors to
numpy arrays and back, evaluates ``grid`` (a tuple, a callable of the
launch's meta-parameters, or None for the grid the kernel's ``argus.assume``
conditions on ``grid_dim`` determine: ``CompiledKernel.grid``) and runs the kernel once through ``argus-run``
(``run_kernel``), returning its :class:`argus.compile.RunResult`.

``@argus.autotune(configs=[...], key=[...])`` over ``@argus.kernel`` runs
every configuration (constexpr values, optionally ``block`` and
``min_blocks_per_sm``) once per
distinct key, measures it through the runtime (``RunResult.time_ms``), keeps
the fastest, caches the choice and launches it; configurations that fail to
trace, verify, compile or run are skipped with the reason recorded.

With ``interpret=True`` (or ``$ARGUS_INTERPRET=1``; ``interpret=False``
overrides it) the launch runs on the CPU interpreter (argus.interpret)
instead, on numpy arrays or CPU torch tensors in place.

With an export of the launched variant on ``$ARGUS_AOT_PATH`` (argus.aot),
``kernel[grid]`` launches it on the device tensors in place instead of
compiling and running through argus-run (the way to launch on a GPU host
without MLIR).

Nothing here needs torch: tensors are recognised by their type's module.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .compile import NUMPY_DTYPES, RunResult, run_kernel
from .dsl.kernel import Kernel
from .dsl.types import ScalarSpec, TensorSpec, constexpr
from .errors import ArgusError, CompileError, InvariantViolation, MLIRError, NoGPU

# Keyword arguments of a launch that are not kernel parameters (a parameter
# of the same name wins).
LAUNCH_OPTIONS = ("sizes", "check", "outputs", "repetitions", "warmup", "probes", "target",
                  "block", "min_blocks_per_sm", "interpret")
# What an autotune configuration may set besides constexpr parameters.
_VARIANT_OPTIONS = ("block", "min_blocks_per_sm")

# Launch observers (argus.kernelbench's recorder). Each is called as
# ``hook(variant, grid, bound, run)`` for every ``kernel[grid](...)``, after the
# arguments are bound and the variant chosen; ``run()`` performs the launch as
# it would happen without hooks and returns its RunResult. A hook returns the
# launch's RunResult (usually ``run()``'s, or a stand-in when it executes the
# kernel another way) or None to leave the launch to the next hook / the
# default path.
_launch_hooks: List[Callable] = []


def _np():
    import numpy
    return numpy


#===------------------------------------------------------------------------===#
# Host arrays: numpy and PyTorch
#===------------------------------------------------------------------------===#


def is_torch_tensor(x) -> bool:
    """True for a ``torch.Tensor`` (checked without importing torch)."""
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "detach") \
        and hasattr(x, "copy_")


@dataclasses.dataclass
class HostArray:
    """A kernel argument as the numpy array ``run_kernel`` takes, and how to
    write results back into the caller's object (a torch tensor)."""
    array: Any
    source: Any = None
    bits: bool = False  # bf16 passed as uint16 bit patterns

    def write_back(self) -> None:
        if self.source is None:
            return
        import torch
        a = self.array
        if self.bits:
            self.source.view(torch.int16).copy_(torch.from_numpy(a.view(_np().int16)))
        else:
            self.source.copy_(torch.from_numpy(a))


def to_host(x, dtype: str) -> HostArray:
    """``x`` as a numpy array for a tensor parameter of element type
    ``dtype``: numpy arrays as they are (written in place); a torch tensor
    through ``.detach().cpu().numpy()`` as a copy (bf16 through its int16
    bit view when the parameter is bf16, else as float32), remembered for
    :meth:`HostArray.write_back`."""
    np = _np()
    if is_torch_tensor(x):
        import torch
        t = x.detach()
        if t.dtype == torch.bfloat16:
            if dtype == "bf16":
                a = t.cpu().view(torch.int16).numpy().view(np.uint16).copy()
                return HostArray(a, x, bits=True)
            return HostArray(t.float().cpu().numpy().copy(), x)
        return HostArray(t.cpu().numpy().copy(), x)
    return HostArray(x)


#===------------------------------------------------------------------------===#
# Binding a launch's arguments
#===------------------------------------------------------------------------===#


@dataclasses.dataclass
class BoundLaunch:
    """A launch's arguments: constexpr values, the other parameters' values
    (in order), the launch options and the meta-parameters a grid callable
    sees (constexprs, index and scalar parameters, named dims, ``block``)."""
    kernel: Kernel
    constexprs: Dict[str, Any]
    values: List[Tuple[str, Any, Any]]  # (name, annotation, value)
    options: Dict[str, Any]
    meta: Dict[str, Any]


def bind(kernel: Kernel, args: Sequence[Any], kwargs: Dict[str, Any],
         defaults: Optional[Dict[str, Any]] = None) -> BoundLaunch:
    sig = inspect.signature(kernel.fn)
    anns = kernel._annotations()
    kwargs = dict(kwargs)
    options = {k: kwargs.pop(k) for k in list(kwargs) if k in LAUNCH_OPTIONS and k not in anns}
    positional = list(sig.parameters)[:len(args)]
    for k, v in (defaults or {}).items():  # autotune configs: constexprs not passed
        if k in anns and k not in kwargs and k not in positional:
            kwargs[k] = v
    code = kernel.fn.__code__
    try:
        ba = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise ArgusError(f"{kernel.name}[grid](...): {e}", code.co_filename, code.co_firstlineno,
                         hint=f"{kernel.name} takes ({', '.join(sig.parameters)}); launch "
                         f"options are {', '.join(LAUNCH_OPTIONS)}") from None
    ba.apply_defaults()
    constexprs, values, meta = {}, [], {}
    for name, val in ba.arguments.items():
        ann = anns[name]
        if ann is constexpr:
            constexprs[name] = val
            meta[name] = val
            continue
        values.append((name, ann, val))
        if isinstance(ann, TensorSpec):
            shape = getattr(val, "shape", None)
            if shape is None or len(shape) != len(ann.shape):
                raise ArgusError(f"argument '{name}' of {kernel.name} must be a rank-"
                                 f"{len(ann.shape)} array or tensor, got {type(val).__name__}",
                                 code.co_filename, code.co_firstlineno)
            for d, n in zip(ann.shape, shape):
                if isinstance(d, str) and d != "?":
                    meta.setdefault(d, int(n))
        else:
            meta[name] = val
    meta.update(options.get("sizes") or {})
    return BoundLaunch(kernel, constexprs, values, options, meta)


def _grid(grid, meta: Dict[str, Any], kernel: Kernel) -> Optional[Tuple[int, int, int]]:
    if grid is None:  # run_kernel takes the grid the kernel's assumptions determine
        return None
    g = grid(dict(meta)) if callable(grid) else grid
    if isinstance(g, int):
        g = (g,)
    try:
        g = tuple(int(x) for x in g)
    except TypeError:
        g = None
    if not g or len(g) > 3 or any(x < 1 for x in g):
        code = kernel.fn.__code__
        raise ArgusError(f"{kernel.name}[grid]: the grid must be 1 to 3 positive ints, got "
                         f"{g!r}", code.co_filename, code.co_firstlineno,
                         hint="kernel[(gx, gy)](...), kernel[lambda meta: (cdiv(meta['M'], "
                         "meta['BM']),)](...), or kernel[None](...) for the grid the "
                         "kernel's assumptions determine")
    return g + (1,) * (3 - len(g))


def _run(b: BoundLaunch, grid, variant: Kernel, copies: bool, repetitions: int,
         warmup: int) -> Tuple[RunResult, List[HostArray]]:
    hosts, arrays = [], []
    np = _np()
    for name, ann, val in b.values:
        if isinstance(ann, TensorSpec):
            h = to_host(val, ann.dtype)
            if copies:
                h = HostArray(np.array(h.array, copy=True))
            hosts.append(h)
            arrays.append(h.array)
        else:
            arrays.append(val)
    sizes = {k: v for k, v in b.meta.items() if k not in b.constexprs}
    meta = dict(b.meta, block=variant.block)
    o = b.options
    res = run_kernel(variant, *arrays, grid=_grid(grid, meta, variant), sizes=sizes,
                     probes=o.get("probes", False), check=o.get("check"),
                     outputs=o.get("outputs", ()), repetitions=repetitions, warmup=warmup)
    return res, hosts


def _exported(variant: Kernel) -> Optional[str]:
    """The export of ``variant`` on ``$ARGUS_AOT_PATH`` (argus.aot), which
    is launched instead of compiling; without the ``_argus`` extension (a
    GPU host without MLIR) an export is the only way to run."""
    from . import aot
    from .ir import _argus
    found = aot.find(variant)
    if found is None and _argus is None:
        code = variant.fn.__code__
        raise ArgusError(f"{variant.name} cannot be compiled here (no _argus extension) and "
                         f"no export of it is on ARGUS_AOT_PATH", code.co_filename,
                         code.co_firstlineno, hint="on a machine with argus built: "
                         f"argus.aot.export(kernel.specialize(...), dir); here: "
                         f"ARGUS_AOT_PATH=dir (looked for {aot.variant_name(variant)}.json)")
    return found


def _launch_exported(path: str, b: BoundLaunch, grid, variant: Kernel) -> RunResult:
    """The launch through argus.aot: device tensors in place, asynchronous on
    PyTorch's current stream (no timing, no check: options that need argus-run
    are refused)."""
    from . import aot
    needs_run = [k for k in ("check", "probes", "outputs", "repetitions", "warmup")
                 if b.options.get(k)]
    if needs_run:
        code = variant.fn.__code__
        raise ArgusError(f"{', '.join(needs_run)} need a run through argus-run; the "
                         f"exported {variant.name} ({path}) launches once, asynchronously",
                         code.co_filename, code.co_firstlineno,
                         hint="unset ARGUS_AOT_PATH to compile and run through argus-run")
    k = aot.loaded(path)
    values = [val for _, _, val in b.values]
    k(*values, grid=_grid(grid, dict(b.meta, block=variant.block), variant))
    written = {s["arg"] for s in k.meta["slots"] if s["kind"] == "buffer" and s["written"]}
    outputs = {name: val for i, (name, _, val) in enumerate(b.values) if i in written}
    return RunResult({"launch": "argus.aot", "module": path}, None, None, [], outputs)


def launch(kernel: Kernel, grid, args: Sequence[Any], kwargs: Dict[str, Any],
           defaults: Optional[Dict[str, Any]] = None) -> RunResult:
    """``kernel[grid](*args, **kwargs)``: see the module docstring. Launch
    options (keywords that are not parameters): ``sizes``, ``check``,
    ``outputs``, ``probes``, ``target``, ``block``, ``min_blocks_per_sm``,
    ``repetitions`` (default
    1) and ``warmup`` (default 0)."""
    b = bind(kernel, args, kwargs, defaults)
    o = b.options
    variant = kernel.specialize(target=o.get("target"), block=o.get("block"),
                                min_blocks_per_sm=o.get("min_blocks_per_sm"), **b.constexprs)
    for hook in list(_launch_hooks):
        res = hook(variant, grid, b, lambda: _launch_variant(variant, grid, b))
        if res is not None:
            return res
    return _launch_variant(variant, grid, b)


def _launch_variant(variant: Kernel, grid, b: BoundLaunch) -> RunResult:
    o = b.options
    interp = o.get("interpret")
    if interp is None:
        from . import interpret
        interp = interpret.enabled()
    if interp:  # the CPU interpreter (argus.interpret), arrays in place
        from . import interpret
        return interpret.launch(variant, grid, b)
    exported = _exported(variant)
    if exported is not None:
        return _launch_exported(exported, b, grid, variant)
    res, hosts = _run(b, grid, variant, False, o.get("repetitions", 1), o.get("warmup", 0))
    by_name = {}
    for (name, ann, val), h in zip([v for v in b.values if isinstance(v[1], TensorSpec)], hosts):
        if name in res.outputs:
            h.write_back()
            by_name[name] = val
    res.outputs = {k: by_name.get(k, v) for k, v in res.outputs.items()}
    return res


class Launcher:
    """``kernel[grid]``: call it with the kernel's arguments."""

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, **kwargs) -> RunResult:
        if isinstance(self.kernel, Autotuner):
            if _launch_hooks:  # tuning runs every configuration through argus-run
                raise ArgusError(f"{self.kernel.name}: an autotuned kernel cannot be launched "
                                 "while launches are recorded (argus.kernelbench)",
                                 hint="launch the chosen configuration: "
                                 "kernel.kernel[grid](..., **config)")
            return self.kernel._launch(self.grid, args, kwargs)
        return launch(self.kernel, self.grid, args, kwargs)


#===------------------------------------------------------------------------===#
# Autotuning
#===------------------------------------------------------------------------===#


@dataclasses.dataclass
class TuneRecord:
    """One configuration's outcome: ``status`` is ``measured``,
    ``trace_error``, ``violated``, ``verify_error``, ``compile_error`` or
    ``run_error``; ``reason`` says why it was skipped."""
    config: Dict[str, Any]
    status: str
    time_ms: Optional[float] = None
    reason: str = ""


class Autotuner:
    """A kernel with configurations to choose from (``argus.autotune``):
    ``tuner[grid](*args)`` tunes once per key and launches the best;
    ``cache`` maps keys to the chosen configuration, ``history`` keys to
    the :class:`TuneRecord` of every configuration tried."""

    def __init__(self, kernel: Kernel, configs: Sequence[Dict[str, Any]], key: Sequence[str],
                 verify: bool = True, warmup: int = 5, repetitions: int = 50):
        if not isinstance(kernel, Kernel):
            raise ArgusError("argus.autotune decorates an @argus.kernel (put it above)")
        if not configs:
            raise ArgusError("argus.autotune needs at least one configuration")
        names = kernel.constexpr_names
        self.configs = []
        for c in configs:
            if not isinstance(c, dict):
                raise ArgusError(f"an autotune configuration is a dict, got {c!r}")
            bad = [k for k in c if k not in _VARIANT_OPTIONS and k not in names]
            if bad:
                code = kernel.fn.__code__
                raise ArgusError(f"autotune configuration {c} sets {', '.join(bad)}, which "
                                 f"{'is' if len(bad) == 1 else 'are'} not argus.constexpr "
                                 f"parameters of {kernel.name}", code.co_filename,
                                 code.co_firstlineno, hint="configurations set constexpr "
                                 f"parameters ({', '.join(names) or 'none'}), 'block' and "
                                 "'min_blocks_per_sm'")
            self.configs.append(dict(c))
        self.kernel = kernel
        self.key = list(key)
        self.verify = verify
        self.warmup, self.repetitions = warmup, repetitions
        self.cache: Dict[Tuple, Dict[str, Any]] = {}
        self.history: Dict[Tuple, List[TuneRecord]] = {}

    @property
    def name(self):
        return self.kernel.name

    def __getitem__(self, grid):
        return Launcher(self, grid)

    def _key(self, b: BoundLaunch) -> Tuple:
        out = []
        for k in self.key:
            if k not in b.meta:
                code = self.kernel.fn.__code__
                raise ArgusError(f"autotune key '{k}' is neither a parameter nor a named dim "
                                 f"of {self.kernel.name}", code.co_filename, code.co_firstlineno,
                                 hint=f"known here: {', '.join(sorted(b.meta))}")
            out.append(b.meta[k])
        return tuple(out)

    def _variant(self, cfg: Dict[str, Any], b: BoundLaunch) -> Kernel:
        # bind() filled the configuration's constexprs the caller did not pass
        o = b.options
        return self.kernel.specialize(
            target=o.get("target"), block=o.get("block", cfg.get("block")),
            min_blocks_per_sm=o.get("min_blocks_per_sm", cfg.get("min_blocks_per_sm")),
            **b.constexprs)

    def tune(self, grid, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """Measure every configuration for these arguments (on copies of the
        arrays) and return the fastest; cached per key."""
        b = bind(self.kernel, args, kwargs, self.configs[0])
        key = self._key(b)
        if key in self.cache:
            return self.cache[key]
        records = []
        for cfg in self.configs:
            records.append(self._try(cfg, grid, args, kwargs))
        self.history[key] = records
        ok = [r for r in records if r.status == "measured"]
        if not ok:
            why = "; ".join(f"{r.config}: {r.status} ({r.reason})" for r in records)
            code = self.kernel.fn.__code__
            raise ArgusError(f"autotune of {self.kernel.name}: no configuration ran: {why}",
                             code.co_filename, code.co_firstlineno)
        best = min(ok, key=lambda r: r.time_ms).config
        self.cache[key] = best
        return best

    def _try(self, cfg, grid, args, kwargs) -> TuneRecord:
        b = bind(self.kernel, args, kwargs, cfg)
        try:
            v = self._variant(cfg, b)
            v.module()
        except ArgusError as e:
            return TuneRecord(cfg, "trace_error", reason=str(e))
        if self.verify:
            try:
                from .verify import verifier_available
                if verifier_available():
                    v.verify()
            except InvariantViolation as e:
                return TuneRecord(cfg, "violated", reason=str(e).splitlines()[0] + ": " +
                                  "; ".join(f"{c.kind} at {c.py_file}:{c.py_line}"
                                            for c in e.violations))
            except MLIRError as e:
                return TuneRecord(cfg, "verify_error", reason=str(e))
        try:
            res, _ = _run(b, grid, v, True, self.repetitions, self.warmup)
        except NoGPU:
            raise
        except CompileError as e:
            return TuneRecord(cfg, "compile_error", reason=str(e))
        except (ArgusError, RuntimeError, ValueError) as e:
            return TuneRecord(cfg, "run_error", reason=str(e))
        if res.time_ms is None:
            return TuneRecord(cfg, "run_error", reason="argus-run reported no time")
        return TuneRecord(cfg, "measured", float(res.time_ms))

    def best(self, *key) -> Optional[Dict[str, Any]]:
        """The configuration chosen for ``key`` (None before tuning)."""
        return self.cache.get(tuple(key))

    def _launch(self, grid, args, kwargs) -> RunResult:
        cfg = self.tune(grid, args, kwargs)
        kw = dict(kwargs)
        for opt in _VARIANT_OPTIONS:
            if opt in cfg and opt not in kw:
                kw[opt] = cfg[opt]
        return launch(self.kernel, grid, args, kw,
                      {k: v for k, v in cfg.items() if k not in _VARIANT_OPTIONS})

    def __repr__(self):
        return f"<argus.Autotuner {self.kernel.name}: {len(self.configs)} configs, key={self.key}>"


def autotune(configs: Sequence[Dict[str, Any]], key: Sequence[str] = (), verify: bool = True,
             warmup: int = 5, repetitions: int = 50) -> Callable[[Kernel], Autotuner]:
    """Decorator over ``@argus.kernel``::

        @argus.autotune(configs=[{"BM": 64, "BN": 64}, {"BM": 128, "BN": 64, "block": 256}],
                        key=["M", "N", "K"])
        @argus.kernel(target="sm_90a", block=128)
        def gemm(A: ..., B: ..., C: ..., K: argus.index, BM: argus.constexpr,
                 BN: argus.constexpr): ...

        gemm[lambda m: (m["N"] // m["BN"], m["M"] // m["BM"])](a, b, c, K)

    Each configuration sets constexpr parameters and optionally ``block``
    and ``min_blocks_per_sm``;
    ``key`` names parameters or named dims whose values select a cached
    choice. With ``verify`` (default) each variant is proved first (a
    violated one is skipped; unknown checks do not skip it)."""
    def wrap(k):
        return Autotuner(k, configs, key, verify, warmup, repetitions)
    return wrap


__all__ = ["Autotuner", "HostArray", "Launcher", "TuneRecord", "autotune", "is_torch_tensor",
           "launch", "to_host"]
