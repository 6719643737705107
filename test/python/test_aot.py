"""argus.aot: kernels exported with their launch ABI and launched through the
CUDA driver alone, checked against a fake libcuda (built from C here with
gcc) that records what each launch passes: the bytes every kernelParams
entry points at (sizes from the exported slots), the grid, block, shared
memory, stream and cluster, and each tensor map's encode arguments."""

import ctypes
import json
import os
import shutil
import struct
import subprocess

import pytest

import argus
import argus.aot as aot
import argus.cuda_driver as cd

FAKE_C = r"""
#include <stdint.h>
#include <string.h>
typedef int CUresult;
enum { MAXP = 32 };
static int g_nparams = 0, g_size[MAXP];
static uint8_t g_params[MAXP][128];
static unsigned g_launch[10];  /* grid, block, smem, cluster x y z */
static void *g_stream;
static uint64_t g_maps[8][16];
static int g_nmaps = 0, g_smem_attr = -1;
void fake_expect(int n, const int *sizes) { g_nparams = n; memcpy(g_size, sizes, n * sizeof(int)); g_nmaps = 0; }
CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { *v = a == 16 ? 132 : 0; return 0; }
CUresult cuCtxGetCurrent(void **c) { *c = (void *)0x1234; return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x1234; return 0; }
CUresult cuModuleLoadData(void **m, const void *img) {
  if (!strstr((const char *)img, ".entry")) return 218;
  *m = (void *)0x55; return 0;
}
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) { return cuModuleLoadData(m, img); }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { *f = (void *)0x77; return 0; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { if (a == 8) g_smem_attr = v; return 0; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) { *v = 0; return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
static int g_active = 66;
void fake_set_active_clusters(int n) { g_active = n; }
CUresult cuOccupancyMaxActiveClusters(int *n, void *f, const void *c) { *n = g_active; return 0; }
static CUresult record(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned smem, void *stream, void **params) {
  g_launch[0] = gx; g_launch[1] = gy; g_launch[2] = gz; g_launch[3] = bx; g_launch[4] = by;
  g_launch[5] = bz; g_launch[6] = smem; g_stream = stream;
  for (int i = 0; i < g_nparams; ++i) memcpy(g_params[i], params[i], g_size[i]);
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *stream, void **params, void **extra) {
  g_launch[7] = g_launch[8] = g_launch[9] = 1;
  return record(gx, gy, gz, bx, by, bz, smem, stream, params);
}
typedef struct { int id; char pad[4]; unsigned x, y, z; char rest[52]; } Attr;
typedef struct { unsigned gx, gy, gz, bx, by, bz, smem; void *stream; Attr *attrs; unsigned n; } Config;
CUresult cuLaunchKernelEx(const Config *c, void *f, void **params, void **extra) {
  g_launch[7] = g_launch[8] = g_launch[9] = 0;
  for (unsigned i = 0; i < c->n; ++i)
    if (c->attrs[i].id == 4) { g_launch[7] = c->attrs[i].x; g_launch[8] = c->attrs[i].y; g_launch[9] = c->attrs[i].z; }
  return record(c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream, params);
}
CUresult cuTensorMapEncodeTiled(void *out, int dtype, uint32_t rank, void *gaddr, const uint64_t *gdim,
                                const uint64_t *gstride, const uint32_t *box, const uint32_t *estr,
                                int il, int sw, int l2, int oob) {
  uint64_t q[16] = {0};
  q[0] = dtype; q[1] = rank; q[2] = (uint64_t)(uintptr_t)gaddr; q[3] = gdim[0]; q[4] = gdim[1];
  q[5] = gstride[0]; q[6] = box[0]; q[7] = box[1]; q[8] = sw; q[9] = oob; q[15] = 0x5EA1;
  memcpy(out, q, 128);
  if (g_nmaps < 8) memcpy(g_maps[g_nmaps++], q, 128);
  return 0;
}
void fake_get(uint8_t *params, unsigned *launch, void **stream, int *smem_attr) {
  memcpy(params, g_params, sizeof g_params); memcpy(launch, g_launch, sizeof g_launch);
  *stream = g_stream; *smem_attr = g_smem_attr;
}
"""

