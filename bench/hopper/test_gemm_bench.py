#!/usr/bin/env python3
"""Host-only tests of gemm_bench.py (no GPU, no torch needed).

The ctypes marshalling is checked against a fake libcuda built from C here
(gcc): the fake's cuTensorMapEncodeTiled records what it was given into the
128-byte map, and its cuLaunchKernel copies the bytes each kernelParams[i]
points at (8 bytes for params 0..11, 128 for 12 and 13), which the test then
decodes -- the same path the real driver takes with the real argtypes.

    python3 bench/hopper/test_gemm_bench.py
"""

import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gemm_bench as gb  # noqa: E402

FAKE_C = r"""
#include <stdint.h>
#include <string.h>
typedef int CUresult;
static uint8_t g_params[14][128];
static unsigned g_launch[8];
static void *g_stream = (void *)1, *g_extra = (void *)1;
static uintptr_t g_param_addr[14];
static int g_fail_load = 0;
static int g_attr_set = -1, g_attr_val = -1;
int fake_compute = 0;  /* 1: cuLaunchKernel computes C = A @ B (float32 host memory) */

CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) {
  *s = e == 218 ? "CUDA_ERROR_INVALID_PTX" : e == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
  *v = a == 16 ? 132 : a == 97 ? 232448 : a == 75 ? 9 : 0; return 0;
}
CUresult cuCtxGetCurrent(void **c) { *c = (void *)0x1234; return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x1234; return 0; }
CUresult cuModuleLoadData(void **m, const void *img) {
  if (strstr((const char *)img, "BROKEN")) return 218;
  *m = (void *)0x55; return 0;
}
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *opts, void **vals) {
  for (unsigned i = 0; i < n; ++i)
    if (opts[i] == 5) {  /* CU_JIT_ERROR_LOG_BUFFER */
      size_t cap = 0;
      for (unsigned j = 0; j < n; ++j) if (opts[j] == 6) cap = (size_t)vals[j];
      const char *msg = "ptxas fatal: fake error log";
      if (cap > strlen(msg)) strcpy((char *)vals[i], msg);
    }
  return cuModuleLoadData(m, img);
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  if (strcmp(name, "gemm_tma_ws")) return 500;
  *f = (void *)0x77; return 0;
}
CUresult cuFuncSetAttribute(void *f, int a, int v) { g_attr_set = a; g_attr_val = v; return 0; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) { *v = a == 0 ? 384 : a == 4 ? 168 : 0; return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *stream, void **params, void **extra) {
  if (f != (void *)0x77) return 1;
  g_launch[0] = gx; g_launch[1] = gy; g_launch[2] = gz; g_launch[3] = bx; g_launch[4] = by;
  g_launch[5] = bz; g_launch[6] = smem;
  g_stream = stream; g_extra = extra;
  for (int i = 0; i < 14; ++i) {
    g_param_addr[i] = (uintptr_t)params[i];
    memcpy(g_params[i], params[i], i < 12 ? 8 : 128);
  }
  if (fake_compute) {
    float *A = *(float **)params[0], *B = *(float **)params[3], *C = *(float **)params[6];
    uint64_t M = *(uint64_t *)params[9], N = *(uint64_t *)params[10], K = *(uint64_t *)params[11];
    for (uint64_t m = 0; m < M; ++m)
      for (uint64_t n = 0; n < N; ++n) {
        float acc = 0;
        for (uint64_t k = 0; k < K; ++k) acc += A[m * K + k] * B[k * N + n];
        C[m * N + n] = acc;
      }
  }
  return 0;
}
/* gemm_bench.CUlaunchConfig; a cluster launch forwards to cuLaunchKernel. */
typedef struct { unsigned gx, gy, gz, bx, by, bz, smem; void *stream; void *attrs;
                 unsigned nattrs; } LaunchConfig;
CUresult cuLaunchKernelEx(const LaunchConfig *c, void *f, void **params, void **extra) {
  return cuLaunchKernel(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream,
                        params, extra);
}
CUresult cuOccupancyMaxActiveClusters(int *n, void *f, const LaunchConfig *c) {
  *n = 132; return 0;
}
CUresult cuTensorMapEncodeTiled(void *out, int dtype, uint32_t rank, void *gaddr,
                                const uint64_t *gdim, const uint64_t *gstride, const uint32_t *box,
                                const uint32_t *estr, int il, int sw, int l2, int oob) {
  if ((uintptr_t)out % 64) return 1;
  uint64_t q[16] = {0};
  q[0] = dtype; q[1] = rank; q[2] = (uint64_t)(uintptr_t)gaddr;
  q[3] = gdim[0]; q[4] = gdim[1]; q[5] = gstride[0];
  q[6] = box[0]; q[7] = box[1]; q[8] = estr[0]; q[9] = estr[1];
  q[10] = il; q[11] = sw; q[12] = l2; q[13] = oob; q[14] = 0xC0FFEEull; q[15] = 0x5EA1ull;
  memcpy(out, q, 128);
  return 0;
}
void fake_get(uint8_t *params, unsigned *launch, void **stream, void **extra, uintptr_t *addrs,
              int *attr) {
  memcpy(params, g_params, sizeof g_params); memcpy(launch, g_launch, sizeof g_launch);
  *stream = g_stream; *extra = g_extra; memcpy(addrs, g_param_addr, sizeof g_param_addr);
  attr[0] = g_attr_set; attr[1] = g_attr_val;
}
"""

