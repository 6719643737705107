#!/usr/bin/env python3
"""Benchmark the Argus Hopper GEMM (gemm_tma_ws PTX) against cuBLAS and Triton.

Self-contained: needs PyTorch (CUDA), optionally Triton, and the CUDA driver
(libcuda.so.1, reached through ctypes). No cuda-python, no MLIR, no network.

    python3 bench/hopper/gemm_bench.py --ptx bench/hopper/gemm_tma_ws.ptx

The PTX is JIT-compiled by the driver (cuModuleLoadData). Its companion
`<ptx>.json` gives the kernel name, the dynamic shared memory and the TMA
tensor maps (box, element type, swizzle, OOB fill, parameter slot). The
kernel signature is the GEMM one (bench/hopper/README.md):

    0 A ptr, 1 A.shape[0], 2 A.shape[1],
    3 B ptr, 4 B.shape[0], 5 B.shape[1],
    6 C ptr, 7 C.shape[0], 8 C.shape[1],
    9 M, 10 N, 11 K                       (all .u64)
    12.. CUtensorMap by value (.param .align 64 .b8 [128]) at the JSON "param"

Timing: CUDA events around each launch, `--warmup` launches then the median
of `--iters`; the L2 cache is NOT flushed between launches (B and A of the
smaller shapes stay partly L2-resident), for all three contenders alike.
"""

import argparse
import ctypes
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

try:  # guarded so that --help (and the unit test) work without torch
    import torch
except Exception:  # pragma: no cover - depends on the machine
    torch = None

try:
    import triton
    import triton.language as tl
except Exception:  # pragma: no cover
    triton = None
    tl = None


# The CUDA driver (constants, ctypes binding, tensor maps, kernel
# parameters): python/argus/cuda_driver.py, shared with argus.aot.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from argus.cuda_driver import *  # noqa: E402,F401,F403

DEFAULT_SHAPES = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (8192, 8192, 1024),
    (1024, 8192, 8192),
    (4000, 4000, 4000),
    (16384, 16384, 256),
]

# Preconditions of gemm_tma_ws (it traps otherwise): boundary tiles are
# clipped, but TMA needs 16-byte rows (K and N multiples of 8 elements).
ROW_ALIGN = 8
SKIP_MSG = "skip: needs N%8, K%8 (16-byte TMA rows)"


def build_gemm_params(drv, kinfo, tensors, mnk, l2promo):
    """Parameter values of the GEMM signature: memrefs A, B, C as (ptr, d0, d1),
    then M, N, K, then the JSON tensor maps at their "param" slots.

    tensors: list of (data_ptr, shape tuple, strides tuple in elements).
    """
    values = []
    for ptr, shape, _ in tensors:
        values.append(int(ptr))
        values.extend(int(s) for s in shape)
    values.extend(int(x) for x in mnk)
    maps = sorted(kinfo.get("tensor_maps", []), key=lambda t: t["param"])
    for tm in maps:
        if tm["param"] != len(values):
            raise ValueError("tensor map %s at param %d, expected %d (signature mismatch)"
                             % (tm.get("name"), tm["param"], len(values)))
        ptr, shape, strides = tensors[tm["arg"]]
        values.append(encode_tensor_map(drv, tm, int(ptr), shape, strides, l2promo))
    return KernelParams(values)


