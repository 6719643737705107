"""Lowering (``kernel.compile``), launch specs for ``argus-run`` and
``kernel.run`` on a GPU."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import re
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from . import ir as _ir
from . import runtime as _runtime
from .errors import CompileError, FeatureUnavailable, NoGPU
from .grid import check_indices, check_limits, envelope, launch_grid
from .tools import find_tool

PIPELINES = {"nvptx": "argus-to-nvptx", "gfx942": "argus-to-gfx942"}

_DT_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
             "i32": "int32", "i64": "int64", "bf16": None}


def kernel_targets() -> List[str]:
    """The chips a kernel can be compiled for (one list, from the dialect)."""
    return list(_ir.extension().kernel_targets())


def check_target(target) -> str:
    """``target`` if it is a known chip, else ValueError listing them."""
    valid = kernel_targets()
    if not isinstance(target, str) or target not in valid:
        raise ValueError(f"unknown compile target {target!r}: expected one of "
                         f"{', '.join(valid)}")
    return target


def family_of(target: str) -> str:
    """The lowering a chip takes: ``gfx942`` for gfx*, ``nvptx`` for sm_*."""
    return "gfx942" if target.startswith("gfx") else "nvptx"


def pipeline_for(target: str) -> str:
    return PIPELINES[family_of(target)]


@dataclasses.dataclass
class CompiledKernel:
    """The result of lowering: ``asm`` is PTX (sm_*) or AMDGPU assembly
    (gfx*), ``kernel_name`` the entry point, ``params`` the DSL parameters
    (name, annotation) in order; ``probes`` whether a probe buffer argument
    was added; ``abi`` the launch ABI the lowering recorded for the kernel
    (``_argus.KernelLaunch``: every parameter slot in order with what it
    carries and whether the kernel writes it, the block, dynamic shared
    memory, tensor maps, the probe plan; docs/Lowering.md "Kernel ABI")."""
    name: str
    kernel_name: str
    target: str
    asm: str
    params: list
    block: tuple
    probes: bool
    region_names: Dict[int, str]
    diagnostics: list
    abi: Any = None
    binary: bytes = b""

    @property
    def launch(self) -> dict:
        """What a launch needs beyond the arguments (sm_*: ``dynamic_smem``
        bytes and ``tensor_maps``; the ``grid`` rule), from ``abi``, as
        argus-dump-binary's JSON has them."""
        abi = self.abi
        if abi is None:
            return {}
        return {"dynamic_smem": abi.dynamic_smem,
                "tensor_maps": [{"param": m.param, "name": m.name, "arg": m.arg,
                                 "box": list(m.box), "element": m.element,
                                 "swizzle": m.swizzle, "oob_fill": m.oob_fill,
                                 "pass": m.pass_} for m in abi.tensor_maps],
                "grid": abi.grid,
                "indices": abi.indices,
                "limits": getattr(abi, "limits", None),
                "cluster": list(abi.cluster) or None}

    @property
    def written(self) -> List[str]:
        """The tensor parameters the kernel may write (the lowering's
        analysis, recorded in the ABI)."""
        return [self.params[p.arg][0] for p in self.abi.params
                if p.kind == "buffer" and p.written]

    @property
    def format(self) -> str:
        return "ptx" if self.target.startswith("sm_") else "hsaco"

    def grid(self, *args) -> tuple:
        """The grid a launch with these arguments (arrays or shapes for
        tensors, ints for integers, in parameter order) must use, from the
        grid rule the lowering derived from the kernel's assumptions
        (:func:`launch_grid`)."""
        if len(args) != len(self.params):
            raise ValueError(f"{self.name} takes {len(self.params)} arguments, got {len(args)}")
        return launch_grid(self.abi.grid if self.abi is not None else None, args)

    def write(self, path: str) -> str:
        with open(path, "w") as f:
            f.write(self.asm)
        return path

    def launch_spec(self, module_path: str, sizes: Dict[str, int], grid, name: Optional[str] = None,
                    check: Optional[dict] = None, warmup: int = 5, repetitions: int = 50,
                    probe_capacity: int = 256, inits: Optional[Dict[str, Any]] = None,
                    outputs: Sequence[str] = (), inouts: Sequence[str] = (),
                    saves: Optional[Dict[str, str]] = None) -> dict:
        """An argus-run launch spec (docs/Runtime.md) following the lowering
        ABI: each rank-r tensor is a pointer followed by r i64 sizes, each
        index an i64, then one TMA descriptor per ``argus.tensor_map`` (a
        ``"kind": "tensor_map"`` argument over its tensor); the probe buffer
        (when compiled with probes) last. ``shared_mem`` is the dynamic
        shared memory the lowering asks for (sm_90a kernels over 48 KiB).
        ``sizes`` gives every symbolic dim and index parameter. Tensors named
        in ``outputs`` get role "output", in ``inouts`` role "inout", the
        rest "input"; ``inits`` maps names to an "init" value (e.g.
        ``{"file": path}``), ``saves`` names to a "save" path."""
        args: List[dict] = []
        maps = {m.param: m for m in self.abi.tensor_maps}
        for slot, p in enumerate(self.abi.params):
            pname, ann = self.params[p.arg] if p.arg >= 0 else ("probes", None)
            if p.kind == "buffer":
                shape = [d if isinstance(d, int) else int(sizes[d]) for d in ann.shape]
                role = ("output" if pname in outputs else
                        "inout" if pname in inouts else "input")
                a = {"name": pname, "kind": "buffer", "dtype": p.dtype, "shape": shape,
                     "role": role}
                if inits and pname in inits:
                    a["init"] = inits[pname]
                elif pname not in outputs:
                    a.update({"init": "random", "seed": len(args) + 1, "range": [-1, 1]})
                if saves and pname in saves:
                    a["save"] = saves[pname]
                args.append(a)
            elif p.kind == "size":
                d = ann.shape[p.dim]
                args.append({"name": f"{pname}_size{p.dim}", "kind": "scalar", "dtype": "i64",
                             "value": d if isinstance(d, int) else int(sizes[d])})
            elif p.kind == "index":
                args.append({"name": pname, "kind": "scalar", "dtype": "i64",
                             "value": int(sizes[pname])})
            elif p.kind == "scalar":  # argus-run takes 32/64-bit scalars
                v = sizes[pname]
                args.append({"name": pname, "kind": "scalar", "dtype": p.dtype,
                             "value": float(v) if p.dtype.startswith(("f", "bf")) else int(v)})
            elif p.kind == "tensor_map":
                tm = maps[slot]
                args.append({"name": f"tm{tm.name}", "kind": "tensor_map", "buffer": pname,
                             "box": list(tm.box), "swizzle": tm.swizzle,
                             "oob_fill": tm.oob_fill, "pass": tm.pass_})
            # probe_buffer: argus-run appends it from "probes" below.
        block = list(self.block) + [1] * (3 - len(self.block))
        spec = {"name": name or self.name, "module": module_path, "format": self.format,
                "kernel": self.kernel_name, "grid": list(grid), "block": block,
                "shared_mem": int(self.abi.dynamic_smem), "args": args, "warmup": warmup, "repetitions": repetitions}
        if self.abi.cluster:
            spec["cluster"] = list(self.abi.cluster)
        env = envelope(getattr(self.abi, "limits", None), self.abi.params,
                       [p for p, _ in self.params])
        if env:
            spec["envelope"] = env
        if check:
            spec["check"] = check
        plan = self.abi.probes
        if self.probes and plan:
            spec["probes"] = {"capacity_per_warp": probe_capacity,
                              "warps_per_block": int(plan["warps_per_block"]),
                              "warp_size": int(plan["warp_size"]),
                              "regions": {str(k): v for k, v in plan["regions"].items()}}
        return spec


