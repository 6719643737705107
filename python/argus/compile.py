"""Lowering (``kernel.compile``), launch specs for ``argus-run`` and
``kernel.run`` on a GPU."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from . import ir as _ir
from .errors import CompileError, FeatureUnavailable, NoGPU

PIPELINES = {"nvptx": "argus-to-nvptx", "gfx942": "argus-to-gfx942"}

_DT_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
             "i32": "int32", "i64": "int64", "bf16": None}


def pipeline_for(target: str) -> str:
    return PIPELINES["gfx942" if target.startswith("gfx") else "nvptx"]


@dataclasses.dataclass
class CompiledKernel:
    """The result of lowering: ``asm`` is PTX (sm_*) or AMDGPU assembly
    (gfx*), ``kernel_name`` the entry point, ``params`` the DSL parameters
    (name, annotation) in order; ``probes`` whether a probe buffer argument
    was added."""
    name: str
    kernel_name: str
    target: str
    asm: str
    params: list
    block: tuple
    probes: bool
    region_names: Dict[int, str]
    diagnostics: list

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
                    outputs: Sequence[str] = ()) -> dict:
        """An argus-run launch spec (docs/Runtime.md) following the lowering
        ABI: each rank-r tensor is a pointer followed by r i64 sizes, each
        index an i64; the probe buffer (when compiled with probes) last.
        ``sizes`` gives every symbolic dim and index parameter."""
        args: List[dict] = []
        for pname, ann in self.params:
            if hasattr(ann, "shape"):
                shape = [d if isinstance(d, int) else int(sizes[d]) for d in ann.shape]
                a = {"name": pname, "kind": "buffer", "dtype": ann.dtype, "shape": shape,
                     "role": "output" if pname in outputs else "input"}
                if inits and pname in inits:
                    a["init"] = inits[pname]
                elif pname not in outputs:
                    a.update({"init": "random", "seed": len(args) + 1, "range": [-1, 1]})
                args.append(a)
                for i, d in enumerate(shape):
                    args.append({"name": f"{pname}_size{i}", "kind": "scalar", "dtype": "i64",
                                 "value": d})
            else:
                args.append({"name": pname, "kind": "scalar", "dtype": "i64",
                             "value": int(sizes[pname])})
        block = list(self.block) + [1] * (3 - len(self.block))
        spec = {"name": name or self.name, "module": module_path, "format": self.format,
                "kernel": self.kernel_name, "grid": list(grid), "block": block,
                "shared_mem": 0, "args": args, "warmup": warmup, "repetitions": repetitions}
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
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    if not data:
        raise CompileError(f"lowering for {target} produced no object ({pipe})", diags)
    return data.decode("utf-8", "replace"), diags


def compile_kernel(kernel, target: Optional[str] = None, probes: bool = False,
                   fmt: str = "isa") -> CompiledKernel:
    target = target or kernel.target
    chip = target if target != kernel.target else None
    asm, diags = compile_module(kernel.module(), target, probes=probes, fmt=fmt, chip=chip)
    return CompiledKernel(kernel.name, kernel.name, target, asm, list(kernel.params),
                          kernel.block, probes, dict(kernel.region_names), diags)


#===------------------------------------------------------------------------===#
# Running
#===------------------------------------------------------------------------===#


def find_argus_run() -> Optional[str]:
    env = os.environ.get("ARGUS_RUN")
    if env and os.path.exists(env):
        return env
    try:
        p = _ir.extension().argus_run_path
        if p and os.path.exists(p):
            return p
    except Exception:
        pass
    return shutil.which("argus-run")


def gpu_available() -> bool:
    """True when a CUDA or HIP driver library can be loaded."""
    for lib in ("libcuda.so.1", "libamdhip64.so"):
        try:
            ctypes.CDLL(lib)
            return True
        except OSError:
            continue
    return False


@dataclasses.dataclass
class RunResult:
    report: dict
    time_ms: Optional[float]
    passed: Optional[bool]
    regions: list


def run_kernel(kernel, *arrays, grid=None, sizes: Optional[Dict[str, int]] = None,
               probes: bool = False, check: Optional[dict] = None,
               outputs: Sequence[str] = (), repetitions: int = 50) -> RunResult:
    """Compile and run ``kernel`` on the local GPU through argus-run.

    The arrays give shapes and dtypes of the tensor parameters (numpy
    arrays) and values of index parameters (ints). argus-run generates the
    input data itself (deterministic random init, see docs/Runtime.md): the
    array *contents* are not uploaded."""
    if not gpu_available():
        raise NoGPU("no GPU driver (libcuda.so.1 / libamdhip64.so) on this machine; use "
                    "argus.agent batch measurement (argus-run --batch) on a GPU host")
    exe = find_argus_run()
    if exe is None:
        raise NoGPU("argus-run not found (set ARGUS_RUN or put it on PATH)")
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
                    sizes.setdefault(d, int(n))
                elif d != n:
                    raise ValueError(f"argument '{pname}': dim is {n}, kernel expects {d}")
        else:
            sizes[pname] = int(a)
    if grid is None:
        raise ValueError("give grid=(gx, gy, gz)")
    ck = compile_kernel(kernel, probes=probes)
    with tempfile.TemporaryDirectory(prefix="argus-run-") as d:
        mod = ck.write(os.path.join(d, "kernel." + ("ptx" if ck.format == "ptx" else "s")))
        spec = ck.launch_spec(mod, sizes, grid, check=check, outputs=outputs,
                              repetitions=repetitions)
        sp = os.path.join(d, "spec.json")
        with open(sp, "w") as f:
            json.dump(spec, f, indent=1)
        rp = os.path.join(d, "report.json")
        proc = subprocess.run([exe, sp, "--report", rp, "--quiet"], capture_output=True,
                              text=True)
        if proc.returncode == 3:
            raise NoGPU(proc.stderr.strip() or "argus-run found no GPU")
        if not os.path.exists(rp):
            raise RuntimeError(f"argus-run failed ({proc.returncode}): {proc.stderr.strip()}")
        with open(rp) as f:
            report = json.load(f)
    timing = report.get("timing") or {}
    chk = report.get("check") or {}
    return RunResult(report, timing.get("median"), chk.get("passed"),
                     ((report.get("probes") or {}).get("regions") or []))
