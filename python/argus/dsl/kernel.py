"""Kernels: the ``kernel`` decorator and :class:`Kernel`, which traces the
function with symbolic arguments into an MLIR module built op by op through
the C++ builder (``module``; every op carries its Python line, so the op
verifiers' diagnostics point there), and hands it to the verifier and the
compiler.
"""

from __future__ import annotations

import collections
import inspect
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import ir as _ir
from ..errors import ArgusError, KernelIRError, TraceError, classify_ir_error
from ._tracer import SourceLoc, _Tracer, _state
from .types import ScalarSpec, TensorSpec, constexpr, index
from .values import IndexValue, ScalarValue, TensorValue, Value

_TARGETS = ("gfx942", "sm_90a", "sm_90")


def _check_min_blocks(n) -> int:
    """A ``min_blocks_per_sm`` value: an int >= 0 (0: no request)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ArgusError(f"min_blocks_per_sm must be an int >= 0, got {n!r}",
                         hint="it asks ptxas for that many resident blocks per SM "
                              "(.minnctapersm), which bounds the registers per thread; "
                              "0 asks nothing")
    return n


class Kernel:
    """A traced kernel: ``ir()``, ``verify()``, ``compile()``, ``run()``."""

    _MAX_VARIANTS = 64  # specialisations kept per kernel (least recently used dropped)

    def __init__(self, fn: Callable, target: str, block, name: Optional[str] = None,
                 constexprs: Optional[Dict[str, Any]] = None, min_blocks_per_sm: int = 0,
                 cluster=None):
        self.fn = fn
        self.name = name or fn.__name__
        if target not in _TARGETS:
            raise ArgusError(f"unknown target {target!r} (known: {', '.join(_TARGETS)})")
        self.target = target
        self.block = (block,) if isinstance(block, int) else tuple(block)
        if not self.block or any(isinstance(b, bool) or not isinstance(b, int) or b < 1
                                 for b in self.block):
            raise ArgusError(f"block must be a positive int or a tuple of them, got {block!r}")
        self.min_blocks_per_sm = _check_min_blocks(min_blocks_per_sm)
        # Blocks per thread-block cluster (sm_90): () without one.
        self.cluster = () if cluster is None else \
            ((cluster,) if isinstance(cluster, int) else tuple(cluster))
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in self.cluster):
            raise ArgusError(f"cluster must be a positive int or a tuple of them, got "
                             f"{cluster!r}")
        self.constexprs: Dict[str, Any] = dict(constexprs or {})
        self._source = None
        self._module = None
        self._diagnostics: list = []  # the op verifiers' findings on the traced module
        self._variants: "collections.OrderedDict" = collections.OrderedDict()
        self._compiled: Dict[Any, Any] = {}
        self._is_variant = False  # made by specialize(): compiled forms are cached
        self.params: List[Tuple[str, Any]] = []
        self.region_names: Dict[int, str] = {}

    # -- compile-time constants --------------------------------------------------
    def _annotations(self) -> Dict[str, Any]:
        out = {}
        for p in inspect.signature(self.fn).parameters.values():
            ann = p.annotation
            if isinstance(ann, str):
                try:
                    ann = eval(ann, self.fn.__globals__)
                except Exception:
                    pass
            out[p.name] = ann
        return out

    @property
    def constexpr_names(self) -> List[str]:
        """The parameters annotated ``argus.constexpr``, in order."""
        return [n for n, a in self._annotations().items() if a is constexpr]

    def specialize(self, target: Optional[str] = None, block=None,
                   min_blocks_per_sm: Optional[int] = None, **values) -> "Kernel":
        """The kernel with its ``argus.constexpr`` parameters bound (the body
        sees these Python values), for ``target``, ``block`` and
        ``min_blocks_per_sm`` if given. Each distinct (values, target, block,
        min_blocks_per_sm) is traced once: variants are cached
        (up to 64 per kernel), and so are their compiled forms
        (``compile(target, probes)``)."""
        names = self.constexpr_names
        for k in values:
            if k not in names:
                code = self.fn.__code__
                raise ArgusError(f"'{k}' is not an argus.constexpr parameter of {self.name} "
                                 f"(its constexpr parameters: {', '.join(names) or 'none'})",
                                 code.co_filename, code.co_firstlineno)
        bound = {**self.constexprs, **values}
        for p in inspect.signature(self.fn).parameters.values():  # defaults: one variant
            if p.name in names and p.name not in bound and \
                    p.default is not inspect.Parameter.empty:
                bound[p.name] = p.default
        tgt = self.target if target is None else target
        blk = self.block if block is None else ((block,) if isinstance(block, int) else
                                                tuple(block))
        mbs = self.min_blocks_per_sm if min_blocks_per_sm is None else \
            _check_min_blocks(min_blocks_per_sm)
        if (tgt, blk, mbs) == (self.target, self.block, self.min_blocks_per_sm) and \
                bound == self.constexprs:
            return self
        try:
            key = (tuple(sorted(bound.items())), tgt, blk, mbs)
            hash(key)
        except TypeError:
            raise ArgusError(f"constexpr values must be hashable (ints, floats, strings, "
                             f"tuples), got {bound!r}") from None
        v = self._variants.get(key)
        if v is None:
            v = Kernel(self.fn, tgt, blk, self.name, bound, mbs, cluster=self.cluster)
            v._is_variant = True
            self._variants[key] = v
            while len(self._variants) > self._MAX_VARIANTS:
                self._variants.popitem(last=False)
        else:
            self._variants.move_to_end(key)
        return v

    # -- tracing --------------------------------------------------------------
    def _trace(self):
        """Traces the function: the built module and the op verifiers'
        diagnostics (the module is None when they found errors). An op or
        type the builder could not make at all (_argus.BuildError: a launch
        the kernel attribute rejects, a tensor type that does not parse)
        becomes the IRVerificationError of its kind at its line."""
        try:
            return self._trace_unchecked()
        except _ir.extension().BuildError as e:
            message, diags = e.args
            raise classify_ir_error(diags, KernelIRError)(
                f"kernel '{self.name}' is not valid argus IR: {message}", diags) from None

    def _trace_unchecked(self):
        sig = inspect.signature(self.fn)
        code = self.fn.__code__
        def_loc = SourceLoc(code.co_filename, code.co_firstlineno, 1)
        tr = _Tracer(self.target, self.block, self.name, def_loc, self.cluster)
        args = []
        self.params = []
        for p in sig.parameters.values():
            ann = p.annotation
            if isinstance(ann, str):  # from __future__ import annotations
                try:
                    ann = eval(ann, self.fn.__globals__)
                except Exception as e:
                    raise ArgusError(f"cannot evaluate the annotation of '{p.name}': {e}",
                                     def_loc.file, def_loc.line)
            if ann is constexpr:
                if p.name in self.constexprs:
                    args.append(self.constexprs[p.name])
                elif p.default is not inspect.Parameter.empty:
                    args.append(p.default)
                else:
                    raise ArgusError(f"constexpr parameter '{p.name}' of {self.name} has no "
                                     "value", def_loc.file, def_loc.line,
                                     hint=f"pass it at launch (kernel[grid](..., {p.name}=...)), "
                                     f"bind it with kernel.specialize({p.name}=...), or give it "
                                     "a default")
                continue
            nm = tr.fresh(p.name)
            if isinstance(ann, TensorSpec):
                v = TensorValue(tr, nm, ann, p.name)
            elif ann is index or ann is int:
                v = IndexValue(tr, nm)
            elif isinstance(ann, ScalarSpec) or ann is float:
                if ann is float:
                    ann = ScalarSpec("f32")
                v = ScalarValue(tr, nm, ann, p.name)
            else:
                raise ArgusError(f"kernel parameter '{p.name}' needs an annotation: "
                                 "argus.Tensor[(dims...), dtype], argus.index, "
                                 "argus.Scalar[dtype] or argus.constexpr", def_loc.file,
                                 def_loc.line)
            access = ann.access if isinstance(ann, TensorSpec) else ""
            v.h = tr.b.argument(tr.type(v.type_str, def_loc), tr.loc(def_loc, nm), access)
            args.append(v)
            self.params.append((p.name, ann))
        prev = getattr(_state, "tracer", None)
        _state.tracer = tr
        try:
            _shape_relations(tr, [p for p, _ in self.params], args, def_loc)
            self.fn(*args)
        except _ir.extension().BuildError as e:
            # An op that could not be built at all (a type or layout that
            # does not parse, a value of another kernel): at its line.
            message, diags = e.args
            raise classify_ir_error(diags, KernelIRError)(
                f"kernel '{self.name}' is not valid argus IR", diags) from None
        finally:
            _state.tracer = prev
        if tr.region_stack:
            raise ArgusError(f"region '{tr.region_stack[-1][1]}' is still open at the end of the "
                             "kernel", def_loc.file, def_loc.line)
        if tr.depth != 0:
            raise ArgusError("a loop body was left open (break out of argus.range?)",
                             def_loc.file, def_loc.line)
        self.region_names = dict(tr.region_ids)
        handle, diags = tr.b.finish(tr.loc(def_loc))
        return _ir.Module(handle, f"<argus:{self.name}>"), list(diags)

    def _built(self) -> _ir.Module:
        """The traced module (traced once), verified or not."""
        if self._source is None:
            self._module, self._diagnostics = self._trace()
            # Values named as in the Python code, each op with its line.
            self._source = self._module.text(debug_info=True, name_locs=True,
                                             local_scope=True)
        return self._module

    def source(self) -> str:
        """The kernel's IR as built, values named as in the Python code and
        every op with its Python location (printed even when the op
        verifiers reject it)."""
        self._built()
        return self._source

    def module(self) -> _ir.Module:
        """The op-verified module; raises IRVerificationError (by the
        error's kind) at the Python line of the first error otherwise."""
        mod = self._built()
        if any(d.severity == "error" for d in self._diagnostics):
            diags = self._diagnostics
            raise classify_ir_error(diags, KernelIRError)(f"kernel '{self.name}' is not valid argus IR", diags,
                                          self._source) from None
        return mod

    def ir(self, debug_info: bool = False) -> str:
        """The kernel's IR as MLIR prints it (with locations if asked)."""
        return self.module().text(debug_info=debug_info)

    def verify(self, raise_on_violation: bool = True, strict: bool = False, **options):
        """Run the tag verifier (argus-verify-tags). Returns a
        VerificationResult; raises InvariantViolation on a violation and,
        with ``strict=True``, VerificationUnknown when nothing is violated
        but some check is unknown.

        ``verify(differential=N, reference=fn, ...)`` runs the differential
        check instead (argus.interpret.differential: N random small launches
        on the CPU interpreter against ``fn``; the other keywords are
        differential's): returns an argus.interpret.DifferentialResult and
        raises argus.interpret.DifferentialMismatch, whose
        ``counterexample`` names the launch and element, on a mismatch."""
        if "differential" in options:
            from .. import interpret
            n = options.pop("differential")
            reference = options.pop("reference", None)
            if reference is None:
                raise TypeError("verify(differential=N) needs reference=fn")
            res = interpret.differential(self, reference, n=n, **options)
            if not res.ok and raise_on_violation:
                raise interpret.DifferentialMismatch(res)
            return res
        from ..verify import verify_kernel
        return verify_kernel(self, raise_on_violation=raise_on_violation, strict=strict,
                             **options)

    def compile(self, target: Optional[str] = None, probes: bool = False, fmt: str = "isa"):
        """Lower to PTX (sm_90a) or gfx942 assembly: a CompiledKernel (for a
        variant from ``specialize``, cached per target, probes and format)."""
        from ..compile import compile_kernel
        if not self._is_variant:  # kernels as decorated compile every time, as before
            return compile_kernel(self, target=target, probes=probes, fmt=fmt)
        key = (target or self.target, bool(probes), fmt)
        ck = self._compiled.get(key)
        if ck is None:
            ck = compile_kernel(self, target=target, probes=probes, fmt=fmt)
            self._compiled[key] = ck
        return ck

    def run(self, *arrays, **options):
        """Run on the local GPU, in process (argus.compile.run_kernel; raises
        NoGPU without one)."""
        from ..compile import run_kernel
        return run_kernel(self, *arrays, **options)

    def __getitem__(self, grid):
        """``kernel[grid](*args, **kwargs)``: launch Triton-style (see
        :mod:`argus.launch`); ``grid`` is a tuple or a callable of the
        launch's meta-parameters."""
        from ..launch import Launcher
        return Launcher(self, grid)

    def __call__(self, *a, **k):
        raise TraceError("an argus kernel is not called directly: use kernel[grid](args...) "
                         "to launch it, or .ir(), .verify(), .compile(), .run(arrays...)")

    def __repr__(self):
        return f"<argus.Kernel {self.name} target={self.target} block={self.block}>"


def _shape_relations(tr: _Tracer, pynames: List[str], args: List[Value],
                     loc: SourceLoc) -> None:
    """The relations the annotations state, as ``argus.assume``: dims with the
    same name (other than ``"?"``, an anonymous dynamic dim) are equal across tensors, and a dim named like an
    ``argus.index`` parameter equals it (``Tensor[("M", "K"), ...]`` with a
    parameter ``K``). The verifier uses them and the kernel checks them at
    launch."""
    params = {p: a for p, a in zip(pynames, args) if isinstance(a, IndexValue)}
    first: Dict[str, list] = {}  # name -> [tensor, dim, its size value or None]
    for p, a in zip(pynames, args):
        if not isinstance(a, TensorValue):
            continue
        for k, d in enumerate(a.shape):
            if not isinstance(d, str) or d == "?":  # "?": dynamic, unrelated
                continue
            if d in params:
                other, what = params[d], f"the parameter {d}"
            elif d in first:
                f = first[d]
                if f[2] is None:
                    f[2] = f[0]._dim(f[1], loc)
                other, what = f[2], f"{f[0].pyname}.dim{f[1]}"
            else:
                first[d] = [a, k, None]
                continue
            size = a._dim(k, loc)
            ok = tr.b.cmpi("eq", size.h, other.h, tr.loc(loc, tr.fresh("shape_ok")))
            tr.b.assume(ok, f"{p}.dim{k} ({d}) == {what}", tr.loc(loc))


def kernel(fn=None, *, target: str = "gfx942", block=256, name: Optional[str] = None,
           min_blocks_per_sm: int = 0, cluster=None):
    """Decorator: ``@argus.kernel(target="gfx942", block=256)``. Parameters
    annotated ``argus.constexpr`` are compile-time constants (see
    :meth:`Kernel.specialize`). ``min_blocks_per_sm`` > 0 (NVPTX) asks ptxas
    for that many resident blocks per SM, bounding the registers per thread:
    a kernel ptxas gives many registers may run faster with more blocks
    (an autotune configuration may set it, as ``block``). ``cluster`` (sm_90:
    an int or up to three) launches the blocks in thread-block clusters of
    that shape, which ``tma_load(..., multicast=True)`` and
    ``mbarrier_arrive(..., cluster=True)`` reach across."""
    def wrap(f):
        return Kernel(f, target, block, name, min_blocks_per_sm=min_blocks_per_sm,
                      cluster=cluster)
    if fn is not None:
        return wrap(fn)
    return wrap