def compile_module(module: "_ir.Module", target: str, probes: bool = False,
                   fmt: str = "isa", chip: Optional[str] = None,
                   probe_regions: Sequence[str] = (),
                   min_blocks_per_sm: int = 0) -> (str, list):
    """Lower a parsed module; returns (assembly text, diagnostics)."""
    data, diags, _ = _compile_module(module, target, probes, fmt, chip, probe_regions,
                                     min_blocks_per_sm)
    return data.decode("utf-8", "replace"), diags


def _compile_module(module, target, probes, fmt, chip, probe_regions, min_blocks_per_sm=0):
    """Lower a clone of ``module`` in process: (the first object's bytes,
    diagnostics, the launch ABI of each kernel by name)."""
    check_target(target)
    if chip is not None:
        check_target(chip)
    if fmt not in ("isa", "bin", "llvm", "offloading"):
        raise ValueError(f"unknown output format {fmt!r}: expected one of isa, bin, llvm, "
                         "offloading")
    pipe = pipeline_for(target)
    _ir.require_pass(pipe, f"compiling for {target}")
    objects, kernels, diags = module.clone().lower(family_of(target), chip or "", probes,
                                                   probe_regions, fmt, min_blocks_per_sm)
    if objects is None:
        raise CompileError(f"lowering for {target} failed ({pipe})", diags)
    if not objects or not objects[0][1]:
        raise CompileError(f"lowering for {target} produced no object ({pipe})", diags)
    return objects[0][1], diags, kernels


