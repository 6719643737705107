"""The argus runtime in this process: run a lowered kernel on the local GPU
with numpy buffers, through the runtime's C API
(``runtime/include/argus/runtime/CApi.h``, ``libargus_runtime.so``) loaded
with ctypes. Nothing goes through files: the module image, the inputs and
the outputs stay in memory. ``argus-run`` (and ``--batch``) remain for
remote hosts; both read the same launch spec (docs/Runtime.md) and run the
same ``runSpec``.

This module needs neither MLIR nor the ``_argus`` extension, so a GPU host
that has only the runtime built (``cmake -S runtime``) can run modules that
were compiled elsewhere.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
from typing import Dict, List, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libargus_runtime.so"
ABI_VERSION = 1

# argus-run's exit codes, the C API's return values.
EXIT_KINDS = {0: "ok", 1: "runtime", 2: "spec", 3: "no_driver", 4: "module", 5: "launch",
              6: "check"}


class RuntimeFailure(RuntimeError):
    """A run that did not happen: ``code`` is argus-run's exit code, ``kind``
    its name (``spec``, ``no_driver``, ``module``, ``launch``, ``runtime``),
    ``error`` the runtime's error object (message, JSON path and pointer of
    the spec field, JIT log)."""

    def __init__(self, code: int, error: dict):
        self.code = code
        self.kind = EXIT_KINDS.get(code, "runtime")
        self.error = error
        msg = error.get("message") or f"argus runtime error {code}"
        if error.get("path"):
            msg += f" (at {error['path']})"
        if error.get("log"):
            msg += "\n" + error["log"]
        super().__init__(msg)


class _Buffer(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("in_", ctypes.c_void_p), ("in_bytes", ctypes.c_size_t),
                ("out", ctypes.c_void_p), ("out_bytes", ctypes.c_size_t)]


def library_candidates() -> List[str]:
    """Where ``libargus_runtime.so`` is looked for, in order:
    ``$ARGUS_RUNTIME_LIB``, inside the installed package, the build tree of
    the loaded ``_argus`` extension (``<build>/lib``) or ``$ARGUS_BUILD/lib``."""
    out: List[str] = []
    env = os.environ.get("ARGUS_RUNTIME_LIB")
    if env:
        out.append(env)
    out.append(os.path.join(_HERE, LIBRARY))
    dirs: List[str] = []
    try:
        from .tools import build_bin_dirs
        dirs = build_bin_dirs()
    except Exception:  # no _argus extension here (a runtime-only GPU host)
        if os.environ.get("ARGUS_BUILD"):
            dirs = [os.path.join(os.environ["ARGUS_BUILD"], "bin")]
    for d in dirs:
        out.append(os.path.join(os.path.dirname(d), "lib", LIBRARY))
    return out


_lib = None


def load() -> Optional[ctypes.CDLL]:
    """The runtime library (loaded once), or None when there is none."""
    global _lib
    if _lib is not None:
        return _lib
    for p in library_candidates():
        if not os.path.isfile(p):
            continue
        lib = ctypes.CDLL(p)
        lib.argus_rt_abi_version.restype = ctypes.c_int
        if lib.argus_rt_abi_version() != ABI_VERSION:
            raise RuntimeError(f"{p}: runtime ABI {lib.argus_rt_abi_version()}, this argus "
                               f"package expects {ABI_VERSION} (rebuild or reinstall argus)")
        lib.argus_rt_run.restype = ctypes.c_int
        lib.argus_rt_run.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.POINTER(_Buffer), ctypes.c_size_t, ctypes.c_char_p,
                                     ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.argus_rt_free.argtypes = [ctypes.c_void_p]
        lib.argus_rt_free.restype = None
        _lib = lib
        return lib
    return None


def available() -> bool:
    """Whether the runtime library can be loaded (not whether a GPU is)."""
    return load() is not None


@dataclasses.dataclass
class Run:
    """One in-process run: ``report`` is the run report (schema
    ``argus.run_report/1``, as ``argus-run --report`` writes it); ``code`` 0,
    or 6 when the result check failed; ``outputs`` maps each argument index
    asked for to the bytes of its checked run."""
    report: dict
    code: int
    outputs: Dict[int, bytes]

    @property
    def passed(self) -> Optional[bool]:
        chk = self.report.get("check")
        return None if not chk else chk.get("passed")


def run(spec: dict, module: bytes, inputs: Optional[Dict[int, bytes]] = None,
        outputs: Optional[Dict[int, int]] = None, cuda_lib: Optional[str] = None,
        hip_lib: Optional[str] = None) -> Run:
    """Run the launch ``spec`` (a dict; its ``"module"`` only names the
    module in reports) on ``module`` (PTX text as bytes, a cubin or a
    hsaco). ``inputs`` maps argument indices to their initial bytes (they
    replace the spec's ``"init"``); ``outputs`` maps argument indices to
    their size in bytes, and their contents after the checked run come back
    in ``Run.outputs``. ``cuda_lib`` / ``hip_lib`` replace the driver
    library (``$ARGUS_CUDA_LIB`` / ``$ARGUS_HIP_LIB`` by default). Raises
    RuntimeFailure when the run did not happen."""
    lib = load()
    if lib is None:
        raise RuntimeFailure(1, {"message": f"{LIBRARY} not found (looked in "
                                            f"{', '.join(library_candidates())}); build or "
                                            "install argus, or set ARGUS_RUNTIME_LIB"})
    inputs = inputs or {}
    outputs = outputs or {}
    keep = []  # the ctypes buffers must live until the call returns
    bufs = []
    out_space: Dict[int, ctypes.Array] = {}
    for arg in sorted(set(inputs) | set(outputs)):
        b = _Buffer(arg, None, 0, None, 0)
        if arg in inputs:
            data = bytes(inputs[arg])
            src = ctypes.create_string_buffer(data, len(data))
            keep.append(src)
            b.in_, b.in_bytes = ctypes.cast(src, ctypes.c_void_p), len(data)
        if arg in outputs:
            dst = ctypes.create_string_buffer(int(outputs[arg]))
            out_space[arg] = dst
            b.out, b.out_bytes = ctypes.cast(dst, ctypes.c_void_p), int(outputs[arg])
        bufs.append(b)
    arr = (_Buffer * len(bufs))(*bufs) if bufs else None
    report = ctypes.c_void_p()
    cuda_lib = cuda_lib or os.environ.get("ARGUS_CUDA_LIB")
    hip_lib = hip_lib or os.environ.get("ARGUS_HIP_LIB")
    code = lib.argus_rt_run(json.dumps(spec).encode(), module, len(module), arr, len(bufs),
                            cuda_lib.encode() if cuda_lib else None,
                            hip_lib.encode() if hip_lib else None, ctypes.byref(report))
    try:
        text = ctypes.string_at(report.value).decode() if report.value else "{}"
    finally:
        if report.value:
            lib.argus_rt_free(report.value)
    result = json.loads(text)
    if code not in (0, 6):
        raise RuntimeFailure(code, result)
    return Run(result, code, {a: space.raw for a, space in out_space.items()})
