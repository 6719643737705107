"""Ahead-of-time kernels: compiled where MLIR is, launched where only the CUDA
driver and PyTorch are.

The GPU host of a team is often not the machine that builds argus (the H200
host here has CUDA, PyTorch and Triton but no MLIR). ``export`` verifies
nothing and changes nothing: it writes a compiled kernel's PTX and a JSON
file with everything a launch needs (the parameter names and annotations,
the launch ABI's slots, tensor maps, dynamic shared memory, block, cluster,
grid rule and index-data preconditions). ``load`` reads the pair back with
the standard library only, and the result launches Triton-style on device
tensors, in place and asynchronously on PyTorch's current stream::

    # development machine
    argus.aot.export(gemm_tma_ws.gemm_tma_store_ws, "kernels/")
    # GPU host (no MLIR): sys.path has argus's python/ directory
    k = argus.aot.load("kernels/gemm_tma_store_ws.json")
    k[None](a, b, c, M, N, K)    # grid from the kernel's rule, persistent: SMs
    torch.cuda.synchronize()

Launch checks, each an ArgusError naming the argument: the argument count,
a tensor's rank, static sizes and element type, one value per symbolic size
across tensors and index arguments, contiguous CUDA tensors (the ABI passes
a pointer and sizes, no strides), and the index tensors' declared ranges and
distinctness (``argus.assume_indices``, the data the proof assumed).
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, List, Optional, Sequence

from .errors import ArgusError
from .grid import check_indices, check_limits, launch_grid

FORMAT = "argus-aot/1"

# Element types as torch names them (checked without importing torch).
TORCH_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
                "i32": "int32", "i64": "int64", "i16": "int16", "i8": "int8", "ui8": "uint8",
                "index": "int64"}
# Scalar parameters by value (argus.Scalar): their C types.
SCALAR_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
                 "i64": ctypes.c_int64, "index": ctypes.c_int64, "i16": ctypes.c_int16,
                 "i8": ctypes.c_int8}


def variant_name(kernel) -> str:
    """The file name (without extension) of ``kernel``'s export: its name, and
    for a variant with ``argus.constexpr`` values a digest of them with the
    target, block and ``min_blocks_per_sm`` (variants share the name)."""
    if not kernel.constexprs:
        return kernel.name
    return kernel.name + "-" + _digest(_variant_key(kernel))


def _variant_key(kernel) -> dict:
    return {"constexprs": {k: repr(v) for k, v in sorted(kernel.constexprs.items())},
            "target": kernel.target, "block": list(kernel.block),
            "min_blocks_per_sm": kernel.min_blocks_per_sm}


def _digest(key: dict) -> str:
    import hashlib
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:10]


def _annotation(ann) -> dict:
    if hasattr(ann, "shape"):
        return {"shape": list(ann.shape), "dtype": ann.dtype}
    return {"dtype": getattr(ann, "dtype", "index")}


def export(kernel, directory: str, target: Optional[str] = None) -> str:
    """Compiles ``kernel`` (an ``@argus.kernel``, or a specialised variant)
    for ``target`` (default: the kernel's) and writes ``<name>.ptx`` and
    ``<name>.json`` into ``directory``. Returns the JSON's path. Verification
    is the caller's (``kernel.verify()``): export ships what it is given."""
    if target is not None and target != kernel.target:
        kernel = kernel.specialize(target=target)  # the export records its target
    ck = kernel.compile()
    file = variant_name(kernel)
    if ck.format != "ptx":
        raise ArgusError(f"argus.aot exports PTX kernels (sm_*), not {ck.target}",
                         hint="run gfx942 kernels through argus.compile.run_kernel")
    abi = ck.abi
    launch = ck.launch
    os.makedirs(directory, exist_ok=True)
    ptx = file + ".ptx"
    with open(os.path.join(directory, ptx), "w") as f:
        f.write(ck.asm)
    meta = {
        "format": FORMAT,
        "name": ck.name,
        "entry": ck.kernel_name,
        "target": ck.target,
        "module": ptx,
        "block": list(ck.block) + [1] * (3 - len(ck.block)),
        "arguments": [dict(name=n, **_annotation(a)) for n, a in ck.params],
        "slots": [{"kind": p.kind, "arg": p.arg, "dim": p.dim, "dtype": p.dtype,
                   "written": bool(p.written)} for p in abi.params],
        "dynamic_smem": launch["dynamic_smem"],
        "tensor_maps": launch["tensor_maps"],
        "grid": launch["grid"],
        "indices": launch["indices"],
        "limits": launch.get("limits"),
        "cluster": launch["cluster"],
        "variant": _variant_key(kernel),
    }
    path = os.path.join(directory, file + ".json")
    with open(path, "w") as f:
        json.dump(meta, f, indent=1)
    return path


def find(kernel, path: Optional[str] = None) -> Optional[str]:
    """The export of ``kernel`` (a variant's, for its constexpr values) in
    the directories of ``path`` (default ``$ARGUS_AOT_PATH``, separated by
    ``os.pathsep``), or None."""
    path = os.environ.get("ARGUS_AOT_PATH", "") if path is None else path
    for d in filter(None, path.split(os.pathsep)):
        f = os.path.join(d, variant_name(kernel) + ".json")
        if f in _LOADED:  # a launch's lookup reads no file once loaded
            got = _LOADED[f].meta.get("variant")
        elif os.path.exists(f):
            try:
                with open(f) as fh:
                    got = json.load(fh).get("variant")
            except (OSError, ValueError, AttributeError) as e:
                raise ArgusError(f"{f}: cannot read the exported kernel: {e}",
                                 hint="re-export it with argus.aot.export") from None
        else:
            continue
        if got != _variant_key(kernel):
            raise ArgusError(f"{f} was exported for {got}, not for {_variant_key(kernel)}",
                             hint="export this variant: argus.aot.export("
                             "kernel.specialize(...), dir)")
        return f
    return None


_LOADED: dict = {}


def loaded(path: str) -> "AotKernel":
    """``load(path)`` once per path and process (the module stays loaded)."""
    k = _LOADED.get(path)
    if k is None:
        k = _LOADED[path] = load(path)
    return k


def load(path: str, driver=None) -> "AotKernel":
    """The kernel exported to ``path`` (its JSON), loaded into the current
    CUDA context through ``driver`` (default: ``cuda_driver.CudaDriver()``
    over libcuda.so.1)."""
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise ArgusError(f"{path}: cannot read the exported kernel: {e}",
                         hint="write it with argus.aot.export") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise ArgusError(f"{path}: not an argus.aot kernel (format {got!r}, expected "
                         f"{FORMAT!r})", hint="write it with argus.aot.export")
    _check_meta(path, meta)
    module = os.path.join(os.path.dirname(path), meta["module"])
    try:
        with open(module, "rb") as f:
            image = f.read()
    except OSError as e:
        raise ArgusError(f"{path}: its module {module} cannot be read: {e}",
                         hint="keep the .ptx beside the .json") from None
    return AotKernel(meta, image, driver)


# What load needs of an export, by key: the type each value must have.
_META_TYPES = {"name": str, "entry": str, "module": str, "block": list, "arguments": list,
               "slots": list, "dynamic_smem": int, "tensor_maps": list, "grid": list}
_SLOT_KINDS = ("buffer", "size", "index", "scalar", "tensor_map")


def _check_meta(path: str, meta: dict) -> None:
    """ArgusError naming the first field of an export that load cannot use."""
    def bad(what):
        raise ArgusError(f"{path}: {what}", hint="re-export it with argus.aot.export")
    for key, ty in _META_TYPES.items():
        if not isinstance(meta.get(key), ty):
            bad(f"'{key}' is missing or not a {ty.__name__}")
    if len(meta["block"]) != 3 or not all(isinstance(b, int) and b > 0 for b in meta["block"]):
        bad(f"'block' must be 3 positive ints, got {meta['block']!r}")
    n = len(meta["arguments"])
    for i, a in enumerate(meta["arguments"]):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str) or \
                not isinstance(a.get("dtype"), str):
            bad(f"argument {i} must have a name and a dtype, got {a!r}")
    maps = {m.get("param") for m in meta["tensor_maps"] if isinstance(m, dict)}
    for i, sl in enumerate(meta["slots"]):
        if not isinstance(sl, dict) or sl.get("kind") not in _SLOT_KINDS or \
                not isinstance(sl.get("arg"), int) or not 0 <= sl["arg"] < n:
            bad(f"slot {i} must have a kind of {_SLOT_KINDS} and an argument below {n}, "
                f"got {sl!r}")
        rank = len(meta["arguments"][sl["arg"]].get("shape", ()))
        if sl["kind"] == "size" and sl.get("dim") not in range(rank):
            bad(f"slot {i}: size of dimension {sl.get('dim')!r} of a tensor without it")
        if sl["kind"] == "tensor_map" and i not in maps:
            bad(f"slot {i} is a tensor map without an entry in 'tensor_maps'")