def compile_kernel(kernel, target: Optional[str] = None, probes: bool = False,
                   fmt: str = "isa") -> CompiledKernel:
    target = check_target(kernel.target if target is None else target)
    chip = target if target != kernel.target else None
    data, diags, kernels = _compile_module(kernel.module(), target, probes, fmt, chip, (),
                                           kernel.min_blocks_per_sm)
    abi = kernels.get(kernel.name)
    if abi is None:
        raise CompileError(f"lowering for {target} recorded no launch ABI for "
                           f"'{kernel.name}'", diags)
    return CompiledKernel(kernel.name, kernel.name, target, data.decode("utf-8", "replace"),
                          list(kernel.params), kernel.block, probes,
                          dict(kernel.region_names), diags, abi, data)


#===------------------------------------------------------------------------===#
# Running
#===------------------------------------------------------------------------===#


#===------------------------------------------------------------------------===#
# numpy <-> argus-run raw buffers
#===------------------------------------------------------------------------===#

class _LazyNumpy:
    """numpy, imported on first use (only kernel.run and the raw-buffer
    helpers need it)."""

    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


_np = _LazyNumpy()

# Little-endian numpy dtypes of the runtime's element types; bf16 travels as
# uint16 bit patterns (numpy has no bfloat16).
NUMPY_DTYPES = {"f32": "<f4", "f16": "<f2", "f64": "<f8", "bf16": "<u2", "i8": "i1",
                "u8": "u1", "i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8"}