def _has_lowering():
    try:
        return argus.has_pass("argus-to-nvptx")
    except argus.FeatureUnavailable:  # no _argus: the launch side is still tested
        return False


needs_lowering = pytest.mark.skipif(not _has_lowering(), reason="needs the NVPTX lowering")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("needs gcc for the fake libcuda")
    d = tmp_path_factory.mktemp("fakecuda")
    src, so = d / "fake.c", d / "libfakecuda.so"
    src.write_text(FAKE_C)
    subprocess.check_call(["gcc", "-shared", "-fPIC", "-O1", "-o", str(so), str(src)])
    return ctypes.CDLL(str(so)), str(so)


class FakeTensor:
    """What argus.aot reads of a torch tensor (data_ptr, shape, stride, dtype,
    is_cuda, is_contiguous); a pointer that is 16-byte aligned."""

    def __init__(self, shape, dtype="bfloat16", ptr=0x7F0000000000, cuda=True, contiguous=True):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self.ptr, self.is_cuda, self.contiguous = ptr, cuda, contiguous

    def data_ptr(self):
        return self.ptr

    def stride(self):
        out, s = [], 1
        for n in reversed(self.shape):
            out.insert(0, s)
            s *= n
        return tuple(out)

    def is_contiguous(self):
        return self.contiguous


def slot_sizes(meta):
    return [128 if s["kind"] == "tensor_map" else 4 if s["dtype"] in ("f32", "i32") and
            s["kind"] == "scalar" else 8 for s in meta["slots"]]


def launch_record(lib, meta):
    sizes = slot_sizes(meta)
    raw = (ctypes.c_uint8 * (32 * 128))()
    launch = (ctypes.c_uint * 10)()
    stream, smem = ctypes.c_void_p(), ctypes.c_int()
    lib.fake_get(raw, launch, ctypes.byref(stream), ctypes.byref(smem))
    blob = bytes(raw)
    params = [blob[128 * i:128 * i + n] for i, n in enumerate(sizes)]
    return params, list(launch), stream.value, smem.value


@pytest.fixture(scope="module")
def gemm_export(tmp_path_factory):
    import gemm_tma_ws
    d = tmp_path_factory.mktemp("aot")
    return aot.export(gemm_tma_ws.gemm_tma_store_ws, str(d))


@needs_lowering
def test_export_writes_the_ptx_and_the_launch_abi(gemm_export):
    meta = json.load(open(gemm_export))
    assert meta["format"] == aot.FORMAT and meta["entry"] == "gemm_tma_store_ws"
    assert open(os.path.join(os.path.dirname(gemm_export), meta["module"])).read().count(
        ".entry gemm_tma_store_ws") == 1
    assert [a["name"] for a in meta["arguments"]] == ["A", "B", "C", "M", "N", "K"]
    assert meta["arguments"][0] == {"name": "A", "shape": ["M", "K"], "dtype": "bf16"}
    kinds = [s["kind"] for s in meta["slots"]]
    assert kinds == ["buffer", "size", "size"] * 3 + ["index"] * 3 + ["tensor_map"] * 3
    assert [s["written"] for s in meta["slots"] if s["kind"] == "buffer"] == [False, False, True]
    assert [m["param"] for m in meta["tensor_maps"]] == [12, 13, 14]
    assert meta["grid"][0]["extent"] == "free" and meta["block"] == [384, 1, 1]
    assert meta["dynamic_smem"] > 48 * 1024 and meta["cluster"] is None