class PtxKernel:
    """The one kernel of an argus-opt PTX and its `<ptx>.json`: loaded, its
    dynamic shared memory opted in, launched on a 2-D grid of 384-thread
    blocks (the warp-specialized sm_90a kernels of bench/attention and
    bench/moe; ArgusKernel below adds the GEMM bench's checks)."""

    def __init__(self, drv, ptx):
        with open(ptx + ".json") as f:
            meta = json.load(f)
        (self.name, self.info), = meta["kernels"].items()
        self.drv = drv
        self.smem = int(self.info["dynamic_smem"])
        with open(ptx, "rb") as f:
            self.module = drv.load_module(f.read())
        self.func = drv.get_function(self.module, self.name)
        drv.check(drv.cuFuncSetAttribute(
            self.func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.smem),
            "cuFuncSetAttribute")
        self.regs = drv.func_attr(self.func, CU_FUNC_ATTRIBUTE_NUM_REGS)
        self.local = drv.func_attr(self.func, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)

    def params(self, values, tensors):
        """KernelParams of the scalar `values` (buffers, sizes, arguments in
        signature order) followed by the JSON's tensor maps at their "param"
        slots, each encoded over `tensors[arg]` (a 2-D torch tensor)."""
        values = list(values)
        for tm in sorted(self.info["tensor_maps"], key=lambda t: t["param"]):
            if tm["param"] != len(values):
                raise ValueError("tensor map %s at param %d, expected %d"
                                 % (tm["name"], tm["param"], len(values)))
            t = tensors[tm["arg"]]
            values.append(encode_tensor_map(self.drv, tm, t.data_ptr(), tuple(t.shape),
                                            tuple(t.stride()),
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B))
        return KernelParams(values)

    def launch(self, params, grid, stream):
        self.drv.check(self.drv.cuLaunchKernel(self.func, grid[0], grid[1], 1, 384, 1, 1,
                                               self.smem, c_void_p(stream),
                                               params.array, None), "cuLaunchKernel")