def float_to_bf16_bits(x) -> "_np.ndarray":
    """bf16 bit patterns (uint16) of ``x`` (converted to float32 first),
    rounded to nearest even; NaNs stay (quiet) NaNs."""
    f = _np.ascontiguousarray(x, dtype="<f4")
    u = f.view("<u4").astype(_np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(_np.uint16)
    nan = ((u >> 16) | 0x40).astype(_np.uint16)
    return _np.where(_np.isnan(f), nan, rounded).astype("<u2")


def bf16_bits_to_float(bits) -> "_np.ndarray":
    """float32 values of bf16 bit patterns (exact)."""
    b = _np.ascontiguousarray(bits, dtype="<u2")
    return (b.astype("<u4") << 16).view("<f4")


def to_raw(array, dtype: str) -> bytes:
    """The raw little-endian bytes argus-run expects for an ``"init":
    {"file": ...}`` buffer of element type ``dtype``: the array converted to
    ``dtype`` (f16 via numpy float16; bf16 from a uint16 array taken as bit
    patterns, else from its float32 values), row-major."""
    if dtype not in NUMPY_DTYPES:
        raise ValueError(f"element type {dtype} cannot be passed to argus-run "
                         f"(supported: {', '.join(NUMPY_DTYPES)})")
    a = _np.asarray(array)
    if dtype == "bf16":
        bits = a if a.dtype == _np.uint16 else float_to_bf16_bits(a)
        return _np.ascontiguousarray(bits, dtype="<u2").tobytes()
    return _np.ascontiguousarray(a, dtype=NUMPY_DTYPES[dtype]).tobytes()


def from_raw(data: bytes, dtype: str, shape, like=None) -> "_np.ndarray":
    """The inverse of ``to_raw``: an array of ``shape`` from raw bytes. bf16
    comes back as float32, or as uint16 bit patterns when ``like`` (the
    destination array) is uint16."""
    raw = _np.frombuffer(data, dtype=NUMPY_DTYPES[dtype]).reshape(tuple(shape))
    if dtype == "bf16" and not (like is not None and _np.asarray(like).dtype == _np.uint16):
        return bf16_bits_to_float(raw).reshape(tuple(shape))
    return raw


def written_tensors(kernel, target: Optional[str] = None) -> List[str]:
    """Names of the tensor parameters the kernel may write: the lowering's
    analysis (lib/Analysis/WrittenArguments.cpp: a store, copy or other
    write through any view of the tensor), as recorded in the launch ABI."""
    return compile_kernel(kernel, target=target).written


def find_argus_run() -> Optional[str]:
    """argus-run: ``$ARGUS_RUN``, the installed tools, the build tree, then
    PATH (argus.tools.find_tool)."""
    return find_tool("argus-run")


def gpu_available() -> bool:
    """True when a CUDA or HIP driver library can be loaded. ``$ARGUS_GPU``
    overrides the probe: ``0`` says no GPU, ``1`` says there is one (tests
    use it with a stand-in ``$ARGUS_RUN``)."""
    forced = os.environ.get("ARGUS_GPU", "").strip().lower()
    if forced in ("0", "false", "no", "off"):
        return False
    if forced in ("1", "true", "yes", "on"):
        return True
    for lib in ("libcuda.so.1", "libamdhip64.so"):
        try:
            ctypes.CDLL(lib)
            return True
        except OSError:
            continue
    return False


@dataclasses.dataclass
class RunResult:
    """``report`` is argus-run's run report; ``time_ms`` the median time;
    ``passed`` the check's verdict (None without a check); ``regions`` the
    probe regions; ``outputs`` maps each written tensor's name to the array
    it was copied back into (the caller's array, updated in place)."""
    report: dict
    time_ms: Optional[float]
    passed: Optional[bool]
    regions: list
    outputs: Dict[str, Any] = dataclasses.field(default_factory=dict)


def _value(x):
    return x.get("value") if isinstance(x, dict) else x


def run_kernel(kernel, *arrays, grid=None, sizes: Optional[Dict[str, int]] = None,
               probes: bool = False, check: Optional[dict] = None,
               outputs: Sequence[str] = (), repetitions: int = 50,
               warmup: int = 5) -> RunResult:
    """Compile and run ``kernel`` on the local GPU, in process through the
    runtime's C API (argus.runtime; through an ``argus-run`` process instead
    when ``$ARGUS_RUN`` is set or the runtime library is not built), with
    Triton-like semantics: each tensor argument's contents (numpy arrays,
    converted to the parameter's element type) are uploaded, and every
    tensor the kernel may write (the launch ABI's ``written`` parameters,
    plus the names in ``outputs``) is copied back into its array in place
    after the checked run. Written tensors are
    "inout" (their initial contents are restored before the checked run,
    so elements the kernel does not write keep the array's values); names
    in ``outputs`` are "output" (poisoned with NaN before the checked run).
    Ints give index parameters. ``grid`` is (gx, gy, gz); None takes the
    grid the kernel's assumptions determine (``CompiledKernel.grid``).
    argus-run runs the kernel ``warmup`` + ``repetitions`` + 1 times; the
    arrays receive the last (checked) run."""
    if not gpu_available():
        raise NoGPU("no GPU driver (libcuda.so.1 / libamdhip64.so) on this machine; use "
                    "argus.agent batch measurement (argus-run --batch) on a GPU host")
    kernel.source()  # trace: fills kernel.params
    if len(arrays) != len(kernel.params):
        raise ValueError(f"{kernel.name} takes {len(kernel.params)} arguments, got {len(arrays)}")
    sizes = dict(sizes or {})
    for (pname, ann), a in zip(kernel.params, arrays):
        if hasattr(ann, "shape"):
            shp = getattr(a, "shape", None)
            if shp is None or len(shp) != len(ann.shape):
                raise ValueError(f"argument '{pname}' must be a rank-{len(ann.shape)} array")
            for d, n in zip(ann.shape, shp):
                if isinstance(d, str):
                    if sizes.setdefault(d, int(n)) != int(n):
                        raise ValueError(f"argument '{pname}': dim '{d}' is {n}, but "
                                         f"{sizes[d]} elsewhere")
                elif d != n:
                    raise ValueError(f"argument '{pname}': dim is {n}, kernel expects {d}")
            if ann.dtype not in NUMPY_DTYPES:
                raise ValueError(f"argument '{pname}': element type {ann.dtype} cannot be "
                                 "uploaded by argus-run")
        elif getattr(ann, "dtype", "i").startswith(("f", "bf")):
            sizes[pname] = float(a)
        else:
            sizes[pname] = int(a)
    tensor_names = [p for p, ann in kernel.params if hasattr(ann, "shape")]
    for o in outputs:
        if o not in tensor_names:
            raise ValueError(f"outputs: '{o}' is not a tensor parameter of {kernel.name}")
    # Kernel.compile caches the compiled forms of specialised variants.
    compiled = getattr(kernel, "compile", None)
    ck = compiled(probes=probes) if compiled else compile_kernel(kernel, probes=probes)
    if grid is None:  # the grid the kernel's assumptions determine
        grid = ck.grid(*arrays)
    # The data the proof assumed (argus.assume_indices) and the model's
    # ranges (ModelLimits.h), before the launch.
    check_indices(getattr(ck.abi, "indices", None), arrays)
    check_limits(getattr(ck.abi, "limits", None), getattr(ck.abi, "params", None), arrays,
                 grid, [p for p, _ in kernel.params])
    written = [p for p in tensor_names if p in outputs or p in ck.written]
    by_name = {p: a for (p, _), a in zip(kernel.params, arrays)}
    for p in written:
        a = by_name[p]
        if not isinstance(a, _np.ndarray) or not a.flags.writeable:
            raise ValueError(f"argument '{p}' is written by {kernel.name}: pass a writable "
                             "numpy array")
    inouts = [p for p in written if p not in outputs]
    if os.environ.get("ARGUS_RUN") or not _runtime.available():
        report, saved = _run_with_argus_run(ck, kernel, arrays, sizes, grid, check, outputs,
                                            inouts, written, repetitions, warmup)
    else:
        report, saved = _run_in_process(ck, kernel, arrays, sizes, grid, check, outputs,
                                        inouts, written, repetitions, warmup)
    results = {}
    for pname in written:
        ann = dict(kernel.params)[pname]
        a = by_name[pname]
        data = saved[pname]
        want = int(_np.prod(a.shape)) * _np.dtype(NUMPY_DTYPES[ann.dtype]).itemsize
        if len(data) != want:
            raise RuntimeError(f"the run returned {len(data)} bytes for '{pname}', "
                               f"expected {want}")
        a[...] = from_raw(data, ann.dtype, a.shape, like=a)
        results[pname] = a
    timing = report.get("timing") or {}
    chk = report.get("check") or {}
    return RunResult(report, _value(timing.get("median")), chk.get("passed"),
                     ((report.get("probes") or {}).get("regions") or []), results)


def _run_in_process(ck, kernel, arrays, sizes, grid, check, outputs, inouts, written,
                    repetitions, warmup):
    """The run through the runtime's C API (argus.runtime): the module, the
    inputs and the outputs stay in memory. Returns (report, {name: bytes})."""
    spec = ck.launch_spec("<memory>", sizes, grid, check=check, outputs=outputs,
                          inouts=inouts, repetitions=repetitions, warmup=warmup)
    index = {a["name"]: i for i, a in enumerate(spec["args"]) if a["kind"] == "buffer"}
    inputs, out_sizes = {}, {}
    for (pname, ann), a in zip(kernel.params, arrays):
        if not hasattr(ann, "shape"):
            continue
        raw = to_raw(a, ann.dtype)
        inputs[index[pname]] = raw
        if pname in written:
            out_sizes[index[pname]] = len(raw)
    try:
        run = _runtime.run(spec, ck.binary, inputs=inputs, outputs=out_sizes)
    except _runtime.RuntimeFailure as e:
        if e.kind == "no_driver":
            raise NoGPU(str(e)) from e
        raise
    return run.report, {p: run.outputs[index[p]] for p in written}


def _run_with_argus_run(ck, kernel, arrays, sizes, grid, check, outputs, inouts, written,
                        repetitions, warmup):
    """The run through an ``argus-run`` process (``$ARGUS_RUN``, or when the
    runtime library is not built): spec, module and buffers go through a
    temporary directory. Returns (report, {name: bytes})."""
    exe = find_argus_run()
    if exe is None:
        raise NoGPU("argus-run not found (set ARGUS_RUN, install argus, or put it on PATH)")
    with tempfile.TemporaryDirectory(prefix="argus-run-") as d:
        mod = ck.write(os.path.join(d, "kernel." + ("ptx" if ck.format == "ptx" else "s")))
        inits, saves, files = {}, {}, {}
        for i, ((pname, ann), a) in enumerate(zip(kernel.params, arrays)):
            if not hasattr(ann, "shape"):
                continue
            base = f"arg{i}_{re.sub(r'[^A-Za-z0-9_]', '_', pname)}"
            with open(os.path.join(d, base + ".in"), "wb") as f:
                f.write(to_raw(a, ann.dtype))
            inits[pname] = {"file": base + ".in"}  # relative to the spec
            if pname in written:
                saves[pname] = base + ".out"
                files[pname] = os.path.join(d, base + ".out")
        spec = ck.launch_spec(mod, sizes, grid, check=check, outputs=outputs, inouts=inouts,
                              inits=inits, saves=saves, repetitions=repetitions,
                              warmup=warmup)
        sp = os.path.join(d, "spec.json")
        with open(sp, "w") as f:
            json.dump(spec, f, indent=1)
        rp = os.path.join(d, "report.json")
        proc = subprocess.run([exe, sp, "--report", rp, "--quiet"], capture_output=True,
                              text=True)
        if proc.returncode == 3:
            raise NoGPU(proc.stderr.strip() or "argus-run found no GPU")
        if proc.returncode not in (0, 6) or not os.path.exists(rp):
            raise RuntimeError(f"argus-run failed ({proc.returncode}): {proc.stderr.strip()}")
        with open(rp) as f:
            report = json.load(f)
        saved = {}
        for pname in written:
            if not os.path.exists(files[pname]):
                raise RuntimeError(f"argus-run did not save '{pname}' ({files[pname]})")
            with open(files[pname], "rb") as f:
                saved[pname] = f.read()
    return report, saved