@needs_lowering
def test_gemm_launch_marshals_every_slot_and_encodes_the_maps(fake, gemm_export):
    lib, so = fake
    meta = json.load(open(gemm_export))
    sizes = slot_sizes(meta)
    lib.fake_expect(len(sizes), (ctypes.c_int * len(sizes))(*sizes))
    k = aot.load(gemm_export, driver=cd.CudaDriver(so))
    M, N, K = 1000, 2048, 512
    pa, pb, pc = 0x7F0000000000, 0x7F0010000000, 0x7F0020000000
    a, b = FakeTensor((M, K), ptr=pa), FakeTensor((K, N), ptr=pb)
    c = FakeTensor((M, N), ptr=pc)
    grid = k[None](a, b, c, M, N, K, stream=0xABC0)
    assert grid == (132, 1, 1)  # persistent: one block per SM
    params, launch, stream, smem_attr = launch_record(lib, meta)
    u64 = [struct.unpack("<Q", p)[0] for p in params[:12]]
    assert u64 == [pa, M, K, pb, K, N, pc, M, N, M, N, K]
    assert launch[:7] == [132, 1, 1, 384, 1, 1, meta["dynamic_smem"]]
    assert launch[7:] == [1, 1, 1] and stream == 0xABC0 and smem_attr == meta["dynamic_smem"]
    for p, (ptr, dims, box) in zip(params[12:], ((pa, [K, M], [64, 128]),
                                                (pb, [N, K], [64, 64]),
                                                (pc, [N, M], [64, 128]))):
        q = struct.unpack("<16Q", p)
        assert q[0] == cd.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 and q[1] == 2 and q[2] == ptr
        assert list(q[3:5]) == dims and list(q[6:8]) == box
        assert q[8] == cd.CU_TENSOR_MAP_SWIZZLE_128B and q[15] == 0x5EA1


@needs_lowering
def test_launch_errors_name_the_argument(fake, gemm_export):
    lib, so = fake
    k = aot.load(gemm_export, driver=cd.CudaDriver(so))
    M, N, K = 256, 256, 64
    a, b, c = FakeTensor((M, K)), FakeTensor((K, N)), FakeTensor((M, N))
    cases = [
        ((a, b, c, M, N), "takes 6 arguments"),
        ((FakeTensor((M, K), "float16"), b, c, M, N, K), "argument 'A' must be bfloat16"),
        ((a, b, FakeTensor((M,)), M, N, K), "argument 'C' must have rank 2"),
        ((a, b, c, M + 1, N, K), "argument 'M' is 257, but 'M' is 256 elsewhere"),
        ((a, FakeTensor((K, N), contiguous=False), c, M, N, K), "'B' is not contiguous"),
        ((a, b, FakeTensor((M, N), cuda=False), M, N, K), "'C' is on the host"),
        ((a, b, c, M, N, 64.0), "argument 'K' must be an int"),
    ]
    for args, text in cases:
        with pytest.raises(argus.ArgusError, match=text):
            k(*args)


@needs_lowering
def test_cluster_kernel_launches_whole_clusters(fake, tmp_path):
    import gemm_tma_ws
    lib, so = fake
    path = aot.export(gemm_tma_ws.gemm_tma_cluster_ws, str(tmp_path))
    meta = json.load(open(path))
    assert meta["cluster"] == [2, 1, 1]
    sizes = slot_sizes(meta)
    lib.fake_expect(len(sizes), (ctypes.c_int * len(sizes))(*sizes))
    k = aot.load(path, driver=cd.CudaDriver(so))
    M, N, K = 512, 512, 128
    k(FakeTensor((M, K)), FakeTensor((K, N)), FakeTensor((M, N)), M, N, K, stream=0)
    _, launch, _, _ = launch_record(lib, meta)
    assert launch[0] == 132 and launch[7:] == [2, 1, 1]
    with pytest.raises(argus.ArgusError, match="not a multiple of the cluster's 2 blocks"):
        k[(131,)](FakeTensor((M, K)), FakeTensor((K, N)), FakeTensor((M, N)), M, N, K)
    # A persistent grid holds only the clusters resident at once (on the
    # H200, 30 clusters of 4 with 213 KB of shared memory each: 120 blocks,
    # where 132 ran a second wave at half the speed).
    lib.fake_set_active_clusters(50)
    try:
        k2 = aot.load(path, driver=cd.CudaDriver(so))
        k2(FakeTensor((M, K)), FakeTensor((K, N)), FakeTensor((M, N)), M, N, K, stream=0)
        _, launch, _, _ = launch_record(lib, meta)
        assert launch[0] == 100 and launch[7:] == [2, 1, 1]
    finally:
        lib.fake_set_active_clusters(66)