def _is_tensor(x) -> bool:
    return hasattr(x, "data_ptr") and hasattr(x, "shape") and hasattr(x, "stride")


def _dtype_name(x) -> str:
    return str(getattr(x, "dtype", "")).replace("torch.", "")


class AotKernel:
    """A loaded kernel: ``k[grid](*args)`` or ``k(*args, grid=..., stream=...)``."""

    def __init__(self, meta: dict, image: bytes, driver=None):
        from . import cuda_driver as cd
        self.meta = meta
        self.name = meta["name"]
        self.drv = driver or default_driver()
        self._cd = cd
        self.drv.check(self.drv.cuInit(0), "cuInit")
        self.device = self.drv.device(0)
        self.drv.current_context(self.device)
        self.module = self.drv.load_module(image)
        self.func = self.drv.get_function(self.module, meta["entry"])
        self.smem = int(meta.get("dynamic_smem") or 0)
        if self.smem:
            self.drv.check(self.drv.cuFuncSetAttribute(
                self.func, cd.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.smem),
                "cuFuncSetAttribute(max dynamic shared memory)")
        self._sms = None  # the device's SM count, once a persistent launch needs it
        self._active = None  # clusters resident at once, likewise
        self.cluster = list(meta.get("cluster") or [1, 1, 1])
        self.cluster += [1] * (3 - len(self.cluster))

    def __getitem__(self, grid):
        return lambda *args, stream=None: self(*args, grid=grid, stream=stream)

    # -- arguments ----------------------------------------------------------
    def _bind(self, args: Sequence[Any]) -> dict:
        """Checks the arguments against the annotations; returns the symbolic
        sizes' values."""
        params = self.meta["arguments"]
        if len(args) != len(params):
            raise ArgusError(f"{self.name} takes {len(params)} arguments "
                             f"({', '.join(p['name'] for p in params)}), got {len(args)}")
        sizes: dict = {}

        def bind(dim, value, where):
            if isinstance(dim, int):
                if value != dim:
                    raise ArgusError(f"{where} is {value}, the kernel expects {dim}")
            elif sizes.setdefault(dim, value) != value:
                raise ArgusError(f"{where} is {value}, but '{dim}' is {sizes[dim]} elsewhere",
                                 hint="every use of a symbolic size takes one value")

        for p, x in zip(params, args):
            name = p["name"]
            if "shape" in p:
                if not _is_tensor(x):
                    raise ArgusError(f"argument '{name}' must be a CUDA tensor, got "
                                     f"{type(x).__name__}")
                if len(x.shape) != len(p["shape"]):
                    raise ArgusError(f"argument '{name}' must have rank {len(p['shape'])}, "
                                     f"got shape {tuple(x.shape)}")
                want = TORCH_DTYPES.get(p["dtype"], p["dtype"])
                if _dtype_name(x) != want:
                    raise ArgusError(f"argument '{name}' must be {want} ({p['dtype']}), got "
                                     f"{_dtype_name(x)}", hint="convert it with .to(...)")
                if getattr(x, "is_cuda", True) is False:
                    raise ArgusError(f"argument '{name}' is on the host",
                                     hint="move it to the GPU with .cuda()")
                if hasattr(x, "is_contiguous") and not x.is_contiguous():
                    raise ArgusError(f"argument '{name}' is not contiguous (the kernel takes "
                                     "a pointer and sizes, row-major)",
                                     hint="pass .contiguous()")
                for k, (dim, n) in enumerate(zip(p["shape"], x.shape)):
                    bind(dim, int(n), f"argument '{name}' dimension {k}")
            elif isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ArgusError(f"argument '{name}' must be a number, got {type(x).__name__}")
            elif p["dtype"] in ("index", "i32", "i64") and not isinstance(x, int):
                raise ArgusError(f"argument '{name}' must be an int, got {x!r}")
            elif isinstance(x, int):
                bind(name, x, f"argument '{name}'")
        return sizes

    def _params(self, args: Sequence[Any]):
        cd = self._cd
        maps = {m["param"]: m for m in self.meta["tensor_maps"]}
        values: List[Any] = []
        for slot, s in enumerate(self.meta["slots"]):
            kind, arg = s["kind"], s["arg"]
            x = args[arg] if arg >= 0 else None
            if kind == "buffer":
                values.append(int(x.data_ptr()))
            elif kind == "size":
                values.append(int(x.shape[s["dim"]]))
            elif kind == "index":
                values.append(int(x))
            elif kind == "scalar":
                ctype = SCALAR_CTYPES.get(s["dtype"])
                if ctype is None:
                    raise ArgusError(f"scalar parameter of type {s['dtype']} cannot be passed")
                values.append(ctype(x))
            elif kind == "tensor_map":
                tm = maps[slot]
                t = args[tm["arg"]]
                values.append(cd.encode_tensor_map(
                    self.drv, tm, int(t.data_ptr()), tuple(t.shape), tuple(t.stride()),
                    cd.CU_TENSOR_MAP_L2_PROMOTION_L2_128B))
            else:
                raise ArgusError(f"launch slot {slot} of kind {kind!r} is not supported by "
                                 "argus.aot (compile without probes)")
        return cd.KernelParams(values)

    def grid_for(self, args: Sequence[Any], grid=None, sizes: Optional[dict] = None) -> tuple:
        """The launch grid: ``grid`` as given (a tuple, or a callable of the
        symbolic sizes, ``sizes`` when the caller bound them), else the
        kernel's grid rule, where a dimension the rule leaves to the host (a
        persistent kernel) is as many blocks as the GPU has SMs in x (whole
        clusters) and 1 in y and z."""
        if callable(grid):
            grid = grid(self._bind(args) if sizes is None else sizes)
        if grid is not None:
            g = tuple(int(v) for v in (grid if isinstance(grid, (tuple, list)) else (grid,)))
            return g + (1,) * (3 - len(g))
        rule = [dict(e) for e in self.meta["grid"]]
        for d, e in enumerate(rule):
            if e["extent"] == "free":
                if self._sms is None:  # asked once: it is on every persistent launch's path
                    self._sms = self.drv.device_attr(
                        self._cd.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, self.device)
                n = self._sms - self._sms % self.cluster[0] if d == 0 else 1
                if d == 0 and self.cluster != [1, 1, 1]:
                    # Only the clusters that fit at once: a persistent
                    # cluster beyond them would run its whole share after
                    # the others (a second wave, twice the time).
                    n = min(n, self._resident_clusters(n) * self.cluster[0])
                rule[d] = {"extent": max(n, self.cluster[d])}
        return launch_grid(rule, args)

    def _cluster_config(self, g, stream):
        """The launch configuration of a cluster kernel on grid ``g``; the
        attribute it points at is kept on the config."""
        cd = self._cd
        attr = cd.CUlaunchAttribute(id=cd.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                                    x=self.cluster[0], y=self.cluster[1], z=self.cluster[2])
        b = self.meta["block"]
        cfg = cd.CUlaunchConfig(g[0], g[1], g[2], b[0], b[1], b[2], self.smem,
                                ctypes.c_void_p(stream), ctypes.pointer(attr), 1)
        cfg._attr = attr
        return cfg

    def _resident_clusters(self, n):
        """How many clusters of this kernel the GPU runs at once (asked once)."""
        if self._active is None:
            active = ctypes.c_int(0)
            cfg = self._cluster_config((n, self.cluster[1], self.cluster[2]), 0)
            self.drv.check(self.drv.cuOccupancyMaxActiveClusters(
                ctypes.byref(active), self.func, ctypes.byref(cfg)),
                "cuOccupancyMaxActiveClusters")
            self._active = max(1, active.value)
        return self._active

    def __call__(self, *args, grid=None, stream=None):
        sizes = self._bind(args)
        check_indices(self.meta.get("indices"), args)
        g = self.grid_for(args, grid, sizes)
        check_limits(self.meta.get("limits"), self.meta.get("slots"), args, g,
                     [a.get("name") for a in self.meta.get("arguments", [])])
        for d in range(3):
            if g[d] % self.cluster[d]:
                raise ArgusError(f"grid.{'xyz'[d]} = {g[d]} is not a multiple of the "
                                 f"cluster's {self.cluster[d]} blocks")
        params = self._params(args)
        if stream is None:
            stream = _current_stream()
        b = self.meta["block"]
        if self.cluster != [1, 1, 1]:
            cfg = self._cluster_config(g, stream)
            self.drv.check(self.drv.cuLaunchKernelEx(ctypes.byref(cfg), self.func,
                                                     params.array, None), "cuLaunchKernelEx")
        else:
            self.drv.check(self.drv.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2],
                                                   self.smem, ctypes.c_void_p(stream),
                                                   params.array, None), "cuLaunchKernel")
        return g


def default_driver():
    """The driver ``load`` uses when given none: libcuda.so.1 (tests replace
    this function)."""
    from .cuda_driver import CudaDriver
    from .errors import NoGPU
    try:
        return CudaDriver()
    except OSError as e:
        raise NoGPU(f"no CUDA driver on this machine ({e}): argus.aot launches on a GPU "
                    "host") from None


def _current_stream() -> int:
    """PyTorch's current CUDA stream; 0 (the legacy default stream) without
    torch or with a PyTorch that has no CUDA (a CPU-only build such as
    Debian's python3-torch raises "Torch not compiled with CUDA enabled"
    from the lookup: issue 54)."""
    try:
        import torch
    except Exception:  # pragma: no cover - depends on the machine
        return 0
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is None or not cuda.is_available():
            return 0
        return int(cuda.current_stream().cuda_stream)
    except (AssertionError, RuntimeError, AttributeError):
        return 0