META = {"kernels": {"gemm_tma_ws": {"dynamic_smem": 196672, "tensor_maps": [
    {"arg": 0, "box": [128, 64], "element": "bf16", "name": "A", "oob_fill": "zero",
     "param": 12, "pass": "value", "swizzle": 128},
    {"arg": 1, "box": [64, 64], "element": "bf16", "name": "B", "oob_fill": "zero",
     "param": 13, "pass": "value", "swizzle": 128}]}}}


ROOT = os.path.dirname(os.path.dirname(HERE))


def _generate_launch_json(out, ir_kernels, dsl_kernels):
    """The launch JSON (``<name>[_f16].ptx.json``) of each kernel, as
    bench/hopper/compile.sh writes it beside the PTX: ``ir_kernels`` of
    examples/sm90a, ``dsl_kernels`` ("name:knob") of
    examples/python/gemm_tma_ws.py's make_gemm_tma_ws, bf16 and fp16.
    Returns {name: path}, or why it cannot (no built tree)."""
    build = os.environ.get("ARGUS_BUILD_DIR", os.path.join(ROOT, "build"))
    opt = os.path.join(build, "bin", "argus-opt")
    if not os.path.exists(opt):
        return f"needs a built argus-opt ({opt})"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(build, "python"), os.path.join(ROOT, "python"),
         os.path.join(ROOT, "examples", "python")]))
    sources = {}
    for kernel in ir_kernels:
        text = open(os.path.join(ROOT, "examples", "sm90a", kernel + ".mlir")).read()
        sources[kernel] = text
        sources[kernel + "_f16"] = text.replace("bf16", "f16")
    for spec in dsl_kernels:
        name, knob = spec.split(":")
        for dt, suffix in (("bf16", ""), ("f16", "_f16")):
            expr = (f"g.make_gemm_tma_ws(epilogue='tma_store', {knob}, dtype='{dt}', "
                    f"name='{name}')")
            p = subprocess.run([sys.executable, "-c",
                                "import sys, gemm_tma_ws as g; "
                                f"sys.stdout.write(({expr}).ir())"],
                               env=env, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                raise AssertionError(f"tracing {name} {dt} failed:\n{p.stderr[-2000:]}")
            sources[name + suffix] = p.stdout
    paths = {}
    for name, text in sources.items():
        ptx = os.path.join(out, name + ".ptx")
        p = subprocess.run([opt, "-", f"--argus-to-nvptx=format=llvm dump={ptx}",
                            "-o", os.devnull], input=text, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            raise AssertionError(f"lowering {name} failed:\n{p.stderr[-2000:]}")
        paths[name] = ptx + ".json"
    return paths


class PurePython(unittest.TestCase):
    def test_grouped_twin_has_the_gemm_signature(self):
        # gemm_bench.py launches the DSL's grouped-raster and 4-block-cluster
        # GEMMs as it launches the IR kernels: the same parameters and tensor
        # maps in the same slots (the cluster's size from the JSON). The
        # launch JSONs are generated here, as compile.sh makes them (they are
        # not committed: issue 54), with format=llvm (no PTX backend).
        out = tempfile.mkdtemp(prefix="argus-gemm-abi-")
        self.addCleanup(shutil.rmtree, out, True)
        paths = _generate_launch_json(out, ["gemm_tma_store_ws", "gemm_tma_cluster_ws"],
                                      ["gemm_tma_store_ws_grouped:group_m=8",
                                       "gemm_tma_cluster4_ws:cluster=4"])
        if isinstance(paths, str):
            self.skipTest(paths)

        def launch_abi(name):
            with open(paths[name]) as f:
                (info,) = json.load(f)["kernels"].values()
            return (info["params"], info["tensor_maps"], info["block"], info["grid"])
        with open(paths["gemm_tma_cluster4_ws"]) as f:
            (info,) = json.load(f)["kernels"].values()
        self.assertEqual(info["cluster"], [4, 1, 1])
        for suffix in ("", "_f16"):
            self.assertEqual(launch_abi("gemm_tma_store_ws_grouped" + suffix),
                             launch_abi("gemm_tma_store_ws" + suffix))
            self.assertEqual(launch_abi("gemm_tma_cluster4_ws" + suffix),
                             launch_abi("gemm_tma_cluster_ws" + suffix))

    def test_parse_shapes(self):
        self.assertEqual(gb.parse_shapes(None), gb.DEFAULT_SHAPES)
        self.assertEqual(gb.parse_shapes("4096,4096,4096;8192,8192,1024"),
                         [(4096, 4096, 4096), (8192, 8192, 1024)])
        self.assertEqual(gb.parse_shapes("4096; 1024x8192x8192;"),
                         [(4096, 4096, 4096), (1024, 8192, 8192)])
        self.assertRaises(ValueError, gb.parse_shapes, "1,2")
        self.assertRaises(ValueError, gb.parse_shapes, ";")

    def test_preconditions(self):
        ok = [s for s in gb.DEFAULT_SHAPES if gb.precondition_ok(*s)]
        self.assertEqual(ok, gb.DEFAULT_SHAPES)
        self.assertFalse(gb.precondition_ok(128, 256, 0))
        self.assertFalse(gb.precondition_ok(128, 124, 64))
        self.assertFalse(gb.precondition_ok(128, 256, 60))
        self.assertTrue(gb.precondition_ok(100, 136, 72))

    def test_args_and_rows(self):
        args = gb.build_argparser().parse_args(["--ptx", "x.ptx"])
        self.assertEqual((args.repeat, args.iters, args.warmup, args.block), (2, 50, 10, 384))
        rows = gb.make_rows(args)
        self.assertEqual(len(rows), 12)
        fp16 = [r for r in rows if r["dtype"] == "fp16"]
        self.assertTrue(all(r["status"] == "skip" and "fp16" in r["skip_reason"] for r in fp16))
        bf = [r for r in rows if r["dtype"] == "bf16"]
        self.assertFalse([r for r in bf if r.get("status") == "skip"])
        args = gb.build_argparser().parse_args(["--ptx", "x", "--shapes", "4000x4004x4000"])
        skipped = gb.make_rows(args)[0]
        self.assertEqual(skipped["skip_reason"], "skip: needs N%8, K%8 (16-byte TMA rows)")
        args = gb.build_argparser().parse_args(["--ptx", "x", "--ptx-fp16", "y", "--shapes", "4096"])
        rows = gb.make_rows(args)
        self.assertEqual([(r["dtype"], r.get("status")) for r in rows], [("bf16", None), ("fp16", None)])

    def test_table(self):
        rows = [
            {"shape": [4096, 4096, 4096], "dtype": "bf16", "status": "ok",
             "check": {"argus_err": [3.1e-3, 2.9e-3]},
             "passes": [{"argus_ms": 0.2, "cublas_ms": 0.22, "triton_ms": 0.3}]},
            {"shape": [4000, 4000, 4000], "dtype": "bf16", "status": "skip",
             "skip_reason": gb.SKIP_MSG},
            {"shape": [8192, 8192, 8192], "dtype": "bf16", "status": "fail",
             "check": {"argus_fail": "launch: cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)",
                       "argus_err": []},
             "passes": [{"cublas_ms": 1.6}]},
        ]
        t = gb.format_table(rows, 0)
        lines = t.splitlines()
        self.assertEqual(len(lines), 5)
        self.assertTrue(all(l.count("|") == 10 for l in lines), t)
        tf = 2 * 4096 ** 3 / 0.2e-3 / 1e12
        self.assertIn("| 4096 x 4096 x 4096 | bf16 | ok 3.10e-03 | 0.200 | %.1f |" % tf, lines[2])
        self.assertIn("| 1.10 | 1.50 |", lines[2])
        self.assertIn(gb.SKIP_MSG, lines[3])
        self.assertIn("FAIL (launch:", lines[4])
        # a missing pass renders as dashes, not a crash
        self.assertEqual(gb.format_table(rows, 3).count("|"), 50)
        print("\n" + t)

    def test_tensor_map_args(self):
        tm = META["kernels"]["gemm_tma_ws"]["tensor_maps"][0]
        rank, gdim, gstride, box, estr = gb.tensor_map_args(tm, (4096, 1024), (1024, 1), 2)
        self.assertEqual((rank, gdim, gstride, box, estr), (2, [1024, 4096], [2048], [64, 128], [1, 1]))
        self.assertRaises(ValueError, gb.tensor_map_args, tm, (4096, 1024), (1, 4096), 2)
        bad = dict(tm, box=[128, 128])  # 256 B inner box > 128 B swizzle
        self.assertRaises(ValueError, gb.tensor_map_args, bad, (4096, 1024), (1024, 1), 2)


@unittest.skipUnless(shutil.which("gcc"), "needs gcc for the fake libcuda")
class FakeDriver(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        src = os.path.join(cls.tmp, "fake_cuda.c")
        cls.so = os.path.join(cls.tmp, "libfakecuda.so")
        with open(src, "w") as f:
            f.write(FAKE_C)
        subprocess.check_call(["gcc", "-shared", "-fPIC", "-O1", "-o", cls.so, src])
        cls.drv = gb.CudaDriver(cls.so)
        cls.lib = cls.drv.lib

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def _kernel(self, ptx_text="// ok\n.entry gemm_tma_ws()"):
        ptx = os.path.join(self.tmp, "k.ptx")
        with open(ptx, "w") as f:
            f.write(ptx_text)
        with open(ptx + ".json", "w") as f:
            json.dump(META, f)
        return gb.ArgusKernel(self.drv, ptx, 0, 132, 384, 0, gb.CU_TENSOR_MAP_L2_PROMOTION_L2_256B)

    def test_error_names(self):
        with self.assertRaises(gb.CudaError) as cm:
            self.drv.check(218, "x")
        self.assertIn("CUDA_ERROR_INVALID_PTX", str(cm.exception))

    def test_module_load_error_log(self):
        with self.assertRaises(gb.CudaError) as cm:
            self._kernel("BROKEN")
        self.assertEqual(cm.exception.name, "CUDA_ERROR_INVALID_PTX")
        self.assertIn("fake error log", str(cm.exception))

    def test_launch_marshalling(self):
        k = self._kernel()
        self.assertEqual((k.grid, k.block, k.smem, k.regs), (132, 384, 196672, 168))
        M, N, K = 1024, 2048, 512
        # fake device pointers (16-byte aligned) standing in for A, B, C
        pa, pb, pc = 0x7F0000000000, 0x7F0010000000, 0x7F0020000000
        tensors = [(pa, (M, K), (K, 1)), (pb, (K, N), (N, 1)), (pc, (M, N), (N, 1))]
        params = gb.build_gemm_params(self.drv, k.info, tensors, (M, N, K), k.l2promo)
        for tm_buf in params._keep:
            if isinstance(tm_buf, gb.AlignedBytes):
                self.assertEqual(tm_buf.address % 128, 0)
        k.launch(params, 0xABC0)

        raw = (ctypes.c_uint8 * (14 * 128))()
        launch = (ctypes.c_uint * 8)()
        stream, extra = ctypes.c_void_p(), ctypes.c_void_p()
        addrs = (ctypes.c_size_t * 14)()
        attr = (ctypes.c_int * 2)()
        self.lib.fake_get(raw, launch, ctypes.byref(stream), ctypes.byref(extra), addrs, attr)
        self.assertEqual(list(launch)[:7], [132, 1, 1, 384, 1, 1, 196672])
        self.assertEqual(stream.value, 0xABC0)
        self.assertIsNone(extra.value)
        self.assertEqual(list(attr), [8, 196672])
        blob = bytes(raw)
        u64 = [struct.unpack_from("<Q", blob, 128 * i)[0] for i in range(12)]
        self.assertEqual(u64, [pa, M, K, pb, K, N, pc, M, N, M, N, K])
        for i, (ptr, gdim, stride, box) in ((12, (pa, [K, M], K * 2, [64, 128])),
                                            (13, (pb, [N, K], N * 2, [64, 64]))):
            self.assertEqual(addrs[i] % 64, 0)
            q = struct.unpack_from("<16Q", blob, 128 * i)
            self.assertEqual(q[0], gb.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
            self.assertEqual(q[1], 2)
            self.assertEqual(q[2], ptr)
            self.assertEqual(list(q[3:5]), gdim)
            self.assertEqual(q[5], stride)
            self.assertEqual(list(q[6:8]), box)
            self.assertEqual(list(q[8:10]), [1, 1])
            self.assertEqual(list(q[10:14]), [gb.CU_TENSOR_MAP_INTERLEAVE_NONE, gb.CU_TENSOR_MAP_SWIZZLE_128B,
                                             gb.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                             gb.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE])
            self.assertEqual(q[14:], (0xC0FFEE, 0x5EA1))

    def test_param_slot_mismatch(self):
        k = self._kernel()
        info = json.loads(json.dumps(k.info))
        info["tensor_maps"][0]["param"] = 11
        tensors = [(0x1000, (128, 64), (64, 1))] * 3
        self.assertRaises(ValueError, gb.build_gemm_params, self.drv, info, tensors, (128, 256, 64), 3)


class FakeTensor:
    """Just enough of torch.Tensor for gemm_bench's host flow: float32 host memory."""

    def __init__(self, shape, data=None):
        self.shape = tuple(shape)
        n = 1
        for s in self.shape:
            n *= s
        self.buf = (ctypes.c_float * n)()
        if data is not None:
            self.buf[:] = data

    def data_ptr(self):
        return ctypes.addressof(self.buf)

    def stride(self):
        return (self.shape[1], 1) if len(self.shape) == 2 else (1,)

    def dim(self):
        return len(self.shape)

    def float(self):
        return FakeTensor(self.shape, list(self.buf))

    def to(self, dt):
        return self.float()

    def contiguous(self):
        return self

    def mul_(self, x):
        self.buf[:] = [v * x for v in self.buf]
        return self

    def add_(self, x):
        self.buf[:] = [v + x for v in self.buf]
        return self

    def fill_(self, x):
        self.buf[:] = [x] * len(self.buf)
        return self

    def __sub__(self, o):
        return FakeTensor(self.shape, [a - b for a, b in zip(self.buf, o.buf)])

    def norm(self):
        return FakeScalar(sum(v * v for v in self.buf) ** 0.5)


class FakeScalar:
    def __init__(self, v):
        self.v = v

    def item(self):
        return self.v

    def any(self):
        return self


def make_fake_torch():
    import math
    import random
    import types
    t = types.ModuleType("torch")
    t.__version__ = "fake"
    t.version = types.SimpleNamespace(cuda="13.0")
    t.bfloat16, t.float16, t.float32 = "bf16", "f16", "f32"
    t.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(
        matmul=types.SimpleNamespace(allow_tf32=True)))

    class Event:
        def __init__(self, enable_timing=False):
            self.t = 0.0

        def record(self):
            import time
            self.t = time.perf_counter()

        def elapsed_time(self, e):
            return (e.t - self.t) * 1e3

    class Gen:
        def __init__(self, device=None):
            self.r = random.Random(0)

        def manual_seed(self, s):
            self.r.seed(s)

    def shape_of(a):
        return tuple(a[0]) if len(a) == 1 and isinstance(a[0], (tuple, list)) else tuple(a)

    t.cuda = types.SimpleNamespace(
        is_available=lambda: True, init=lambda: None, current_device=lambda: 0,
        synchronize=lambda: None, get_device_name=lambda: "Fake H200",
        get_device_capability=lambda: (9, 0), empty_cache=lambda: None,
        current_stream=lambda: types.SimpleNamespace(cuda_stream=0), Event=Event)
    t.Generator = Gen
    t.zeros = lambda *s, **kw: FakeTensor(shape_of(s))
    t.empty = lambda *s, **kw: FakeTensor(shape_of(s))
    t.full = lambda s, v, **kw: FakeTensor(s).fill_(v)
    t.randn = lambda *s, generator=None, **kw: FakeTensor(
        shape_of(s), [generator.r.gauss(0, 1) for _ in range(math.prod(shape_of(s)))])
    t.isnan = lambda x: FakeScalar(any(v != v for v in x.buf))

    def matmul(a, b, out=None):
        M, K = a.shape
        N = b.shape[1]
        c = out if out is not None else FakeTensor((M, N))
        A, B = list(a.buf), list(b.buf)
        c.buf[:] = [sum(A[m * K + k] * B[k * N + n] for k in range(K))
                    for m in range(M) for n in range(N)]
        return c
    t.matmul = matmul
    return t


@unittest.skipUnless(shutil.which("gcc"), "needs gcc for the fake libcuda")
class FakeMain(FakeDriver):
    """main() end to end on a fake torch + fake libcuda (host flow only)."""

    def _run_main(self, compute, extra=()):
        import contextlib
        import io
        ptx = os.path.join(self.tmp, "k.ptx")
        with open(ptx, "w") as f:
            f.write("// ok")
        with open(ptx + ".json", "w") as f:
            json.dump(META, f)
        ctypes.c_int.in_dll(self.lib, "fake_compute").value = compute
        saved = (gb.torch, gb.triton, gb.CudaDriver)
        real = gb.CudaDriver
        so = self.so
        gb.torch, gb.triton = make_fake_torch(), None
        gb.CudaDriver = lambda: real(so)
        out = io.StringIO()
        jpath = os.path.join(self.tmp, "out.json")
        try:
            with contextlib.redirect_stdout(out):
                rc = gb.main(["--ptx", ptx, "--shapes", "128,256,64;100,252,64", "--iters", "3",
                              "--warmup", "1", "--json", jpath] + list(extra))
        finally:
            gb.torch, gb.triton, gb.CudaDriver = saved
        with open(jpath) as f:
            data = json.load(f)
        return rc, out.getvalue(), data

    def test_main_pass(self):
        rc, text, data = self._run_main(1)
        print("\n" + text)
        self.assertEqual(rc, 0, text)
        self.assertIn("| 128 x 256 x 64 | bf16 | ok ", text)
        self.assertIn(gb.SKIP_MSG, text)
        self.assertEqual(text.count("## pass"), 2)
        row = data["rows"][0]
        self.assertEqual(row["status"], "ok")
        self.assertEqual(len(row["passes"]), 2)
        self.assertEqual(len(row["check"]["argus_err"]), 2)
        self.assertIn("argus_ms", row["passes"][1])

    def test_main_nan_fails(self):
        rc, text, data = self._run_main(0)  # the fake kernel writes nothing: NaN stays
        self.assertEqual(rc, 1)
        self.assertIn("FAIL (NaN left in C", text)
        self.assertEqual(data["rows"][0]["status"], "fail")


if __name__ == "__main__":
    unittest.main(verbosity=2)