@needs_lowering
def test_grid_rule_and_float_scalars_of_a_row_kernel(fake, tmp_path):
    import softmax
    lib, so = fake
    kern = softmax.make_layernorm(cols=256, dtype="f32")
    path = aot.export(kern, str(tmp_path))
    meta = json.load(open(path))
    sizes = slot_sizes(meta)
    lib.fake_expect(len(sizes), (ctypes.c_int * len(sizes))(*sizes))
    k = aot.load(path, driver=cd.CudaDriver(so))
    args = []
    for p in meta["arguments"]:
        if "shape" in p:
            args.append(FakeTensor([1000 if d == "M" else d for d in p["shape"]], "float32"))
        else:
            args.append(1e-5 if p["dtype"].startswith("f") else 1000)
    grid = k(*args, stream=0)
    assert grid == tuple(aot.launch_grid(meta["grid"], args))
    params, launch, _, _ = launch_record(lib, meta)
    assert launch[:3] == list(grid)
    for s, p, n in zip(meta["slots"], params, sizes):
        if s["kind"] == "scalar" and s["dtype"] == "f32":
            assert n == 4 and struct.unpack("<f", p)[0] == pytest.approx(1e-5)


def test_load_refuses_other_and_damaged_files(tmp_path):
    p = tmp_path / "k.json"
    p.write_text(json.dumps({"kernels": {}}))
    with pytest.raises(argus.ArgusError, match="not an argus.aot kernel"):
        aot.load(str(p))
    p.write_text("{not json")
    with pytest.raises(argus.ArgusError, match="cannot read the exported kernel"):
        aot.load(str(p))
    good = {"format": aot.FORMAT, "name": "k", "entry": "k", "module": "k.ptx",
            "block": [128, 1, 1], "arguments": [{"name": "X", "shape": ["N"], "dtype": "f32"}],
            "slots": [{"kind": "buffer", "arg": 0, "dim": -1, "dtype": "f32", "written": True},
                      {"kind": "size", "arg": 0, "dim": 0, "dtype": "i64", "written": False}],
            "dynamic_smem": 0, "tensor_maps": [], "grid": [{"extent": 1}] * 3}
    damaged = [
        ({"block": [128, 1]}, "'block' must be 3 positive ints"),
        ({"slots": [{"kind": "buffer", "arg": 3}]}, "slot 0 must have a kind"),
        ({"slots": [{"kind": "size", "arg": 0, "dim": 1}]}, "size of dimension 1"),
        ({"slots": [{"kind": "tensor_map", "arg": 0}]}, "tensor map without an entry"),
        ({"dynamic_smem": "lots"}, "'dynamic_smem' is missing or not a int"),
        ({"arguments": [{"shape": ["N"]}]}, "argument 0 must have a name"),
    ]
    for change, text in damaged:
        p.write_text(json.dumps(dict(good, **change)))
        with pytest.raises(argus.ArgusError, match=text):
            aot.load(str(p))
    p.write_text(json.dumps(good))
    with pytest.raises(argus.ArgusError, match="its module .* cannot be read"):
        aot.load(str(p))


def make_add1():
    @argus.kernel(target="sm_90a", block=128)
    def add1(X: argus.Tensor[("N",), "f32"], Y: argus.Tensor[("N",), "f32"],
             BLOCK: argus.constexpr):
        argus.assume(X.dim("N").eq(argus.grid_dim("x") * BLOCK), "N = BLOCK * grid")
        n0 = argus.block_id("x") * BLOCK
        gx = argus.tag(argus.view(X, (n0,), (BLOCK,)), lambda i: n0 + i)
        gy = argus.tag(argus.view(Y, (n0,), (BLOCK,)), lambda i: n0 + i)
        argus.store(argus.load(gx) + 1.0, gy)
    return add1


