"""Thin Python layer over the ``_argus`` extension: parse, print, verify and
run pass pipelines on module text, turning MLIR diagnostics into exceptions.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import List, Optional

from .errors import FeatureUnavailable, MLIRError, PipelineError

try:
    import _argus  # the pybind11 extension (build/python)
except ImportError as e:  # pragma: no cover - exercised without a build
    _argus = None
    _IMPORT_ERROR = e
else:
    _IMPORT_ERROR = None

_local = threading.local()


def extension():
    """The ``_argus`` module, or FeatureUnavailable when it is not built."""
    if _argus is None:
        raise FeatureUnavailable(
            "the _argus extension is not importable (install argus with "
            "`cmake --install build`, or build the `_argus` target and put "
            "<build>/python on PYTHONPATH): "
            f"{_IMPORT_ERROR}", missing="_argus")
    return _argus


def context():
    """The calling thread's MLIR context (created on first use)."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = extension().Context()
        _local.ctx = ctx
    return ctx


def features() -> dict:
    """Which optional libraries the extension was built with."""
    return dict(extension().features)


def has_pass(name: str) -> bool:
    """Whether a pass or pipeline called ``name`` is registered."""
    return bool(extension().has_pass(name))


def require_pass(name: str, purpose: str = "") -> None:
    if not has_pass(name):
        what = f" ({purpose})" if purpose else ""
        raise FeatureUnavailable(
            f"pass '{name}' is not available in this build{what}: rebuild "
            "the _argus extension once the library providing it exists",
            missing=name)


class Module:
    """A parsed module (owned by the thread's context)."""

    def __init__(self, handle, source_name: str):
        self._m = handle
        self.source_name = source_name

    def text(self, debug_info: bool = False, generic: bool = False, name_locs: bool = False,
             local_scope: bool = False) -> str:
        """The module as MLIR prints it; ``name_locs`` names values after their
        ops' name locations (the DSL's value names), ``local_scope`` prints
        locations inline instead of as ``#loc`` aliases."""
        return self._m.print(debug_info, generic, name_locs, local_scope)

    def __str__(self) -> str:
        return self.text()

    def verify(self) -> List:
        return list(self._m.verify())

    def run_pipeline(self, pipeline: str, check: bool = True):
        """Run ``pipeline`` in place. Returns the diagnostics; raises
        PipelineError when the pipeline fails and ``check`` is true."""
        ok, diags = self._m.run_pipeline(pipeline)
        if not ok and check:
            raise PipelineError(f"pass pipeline '{pipeline}' failed", diags)
        return ok, list(diags)

    def verify_tags(self, timeout_ms: int = 10000, max_counterexamples: int = 1,
                    implicit_checks: bool = True, threads: int = 1):
        """Run the tag verifier in process (the module is unchanged). Returns
        (report, diagnostics): the report as the JSON report's Python objects
        (None when the verifier failed), the diagnostics it emitted."""
        if not hasattr(self._m, "verify_tags"):
            raise FeatureUnavailable("the _argus extension was built without the verifier",
                                     missing="ArgusVerify")
        report, diags = self._m.verify_tags(timeout_ms, max_counterexamples,
                                            implicit_checks, threads)
        return report, list(diags)

    def lower(self, family: str, chip: str = "", probes: bool = False,
              probe_regions=(), fmt: str = "isa", min_blocks_per_sm: int = 0):
        """Lower in place through argus-to-nvptx / argus-to-gfx942, in
        process. Returns (objects, kernels, diagnostics): ``objects`` the
        gpu.binary objects as (binary symbol, bytes), ``kernels`` the launch
        ABI of each kernel by name (``_argus.KernelLaunch``); both None when
        the lowering failed. ``min_blocks_per_sm`` > 0 asks ptxas for that
        many resident blocks per SM (NVPTX ``.minnctapersm``: it bounds the
        registers per thread)."""
        if not hasattr(self._m, "lower"):
            raise FeatureUnavailable("the _argus extension was built without the lowering",
                                     missing="ArgusTransforms")
        objects, kernels, diags = self._m.lower(family, chip or "", bool(probes),
                                                [str(r) for r in probe_regions], fmt,
                                                int(min_blocks_per_sm))
        return objects, (dict(kernels) if kernels is not None else None), list(diags)

    def measurement_sites(self) -> dict:
        """The measured regions, their asynchronous and synchronization
        sites and the pipeline depth, as ``--argus-print-sites`` prints them.
        Raises MLIRError (with the diagnostics) on region markers that do
        not nest or a region name with two IDs."""
        sites, diags = self._m.measurement_sites()
        if sites is None:
            raise MLIRError("the module's region markers are inconsistent", list(diags))
        return sites

    def clone(self) -> "Module":
        return Module(self._m.clone(), self.source_name)


def parse(text: str, source_name: str = "<string>", verify: bool = True,
          error_class=MLIRError) -> Module:
    """Parse module text; raises ``error_class`` (an MLIRError) with the
    diagnostics on failure."""
    handle, diags = context().parse(text, source_name, verify)
    if handle is None:
        raise error_class(f"cannot parse '{source_name}'", diags, text)
    return Module(handle, source_name)


@dataclasses.dataclass
class PipelineResult:
    ok: bool
    text: Optional[str]
    diagnostics: list

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]


def run_pipeline(text: str, pipeline: str, source_name: str = "<string>",
                 debug_info: bool = False) -> PipelineResult:
    """Parse ``text``, run the textual pass ``pipeline`` (e.g.
    ``"argus-verify-tags{report=r.json}"`` or ``"canonicalize,cse"``) and
    return the result (never raises for pass failures; raises MLIRError when
    the text does not parse)."""
    mod = parse(text, source_name)
    ok, diags = mod.run_pipeline(pipeline, check=False)
    return PipelineResult(ok, mod.text(debug_info=debug_info), diags)