# --------------------------------------------------------------------------
# Argus kernel (one PTX + JSON)
# --------------------------------------------------------------------------
class ArgusKernel:
    def __init__(self, drv, ptx_path, dev, num_sms, block, grid, l2promo, verbose=False):
        self.drv = drv
        self.ptx_path = ptx_path
        json_path = ptx_path + ".json"
        with open(json_path) as f:
            meta = json.load(f)
        kernels = meta.get("kernels", {})
        if len(kernels) != 1:
            raise ValueError("%s: expected exactly one kernel, got %s" % (json_path, list(kernels)))
        self.name, self.info = next(iter(kernels.items()))
        self.smem = int(self.info.get("dynamic_smem", 0))
        maps = self.info.get("tensor_maps", [])
        elems = {tm.get("element", "bf16") for tm in maps}
        self.element = elems.pop() if len(elems) == 1 else "bf16"
        self.block = block
        # A kernel with a thread-block cluster (the JSON's "cluster") is
        # launched with cuLaunchKernelEx, on a whole number of clusters.
        self.cluster = int((self.info.get("cluster") or [1])[0])
        self.grid = grid if grid else num_sms
        self.l2promo = l2promo
        optin = drv.device_attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev)
        if self.smem > optin:
            raise ValueError("kernel needs %d B dynamic smem, device opt-in max is %d B"
                             % (self.smem, optin))
        with open(ptx_path, "rb") as f:
            ptx = f.read()
        t0 = time.time()
        self.module = drv.load_module(ptx)
        self.jit_s = time.time() - t0
        self.jit_info = drv.jit_logs(ptx)[0] if verbose else ""
        self.func = drv.get_function(self.module, self.name)
        drv.check(drv.cuFuncSetAttribute(self.func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         self.smem),
                  "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=%d)" % self.smem)
        self.regs = drv.func_attr(self.func, CU_FUNC_ATTRIBUTE_NUM_REGS)
        self.local = drv.func_attr(self.func, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
        self.max_threads = drv.func_attr(self.func, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        if block > self.max_threads:
            raise ValueError("block %d > kernel max threads per block %d" % (block, self.max_threads))
        if self.cluster > 1:
            self.attr = CUlaunchAttribute(id=CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                                          x=self.cluster, y=1, z=1)
            cfg = self.config(self.grid - self.grid % self.cluster, None)
            active = c_int(0)
            drv.check(drv.cuOccupancyMaxActiveClusters(ctypes.byref(active), self.func,
                                                       ctypes.byref(cfg)),
                      "cuOccupancyMaxActiveClusters")
            self.active_clusters = active.value
            # Persistent: as many clusters as run at once, at most one block per SM.
            if not grid:
                self.grid = min(self.grid // self.cluster, active.value) * self.cluster
            self.grid -= self.grid % self.cluster

    def config(self, grid, stream):
        return CUlaunchConfig(gridDimX=grid, gridDimY=1, gridDimZ=1, blockDimX=self.block,
                              blockDimY=1, blockDimZ=1, sharedMemBytes=self.smem,
                              hStream=stream, attrs=ctypes.pointer(self.attr), numAttrs=1)

    def describe(self):
        cl = ""
        if self.cluster > 1:
            cl = ", clusters of %d (%d active at once)" % (self.cluster, self.active_clusters)
        return ("%s from %s: %d regs, %d B local, max %d threads, dyn smem %d B, grid %d x block %d%s, "
                "JIT %.2f s" % (self.name, self.ptx_path, self.regs, self.local, self.max_threads,
                                self.smem, self.grid, self.block, cl, self.jit_s))

    def prepare(self, A, B, C):
        M, K = A.shape
        N = B.shape[1]
        tensors = [(t.data_ptr(), tuple(t.shape), tuple(t.stride())) for t in (A, B, C)]
        return build_gemm_params(self.drv, self.info, tensors, (M, N, K), self.l2promo)

    def launch(self, params, stream):
        if self.cluster > 1:
            cfg = self.config(self.grid, c_void_p(stream))
            self.drv.check(self.drv.cuLaunchKernelEx(ctypes.byref(cfg), self.func, params.array,
                                                     None),
                           "cuLaunchKernelEx(%s)" % self.name)
            return
        self.drv.check(self.drv.cuLaunchKernel(self.func, self.grid, 1, 1, self.block, 1, 1,
                                               self.smem, c_void_p(stream), params.array, None),
                       "cuLaunchKernel(%s)" % self.name)

    def sync(self, stream):
        self.drv.check(self.drv.cuStreamSynchronize(c_void_p(stream)),
                       "cuStreamSynchronize after %s" % self.name)


# --------------------------------------------------------------------------
# Triton matmul (tutorial-style, grouped ordering, autotuned)
# --------------------------------------------------------------------------
if triton is not None:
    def _tcfg(bm, bn, bk, w, s):
        return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                             num_warps=w, num_stages=s)

    TRITON_CONFIGS = [
        _tcfg(128, 256, 64, 8, 3),
        _tcfg(128, 128, 64, 4, 4),
        _tcfg(256, 128, 64, 8, 3),
        _tcfg(64, 256, 32, 4, 4),
        _tcfg(128, 128, 32, 4, 4),
        _tcfg(128, 64, 64, 4, 4),
        _tcfg(64, 128, 64, 4, 4),
        _tcfg(128, 256, 32, 8, 4),
    ]

    @triton.autotune(configs=TRITON_CONFIGS, key=["M", "N", "K"])
    @triton.jit
    def _triton_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                              stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              GROUP_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = acc.to(c_ptr.dtype.element_ty)

        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    def triton_matmul(a, b, c):
        M, K = a.shape
        N = b.shape[1]

        def grid(meta):
            return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

        _triton_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                    b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        return c

    def triton_best_config():
        try:
            return str(_triton_matmul_kernel.best_config)
        except Exception:
            return "?"
else:
    def triton_matmul(a, b, c):
        raise RuntimeError("triton not importable")

    def triton_best_config():
        return "?"


# --------------------------------------------------------------------------
# Pure-Python helpers (argument parsing, formatting) -- unit-tested locally
# --------------------------------------------------------------------------
def parse_shapes(spec):
    """'4096,4096,4096;8192,8192,1024' -> [(4096,4096,4096), (8192,8192,1024)].
    A single number n means n,n,n; 'x' works as separator too."""
    if spec is None:
        return list(DEFAULT_SHAPES)
    out = []
    for part in spec.replace(" ", "").split(";"):
        if not part:
            continue
        nums = [int(x) for x in part.replace("x", ",").split(",") if x]
        if len(nums) == 1:
            nums = nums * 3
        if len(nums) != 3 or min(nums) <= 0:
            raise ValueError("bad shape %r (want M,N,K)" % part)
        out.append(tuple(nums))
    if not out:
        raise ValueError("no shapes in %r" % spec)
    return out


def parse_dtypes(spec):
    out = []
    for d in spec.split(","):
        d = d.strip().lower()
        if not d:
            continue
        d = {"bfloat16": "bf16", "float16": "fp16", "f16": "fp16", "half": "fp16"}.get(d, d)
        if d not in ("bf16", "fp16"):
            raise ValueError("unknown dtype %r (bf16, fp16)" % d)
        if d not in out:
            out.append(d)
    return out


def precondition_ok(m, n, k):
    return m >= 1 and n % ROW_ALIGN == 0 and k % ROW_ALIGN == 0 and n > 0 and k > 0


def tflops(m, n, k, ms):
    if ms is None or ms <= 0:
        return None
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def _f(x, fmt):
    return "-" if x is None else fmt % x


def short(reason, limit=90):
    reason = " ".join(str(reason).split())
    return reason if len(reason) <= limit else reason[: limit - 3] + "..."


TABLE_HEADER = ("| shape (M x N x K) | dtype | check (argus rel err) | argus ms | argus TFLOP/s | "
                "cuBLAS TFLOP/s | Triton TFLOP/s | argus/cuBLAS | argus/Triton |")
TABLE_RULE = "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"


def check_cell(row):
    if row.get("status") == "skip":
        return row.get("skip_reason", SKIP_MSG)
    chk = row.get("check", {})
    if chk.get("argus_fail"):
        return "FAIL (%s)" % short(chk["argus_fail"])
    errs = chk.get("argus_err")
    if not errs:
        return "-"
    return "ok %.2e" % max(errs)


def format_row(row, p):
    """One markdown line for `row` (result dict) and its timing pass `p` (dict or None)."""
    m, n, k = row["shape"]
    shape = "%d x %d x %d" % (m, n, k)
    p = p or {}
    if row.get("status") == "skip":
        cells = [shape, row["dtype"], check_cell(row)] + ["-"] * 6
        return "| " + " | ".join(cells) + " |"

    def timing_cell(key, unit_fn):
        if p.get(key + "_fail"):
            return "FAIL (%s)" % short(p[key + "_fail"], 50)
        return unit_fn(p.get(key + "_ms"))

    a_ms, c_ms, t_ms = p.get("argus_ms"), p.get("cublas_ms"), p.get("triton_ms")
    cells = [
        shape,
        row["dtype"],
        check_cell(row),
        timing_cell("argus", lambda v: _f(v, "%.3f")),
        timing_cell("argus", lambda v: _f(tflops(m, n, k, v), "%.1f")),
        timing_cell("cublas", lambda v: _f(tflops(m, n, k, v), "%.1f")),
        timing_cell("triton", lambda v: _f(tflops(m, n, k, v), "%.1f")),
        _f(c_ms / a_ms if a_ms and c_ms else None, "%.2f"),
        _f(t_ms / a_ms if a_ms and t_ms else None, "%.2f"),
    ]
    return "| " + " | ".join(cells) + " |"


def format_table(rows, pass_index):
    lines = [TABLE_HEADER, TABLE_RULE]
    for row in rows:
        passes = row.get("passes", [])
        p = passes[pass_index] if pass_index < len(passes) else None
        lines.append(format_row(row, p))
    return "\n".join(lines)


def format_notes(rows):
    """Check results of the references (cuBLAS/Triton) that did not pass, etc."""
    notes = []
    for row in rows:
        chk = row.get("check", {})
        tag = "%dx%dx%d %s" % (tuple(row["shape"]) + (row["dtype"],))
        for who in ("cublas", "triton"):
            if chk.get(who + "_fail"):
                notes.append("- %s: %s check FAIL (%s)" % (tag, who, short(chk[who + "_fail"], 200)))
            elif chk.get(who + "_err") is not None:
                notes.append("- %s: %s rel err %.2e" % (tag, who, chk[who + "_err"]))
        if row.get("triton_config"):
            notes.append("- %s: triton config %s" % (tag, row["triton_config"]))
    return "\n".join(notes)


def build_argparser():
    ap = argparse.ArgumentParser(
        description="Benchmark the Argus gemm_tma_ws PTX against cuBLAS (torch.matmul) and Triton "
                    "on one Hopper GPU. L2 is not flushed between timed launches.")
    ap.add_argument("--ptx", required=True, help="bf16 gemm_tma_ws PTX (companion <ptx>.json)")
    ap.add_argument("--ptx-fp16", default=None,
                    help="fp16 variant of the kernel (PTX + .json); without it fp16 rows are skipped")
    ap.add_argument("--shapes", default=None,
                    help='filter, e.g. "4096,4096,4096;8192,8192,8192" (M,N,K; "n" = n,n,n)')
    ap.add_argument("--dtypes", default="bf16,fp16", help="bf16,fp16 (default both; fp16 needs --ptx-fp16)")
    ap.add_argument("--repeat", type=int, default=2, help="timing passes (default 2)")
    ap.add_argument("--iters", type=int, default=50, help="timed launches per measurement (median; default 50)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed launches first (default 10)")
    ap.add_argument("--block", type=int, default=384, help="threads per block (default 384)")
    ap.add_argument("--grid", type=int, default=0, help="blocks (default: number of SMs, persistent)")
    ap.add_argument("--l2-promotion", default="256", choices=sorted(L2_PROMOTIONS),
                    help="CUtensorMapL2promotion for the tensor maps (default 256)")
    ap.add_argument("--tol", type=float, default=1e-2, help="relative Frobenius error bound (default 1e-2)")
    ap.add_argument("--seeds", default="1,2", help="seeds of the checked runs (default 1,2)")
    ap.add_argument("--json", default=None, metavar="OUT", help="write raw numbers to OUT")
    ap.add_argument("--no-triton", action="store_true", help="skip Triton")
    ap.add_argument("--isolate", action="store_true",
                    help="run each (shape, dtype) row in its own subprocess, so that a kernel trap "
                         "(which poisons the CUDA context) cannot take later rows down")
    ap.add_argument("--verbose", action="store_true", help="print the JIT info log")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return ap


# --------------------------------------------------------------------------
# GPU side
# --------------------------------------------------------------------------
def torch_dtype(name):
    return {"bf16": torch.bfloat16, "fp16": torch.float16}[name]


def time_ms(fn, warmup, iters):
    """Median (and min, mean) in ms of `iters` event-timed calls after `warmup`."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ts = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return statistics.median(ts), min(ts), statistics.fmean(ts)


def rel_err(c, ref):
    d = (c.float() - ref).norm().item()
    r = ref.norm().item()
    return d / r if r else d


class Env:
    def __init__(self, args):
        self.args = args
        self.context_dead = None  # reason once a sticky CUDA error was seen

    def probe_context(self):
        """After a failure: is the CUDA context still usable?"""
        if self.context_dead:
            return False
        try:
            torch.cuda.synchronize()
            torch.empty(1, device="cuda").add_(1)
            torch.cuda.synchronize()
            return True
        except Exception as e:  # sticky error (trap, illegal address, ...)
            self.context_dead = short(e, 120)
            return False


def make_inputs(m, n, k, dt, seed):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.float32, generator=g).mul_(0.5).to(dt)
    b = torch.randn(k, n, device="cuda", dtype=torch.float32, generator=g).mul_(0.5).to(dt)
    return a.contiguous(), b.contiguous()


def check_row(env, kernels, row):
    """Correctness of one (shape, dtype) row: argus for each seed, cuBLAS and
    Triton for the first seed. Fills row["check"] and row["status"]."""
    args = env.args
    m, n, k = row["shape"]
    dt = torch_dtype(row["dtype"])
    kern = kernels.get(row["dtype"])
    stream = torch.cuda.current_stream().cuda_stream
    chk = row.setdefault("check", {})
    row.setdefault("passes", [])
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    row["status"] = "fail"

    if env.context_dead:
        chk["argus_fail"] = "CUDA context lost earlier: %s" % env.context_dead
        return
    argus_ok = kern is not None
    if kern is None:
        chk["argus_fail"] = "kernel not loaded: %s" % (kernels.get(row["dtype"] + "_error") or "?")
    errs = []
    chk["argus_err"] = errs
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for si, seed in enumerate(seeds):
            a, b = make_inputs(m, n, k, dt, seed)
            ref = torch.matmul(a.float(), b.float())
            if argus_ok:
                c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
                try:
                    params = kern.prepare(a, b, c)
                    torch.cuda.synchronize()
                    kern.launch(params, stream)
                    kern.sync(stream)
                    e = rel_err(c, ref)
                    nan = bool(torch.isnan(c).any().item())
                    errs.append(e)
                    if nan:
                        chk["argus_fail"] = "NaN left in C (seed %d, rel err %.2e)" % (seed, e)
                        argus_ok = False
                    elif not (e < args.tol):
                        chk["argus_fail"] = "rel err %.3e >= %.0e (seed %d)" % (e, args.tol, seed)
                        argus_ok = False
                except Exception as ex:
                    chk["argus_fail"] = "launch: %s" % short(ex, 150)
                    argus_ok = False
                    row["argus_launch_failed"] = True
                    if not env.probe_context():
                        chk["argus_fail"] += " [CUDA context lost; later rows cannot run: use --isolate]"
                        return
                del c
            if si == 0:  # the references, once
                c = torch.matmul(a, b)
                chk["cublas_err"] = rel_err(c, ref)
                if not chk["cublas_err"] < args.tol:
                    chk["cublas_fail"] = "rel err %.3e" % chk["cublas_err"]
                del c
                if not args.no_triton and triton is not None:
                    try:
                        c = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
                        triton_matmul(a, b, c)  # autotunes on the first call for this (M, N, K)
                        c.fill_(float("nan"))
                        triton_matmul(a, b, c)
                        torch.cuda.synchronize()
                        chk["triton_err"] = rel_err(c, ref)
                        if not chk["triton_err"] < args.tol or torch.isnan(c).any().item():
                            chk["triton_fail"] = "rel err %.3e" % chk["triton_err"]
                        row["triton_config"] = triton_best_config()
                        del c
                    except Exception as ex:
                        chk["triton_fail"] = short(ex, 200)
                        if not env.probe_context():
                            return
            del a, b, ref
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
        if not env.context_dead:
            try:
                torch.cuda.empty_cache()
            except Exception:
                pass
    row["status"] = "ok" if argus_ok and "argus_fail" not in chk else "fail"


def time_row(env, kernels, row):
    """One timing pass of one row (fresh inputs, seed of the first check);
    appends a dict to row["passes"]."""
    args = env.args
    m, n, k = row["shape"]
    dt = torch_dtype(row["dtype"])
    kern = None if row.get("argus_launch_failed") else kernels.get(row["dtype"])
    stream = torch.cuda.current_stream().cuda_stream
    chk = row.setdefault("check", {})
    p = {}
    row.setdefault("passes", []).append(p)
    if env.context_dead:
        p["argus_fail"] = "context lost"
        return
    seed = int(args.seeds.split(",")[0])
    a, b = make_inputs(m, n, k, dt, seed)
    c_arg = torch.empty((m, n), device="cuda", dtype=dt)
    c_ref = torch.empty((m, n), device="cuda", dtype=dt)
    try:
        if kern is not None:
            try:
                params = kern.prepare(a, b, c_arg)
                p["argus_ms"], p["argus_min_ms"], p["argus_mean_ms"] = time_ms(
                    lambda: kern.launch(params, stream), args.warmup, args.iters)
            except Exception as ex:
                p["argus_fail"] = short(ex)
                row["status"] = "fail"
                row["argus_launch_failed"] = True
                chk.setdefault("argus_fail", "timing: %s" % short(ex))
                if not env.probe_context():
                    return
        try:
            p["cublas_ms"], p["cublas_min_ms"], p["cublas_mean_ms"] = time_ms(
                lambda: torch.matmul(a, b, out=c_ref), args.warmup, args.iters)
        except Exception as ex:
            p["cublas_fail"] = short(ex)
            if not env.probe_context():
                return
        if not args.no_triton and triton is not None and "triton_fail" not in chk:
            try:
                p["triton_ms"], p["triton_min_ms"], p["triton_mean_ms"] = time_ms(
                    lambda: triton_matmul(a, b, c_ref), args.warmup, args.iters)
            except Exception as ex:
                p["triton_fail"] = short(ex)
                if not env.probe_context():
                    return
        for who in ("argus", "cublas", "triton"):
            if p.get(who + "_ms"):
                p[who + "_tflops"] = tflops(m, n, k, p[who + "_ms"])
    finally:
        del a, b, c_arg, c_ref
        if not env.context_dead:
            try:
                torch.cuda.empty_cache()
            except Exception:
                pass


def make_rows(args):
    shapes = parse_shapes(args.shapes)
    dtypes = parse_dtypes(args.dtypes)
    rows = []
    for dt in dtypes:
        for (m, n, k) in shapes:
            row = {"shape": [m, n, k], "dtype": dt}
            if dt == "fp16" and not args.ptx_fp16:
                row["status"] = "skip"
                row["skip_reason"] = "skip: fp16 needs --ptx-fp16"
            elif not precondition_ok(m, n, k):
                row["status"] = "skip"
                row["skip_reason"] = SKIP_MSG
            rows.append(row)
    return rows


def env_info(drv, dev, kernels):
    info = {
        "host": platform.node(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "triton": getattr(triton, "__version__", None) if triton is not None else None,
        "device": torch.cuda.get_device_name(),
        "capability": list(torch.cuda.get_device_capability()),
        "driver_version": None,
        "sms": None,
    }
    if drv is not None:
        v = drv.driver_version()
        info["driver_version"] = "%d.%d" % (v // 1000, (v % 1000) // 10)
        info["sms"] = drv.device_attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        if out.returncode == 0:
            info["nvidia_smi"] = out.stdout.strip()
    except Exception:
        pass
    for dt, kern in kernels.items():
        if isinstance(kern, ArgusKernel):
            info["kernel_" + dt] = kern.describe()
        elif dt.endswith("_error"):
            info["kernel_" + dt] = kern
    return info


def child_cmd(args, row):
    cmd = [sys.executable, os.path.abspath(__file__), "--ptx", args.ptx, "--child",
           "--shapes", "%d,%d,%d" % tuple(row["shape"]), "--dtypes", row["dtype"],
           "--repeat", str(args.repeat), "--iters", str(args.iters), "--warmup", str(args.warmup),
           "--block", str(args.block), "--grid", str(args.grid), "--l2-promotion", args.l2_promotion,
           "--tol", repr(args.tol), "--seeds", args.seeds]
    if args.ptx_fp16:
        cmd += ["--ptx-fp16", args.ptx_fp16]
    if args.no_triton:
        cmd.append("--no-triton")
    return cmd


def run_isolated(args, rows):
    seen = set()
    for row in rows:
        if row.get("status") == "skip":
            continue
        tag = "%dx%dx%d %s" % (tuple(row["shape"]) + (row["dtype"],))
        print("... %s (subprocess)" % tag, flush=True)
        with tempfile.TemporaryDirectory() as td:
            out = os.path.join(td, "row.json")
            cmd = child_cmd(args, row) + ["--json", out]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            try:
                with open(out) as f:
                    data = json.load(f)
                row.update(data["rows"][0])
                for key, val in sorted(data.get("env", {}).items()):
                    if key.startswith("kernel_") and key not in seen:
                        seen.add(key)
                        print("- %s: %s" % (key, val))
            except Exception:
                tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
                print("\n".join("    " + l for l in tail))
                row["status"] = "fail"
                row.setdefault("check", {})["argus_fail"] = "subprocess rc %d" % proc.returncode


def main(argv=None):
    args = build_argparser().parse_args(argv)
    if args.repeat < 1 or args.iters < 1 or args.warmup < 0:
        print("--repeat/--iters must be >= 1", file=sys.stderr)
        return 2
    rows = make_rows(args)
    if torch is None:
        print("error: PyTorch is not importable", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("error: no CUDA device visible to PyTorch", file=sys.stderr)
        return 2

    # torch first: it creates and makes current the primary context.
    torch.cuda.init()
    _ = torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    dev_ordinal = torch.cuda.current_device()

    drv = CudaDriver()
    drv.check(drv.cuInit(0), "cuInit")
    dev = drv.device(dev_ordinal)
    drv.current_context(dev)
    num_sms = drv.device_attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    l2promo = L2_PROMOTIONS[args.l2_promotion]

    kernels = {}
    if not args.isolate:
        for dt, path in (("bf16", args.ptx), ("fp16", args.ptx_fp16)):
            if not path or not any(r["dtype"] == dt and r.get("status") != "skip" for r in rows):
                continue
            try:
                kernels[dt] = ArgusKernel(drv, path, dev, num_sms, args.block, args.grid, l2promo,
                                          verbose=args.verbose)
                want = "bf16" if dt == "bf16" else "f16"
                if ELEMENTS[kernels[dt].element][2] != ELEMENTS[want][2]:
                    raise ValueError("%s tensor maps are %s, rows are %s"
                                     % (path, kernels[dt].element, dt))
            except Exception as ex:
                kernels.pop(dt, None)
                kernels[dt + "_error"] = short(ex, 2000)
                print("error: loading %s failed:\n%s" % (path, ex), file=sys.stderr)

    info = env_info(drv, dev, kernels)
    if not args.child:
        print("# Argus gemm_tma_ws vs cuBLAS vs Triton")
        print()
        print("- device: %s (sm_%d%d, %s SMs), driver %s%s"
              % (info["device"], info["capability"][0], info["capability"][1], info["sms"],
                 info["driver_version"], (" [nvidia-smi: %s]" % info["nvidia_smi"])
                 if info.get("nvidia_smi") else ""))
        print("- torch %s (CUDA %s), triton %s, python %s"
              % (info["torch"], info["torch_cuda"], info["triton"] or "n/a", info["python"]))
        for key in sorted(info):
            if key.startswith("kernel_"):
                print("- %s: %s" % (key, info[key]))
        if args.verbose:
            for dt, kern in kernels.items():
                if isinstance(kern, ArgusKernel) and kern.jit_info:
                    print("- JIT log (%s):\n```\n%s\n```" % (dt, kern.jit_info.strip()))
        print("- timing: CUDA events per launch, %d warmup, median of %d; L2 NOT flushed between "
              "launches; A, B ~ 0.5*randn; check = relative Frobenius error vs fp32 matmul "
              "(TF32 off), tol %.0e, seeds %s, C poisoned with NaN"
              % (args.warmup, args.iters, args.tol, args.seeds))
        print("- argus/cuBLAS, argus/Triton = their time / argus time (= TFLOP/s ratio; > 1: argus "
              "faster)")
        if args.no_triton or triton is None:
            print("- Triton: %s" % ("disabled (--no-triton)" if args.no_triton else "not importable"))
        if not args.ptx_fp16 and "fp16" in parse_dtypes(args.dtypes):
            print("- fp16 rows skipped: no --ptx-fp16 given")
        print(flush=True)

    if args.isolate:
        run_isolated(args, rows)
        for pi in range(args.repeat):
            print("## pass %d/%d\n" % (pi + 1, args.repeat))
            print(format_table(rows, pi))
            print()
    else:
        env = Env(args)
        # Pass 1 checks each row, then times it; later passes re-time all rows.
        for pi in range(args.repeat):
            if not args.child:
                print("## pass %d/%d\n" % (pi + 1, args.repeat))
                print(TABLE_HEADER)
                print(TABLE_RULE, flush=True)
            for row in rows:
                if row.get("status") != "skip":
                    try:  # never let one row abort the others
                        if pi == 0:
                            check_row(env, kernels, row)
                        time_row(env, kernels, row)
                    except Exception as ex:
                        row["status"] = "fail"
                        row.setdefault("check", {}).setdefault("argus_fail", short(ex, 150))
                        env.probe_context()
                if not args.child:
                    passes = row.get("passes", [])
                    print(format_row(row, passes[pi] if pi < len(passes) else None), flush=True)
            if not args.child:
                print()
    if not args.child:
        notes = format_notes(rows)
        if notes:
            print("## references\n")
            print(notes)
            print()

    any_fail = any(r.get("status") == "fail" for r in rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": info, "args": vars(args), "rows": rows, "any_argus_fail": any_fail},
                      f, indent=1, default=str)
    if not args.child:
        print("argus: %s" % ("FAIL (see table)" if any_fail else "all checked rows pass"))
    return 1 if any_fail else 0


if __name__ == "__main__":
    sys.exit(main())