@needs_lowering
def test_kernel_grid_launches_the_export_on_argus_aot_path(fake, tmp_path, monkeypatch):
    # kernel[grid](...) with an export of the launched variant on
    # ARGUS_AOT_PATH launches it through argus.aot (device tensors in place);
    # another variant's export is a different file, and a file of another
    # variant under this variant's name is refused.
    lib, so = fake
    add1 = make_add1()
    path = aot.export(add1.specialize(BLOCK=256), str(tmp_path))
    assert os.path.basename(path).startswith("add1-")
    meta = json.load(open(path))
    sizes = slot_sizes(meta)
    lib.fake_expect(len(sizes), (ctypes.c_int * len(sizes))(*sizes))
    monkeypatch.setattr(aot, "default_driver", lambda: cd.CudaDriver(so))
    monkeypatch.setenv("ARGUS_AOT_PATH", str(tmp_path))
    x, y = FakeTensor((1024,), "float32", ptr=0x1000), FakeTensor((1024,), "float32", ptr=0x2000)
    res = add1[None](x, y, BLOCK=256)
    assert res.outputs == {"Y": y} and res.time_ms is None
    params, launch, _, _ = launch_record(lib, meta)
    assert launch[:4] == [4, 1, 1, 128]  # N / BLOCK blocks, from the grid rule
    assert [struct.unpack("<Q", p)[0] for p in params] == [0x1000, 1024, 0x2000, 1024]
    with pytest.raises(argus.ArgusError, match="need a run through argus-run"):
        add1[None](x, y, BLOCK=256, check={"Y": "finite"})
    assert aot.find(add1.specialize(BLOCK=128)) is None
    os.rename(path, os.path.join(tmp_path, aot.variant_name(add1.specialize(BLOCK=128)) + ".json"))
    with pytest.raises(argus.ArgusError, match="was exported for"):
        add1[None](x, y, BLOCK=128)


class _CpuOnlyTorch:
    """A stand-in for a PyTorch built without CUDA (Debian's python3-torch):
    torch.cuda.current_stream() raises as that build's does."""

    class cuda:
        @staticmethod
        def is_available():
            return False

        @staticmethod
        def current_stream():
            raise AssertionError("Torch not compiled with CUDA enabled")


def test_a_cpu_only_torch_launches_on_the_default_stream(fake, tmp_path, monkeypatch):
    # Issue 54: with a CPU-only PyTorch installed, the current-stream lookup
    # raised "Torch not compiled with CUDA enabled" and kernel[grid] failed.
    import sys
    monkeypatch.setitem(sys.modules, "torch", _CpuOnlyTorch)
    assert aot._current_stream() == 0
    lib, so = fake
    add1 = make_add1()
    path = aot.export(add1.specialize(BLOCK=256), str(tmp_path))
    meta = json.load(open(path))
    sizes = slot_sizes(meta)
    lib.fake_expect(len(sizes), (ctypes.c_int * len(sizes))(*sizes))
    monkeypatch.setattr(aot, "default_driver", lambda: cd.CudaDriver(so))
    monkeypatch.setenv("ARGUS_AOT_PATH", str(tmp_path))
    x, y = FakeTensor((1024,), "float32", ptr=0x1000), FakeTensor((1024,), "float32", ptr=0x2000)
    assert add1[None](x, y, BLOCK=256).outputs == {"Y": y}


def test_without_the_extension_a_launch_needs_an_export(monkeypatch, tmp_path):
    import argus.ir
    monkeypatch.setattr(argus.ir, "_argus", None)
    monkeypatch.setenv("ARGUS_AOT_PATH", str(tmp_path))
    add1 = make_add1()
    with pytest.raises(argus.ArgusError, match="no export of it is on ARGUS_AOT_PATH"):
        add1[None](FakeTensor((256,), "float32"), FakeTensor((256,), "float32"), BLOCK=256)


def test_a_host_without_the_driver_gets_no_gpu(monkeypatch, tmp_path):
    import argus.cuda_driver
    monkeypatch.setattr(argus.cuda_driver.CudaDriver, "__init__",
                        lambda self, libname="libcuda.so.1": (_ for _ in ()).throw(
                            OSError(f"{libname}: cannot open shared object file")))
    with pytest.raises(argus.NoGPU, match="no CUDA driver on this machine"):
        aot.default_driver()


def test_a_damaged_export_on_the_path_is_named(monkeypatch, tmp_path):
    add1 = make_add1()
    (tmp_path / (aot.variant_name(add1.specialize(BLOCK=256)) + ".json")).write_text("{oops")
    monkeypatch.setenv("ARGUS_AOT_PATH", str(tmp_path))
    with pytest.raises(argus.ArgusError, match="cannot read the exported kernel"):
        add1[None](FakeTensor((256,), "float32"), FakeTensor((256,), "float32"), BLOCK=256)
