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
from .errors import CompileError, FeatureUnavailable, NoGPU
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


def pipeline_for(target: str) -> str:
    return PIPELINES["gfx942" if target.startswith("gfx") else "nvptx"]


@dataclasses.dataclass
class CompiledKernel:
    """The result of lowering: ``asm`` is PTX (sm_*) or AMDGPU assembly
    (gfx*), ``kernel_name`` the entry point, ``params`` the DSL parameters
    (name, annotation) in order; ``probes`` whether a probe buffer argument
    was added; ``launch`` what the lowering says a launch needs (sm_*:
    ``dynamic_smem`` bytes and ``tensor_maps``, docs/Lowering.md "Kernel
    ABI"; empty when nothing)."""
    name: str
    kernel_name: str
    target: str
    asm: str
    params: list
    block: tuple
    probes: bool
    region_names: Dict[int, str]
    diagnostics: list
    launch: dict = dataclasses.field(default_factory=dict)

    @property
    def format(self) -> str:
        return "ptx" if self.target.startswith("sm_") else "hsaco"

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
        for pname, ann in self.params:
            if hasattr(ann, "shape"):
                shape = [d if isinstance(d, int) else int(sizes[d]) for d in ann.shape]
                role = ("output" if pname in outputs else
                        "inout" if pname in inouts else "input")
                a = {"name": pname, "kind": "buffer", "dtype": ann.dtype, "shape": shape,
                     "role": role}
                if inits and pname in inits:
                    a["init"] = inits[pname]
                elif pname not in outputs:
                    a.update({"init": "random", "seed": len(args) + 1, "range": [-1, 1]})
                if saves and pname in saves:
                    a["save"] = saves[pname]
                args.append(a)
                for i, d in enumerate(shape):
                    args.append({"name": f"{pname}_size{i}", "kind": "scalar", "dtype": "i64",
                                 "value": d})
            elif hasattr(ann, "dtype"):  # a scalar parameter: argus-run takes 32/64-bit
                dt = ann.dtype
                v = sizes[pname]
                args.append({"name": pname, "kind": "scalar", "dtype": dt,
                             "value": float(v) if dt.startswith("f") else int(v)})
            else:
                args.append({"name": pname, "kind": "scalar", "dtype": "i64",
                             "value": int(sizes[pname])})
        for tm in self.launch.get("tensor_maps", []):
            buf = self.params[tm["arg"]][0]
            args.append({"name": f"tm{tm.get('name', buf)}", "kind": "tensor_map",
                         "buffer": buf, "box": list(tm["box"]), "swizzle": tm["swizzle"],
                         "oob_fill": tm.get("oob_fill", "zero"), "pass": tm.get("pass", "value")})
        block = list(self.block) + [1] * (3 - len(self.block))
        spec = {"name": name or self.name, "module": module_path, "format": self.format,
                "kernel": self.kernel_name, "grid": list(grid), "block": block,
                "shared_mem": int(self.launch.get("dynamic_smem", 0)), "args": args, "warmup": warmup, "repetitions": repetitions}
        if check:
            spec["check"] = check
        if self.probes:
            warp = 64 if self.target.startswith("gfx") else 32
            threads = 1
            for b in self.block:
                threads *= b
            spec["probes"] = {"capacity_per_warp": probe_capacity,
                              "warps_per_block": -(-threads // warp), "warp_size": warp,
                              "regions": {str(k): v for k, v in self.region_names.items()}}
        return spec


def compile_module(module: "_ir.Module", target: str, probes: bool = False,
                   fmt: str = "isa", chip: Optional[str] = None,
                   probe_regions: Sequence[str] = ()) -> (str, list):
    """Lower a parsed module; returns (assembly text, diagnostics)."""
    asm, diags, _ = _compile_module(module, target, probes, fmt, chip, probe_regions)
    return asm, diags


def _compile_module(module, target, probes, fmt, chip, probe_regions):
    """compile_module, plus the launch facts of each kernel (the dump's
    ``.json`` sidecar: ``{kernel: {dynamic_smem, tensor_maps}}``)."""
    check_target(target)
    if chip is not None:
        check_target(chip)
    if fmt not in ("isa", "bin", "llvm", "offloading"):
        raise ValueError(f"unknown output format {fmt!r}: expected one of isa, bin, llvm, "
                         "offloading")
    pipe = pipeline_for(target)
    _ir.require_pass(pipe, f"compiling for {target}")
    mod = module.clone()
    fd, path = tempfile.mkstemp(prefix="argus-compile-", suffix=".s")
    os.close(fd)
    try:
        opts = [f"format={fmt}", f"dump={path}", f"probes={'true' if probes else 'false'}"]
        if chip:
            opts.append(f"chip={chip}")
        if probe_regions:
            opts.append("probe-regions=" + "|".join(str(r) for r in probe_regions))
        ok, diags = mod.run_pipeline(f"{pipe}{{{' '.join(opts)}}}", check=False)
        if not ok:
            raise CompileError(f"lowering for {target} failed ({pipe})", diags)
        with open(path, "rb") as f:
            data = f.read()
        launch = {}
        if os.path.exists(path + ".json"):
            with open(path + ".json") as f:
                launch = json.load(f).get("kernels", {})
    finally:
        for p in (path, path + ".json"):
            try:
                os.unlink(p)
            except OSError:
                pass
    if not data:
        raise CompileError(f"lowering for {target} produced no object ({pipe})", diags)
    return data.decode("utf-8", "replace"), diags, launch


def compile_kernel(kernel, target: Optional[str] = None, probes: bool = False,
                   fmt: str = "isa") -> CompiledKernel:
    target = check_target(kernel.target if target is None else target)
    chip = target if target != kernel.target else None
    asm, diags, launch = _compile_module(kernel.module(), target, probes, fmt, chip, ())
    return CompiledKernel(kernel.name, kernel.name, target, asm, list(kernel.params),
                          kernel.block, probes, dict(kernel.region_names), diags,
                          dict(launch.get(kernel.name, {})))


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


_SIG_ARG = re.compile(r"(%[A-Za-z0-9_]+): (?:memref<[^>]*>|index|[fi][0-9]+|bf16)")
_LOC = re.compile(r"\s+loc\(.*\)\s*$")
_DEF = re.compile(r"^\s*(%[A-Za-z0-9_]+)(?::\d+)? = (argus\.[a-z_.]+) (.*)$")
_VIEW_SRC = re.compile(r'^"(?:[^"\\]|\\.)*" (%[A-Za-z0-9_]+)\[')
_FIRST = re.compile(r"^(%[A-Za-z0-9_]+)")
_WRITE = re.compile(r"^\s*argus\.(?:store|copy|copy_async) %[A-Za-z0-9_]+, (%[A-Za-z0-9_]+)\b")


def written_tensors(kernel) -> List[str]:
    """Names of the tensor parameters the traced kernel writes: those whose
    global tiles (``argus.view`` / ``argus.gather_view`` of the tensor, and
    global-space results of ops on such tiles, e.g. ``argus.tag``) are the
    destination of ``argus.store``, ``argus.copy`` or ``argus.copy_async``.
    When the traced IR cannot be analysed, every tensor parameter counts as
    written."""
    src = kernel.source()  # traces: fills kernel.params
    tensors = [p for p, ann in kernel.params if hasattr(ann, "shape")]
    try:
        head = src[src.index("func.func @"):]
        head = head[:head.index(") attributes")]
        ssa = _SIG_ARG.findall(head)
        if len(ssa) != len(kernel.params):
            return tensors
    except (ValueError, AttributeError):
        return tensors
    param_of = {s: p for s, (p, _) in zip(ssa, kernel.params)}
    alias: Dict[str, str] = {}  # global tile -> tensor parameter
    written = set()
    for line in src.splitlines():
        body = _LOC.sub("", line)
        m = _DEF.match(body)
        if m:
            res, op, rest = m.groups()
            if op in ("argus.view", "argus.gather_view"):
                v = _VIEW_SRC.match(rest)
                if v and v.group(1) in param_of:
                    alias[res] = param_of[v.group(1)]
                continue
            f = _FIRST.match(rest)
            if f and f.group(1) in alias:
                result_type = body.rsplit("->", 1)[1] if "->" in body else body.rsplit(" : ", 1)[-1]
                if "global" in result_type:
                    alias[res] = alias[f.group(1)]
            continue
        w = _WRITE.match(body)
        if w:
            dest = w.group(1)
            if dest in alias:
                written.add(alias[dest])
            elif dest in param_of:
                written.add(param_of[dest])
    return [p for p in tensors if p in written]


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
    """Compile and run ``kernel`` on the local GPU through argus-run, with
    Triton-like semantics: each tensor argument's contents (numpy arrays,
    converted to the parameter's element type) are uploaded, and every
    tensor the kernel writes (``written_tensors``: a destination of
    store/copy in the traced IR, plus the names in ``outputs``) is copied
    back into its array in place after the checked run. Written tensors are
    "inout" (their initial contents are restored before the checked run,
    so elements the kernel does not write keep the array's values); names
    in ``outputs`` are "output" (poisoned with NaN before the checked run).
    Ints give index parameters. argus-run runs the kernel ``warmup`` +
    ``repetitions`` + 1 times; the arrays receive the last (checked) run."""
    if not gpu_available():
        raise NoGPU("no GPU driver (libcuda.so.1 / libamdhip64.so) on this machine; use "
                    "argus.agent batch measurement (argus-run --batch) on a GPU host")
    exe = find_argus_run()
    if exe is None:
        raise NoGPU("argus-run not found (set ARGUS_RUN, install argus, or put it on PATH)")
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
    if grid is None:
        raise ValueError("give grid=(gx, gy, gz)")
    tensor_names = [p for p, ann in kernel.params if hasattr(ann, "shape")]
    for o in outputs:
        if o not in tensor_names:
            raise ValueError(f"outputs: '{o}' is not a tensor parameter of {kernel.name}")
    written = [p for p in tensor_names if p in outputs or p in written_tensors(kernel)]
    by_name = {p: a for (p, _), a in zip(kernel.params, arrays)}
    for p in written:
        a = by_name[p]
        if not isinstance(a, _np.ndarray) or not a.flags.writeable:
            raise ValueError(f"argument '{p}' is written by {kernel.name}: pass a writable "
                             "numpy array")
    ck = compile_kernel(kernel, probes=probes)
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
        spec = ck.launch_spec(mod, sizes, grid, check=check, outputs=outputs,
                              inouts=[p for p in written if p not in outputs],
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
        results = {}
        for pname in written:
            ann = dict(kernel.params)[pname]
            a = by_name[pname]
            if not os.path.exists(files[pname]):
                raise RuntimeError(f"argus-run did not save '{pname}' ({files[pname]})")
            with open(files[pname], "rb") as f:
                data = f.read()
            want = int(_np.prod(a.shape)) * _np.dtype(NUMPY_DTYPES[ann.dtype]).itemsize
            if len(data) != want:
                raise RuntimeError(f"argus-run saved {len(data)} bytes for '{pname}', "
                                   f"expected {want}")
            a[...] = from_raw(data, ann.dtype, a.shape, like=a)
            results[pname] = a
    timing = report.get("timing") or {}
    chk = report.get("check") or {}
    return RunResult(report, _value(timing.get("median")), chk.get("passed"),
                     ((report.get("probes") or {}).get("regions") or []), results)
