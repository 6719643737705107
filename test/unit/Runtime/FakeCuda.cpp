//===- FakeCuda.cpp - A host-only stand-in for libcuda.so.1 ---------------===//
//
// Test double for the runtime's dlopen'ed CUDA driver API: device memory is
// host memory, modules are accepted when their text contains ".entry NAME" or
// "fake-ok", and two "kernels" run on the host:
//   fake_gemm(const f16* A, const f16* B, float* C, int M, int N, int K
//             [, uint8_t* probes]) - C = A*B; probes per the ProbeFormat
//                                 protocol (warps 0..3 of each block that the
//                                 buffer has slots for, one record pair per
//                                 k-tile of 32 for regions 1 and 2)
//   probe_gemm                  - alias of fake_gemm (bench/gpu kernel)
//   fake_tma_copy(map, void* out) - copies the whole tensor a tensor map
//                                 describes into out; the map is passed by
//                                 value when the entry declares
//                                 `.param .align 64 .b8 m[128]`, else as a
//                                 device pointer to it; fails (700) when
//                                 the map's address is not a live
//                                 allocation
//   fake_gemm_bf16_tn(const bf16* A, const bf16* B, bf16* C, int M, int N,
//                     int K)      - C = A * B^T, B stored N x K, C rounded
//                                 to bf16
//   anything else               - does nothing
// Launches, cluster attributes and tensor-map encodes are recorded
// (FakeCuda.h). ARGUS_FAKE_CUDA_SMS overrides the multiprocessor count (4),
// ARGUS_FAKE_CUDA_FAIL_ENCODE=1 makes cuTensorMapEncodeTiled fail, and
// "fake-static-smem=N" in a module gives its kernels N bytes of static
// shared memory.
// Text containing "fake-bad-ptx" fails to load with a JIT log. Like the real
// driver, a function has the parameters its .entry declares: fake_gemm
// reads the probe pointer only when the entry declares a seventh parameter
// (the kernel parameter array has no more elements than that).
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "argus/runtime/HostData.h"
#include "argus/runtime/ProbeFormat.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using argus::rt::bf16ToFloat;
using argus::rt::floatToBf16;
using argus::rt::floatToHalf;
using argus::rt::halfToFloat;

extern "C" {
ArgusFakeEncode argusFakeEncode;
ArgusFakeLaunch argusFakeLaunch;
int argusFakeReferenceLaunches; ///< launches of argus_reference_gemm
}

namespace {
struct FakeFunc {
  std::string name;
  int params = 0;          ///< .param entries the .entry declares
  bool mapByValue = false; ///< first parameter is `.b8 x[128]`
  int staticSmem = 0;
};

/// Live cuMemAlloc allocations (address -> bytes), so a kernel can tell a
/// current device address from a stale one.
std::map<uintptr_t, size_t> &liveAllocs() {
  static std::map<uintptr_t, size_t> m;
  return m;
}
bool isLive(uint64_t addr, size_t bytes) {
  auto &m = liveAllocs();
  auto it = m.upper_bound(static_cast<uintptr_t>(addr));
  if (it == m.begin())
    return false;
  --it;
  return addr >= it->first && addr + bytes <= it->first + it->second;
}

/// The number of .param entries in the parameter list of `.entry name(...)`.
int countParams(const std::string &text, const std::string &name) {
  size_t at = text.find(".entry " + name);
  if (at == std::string::npos)
    return 0;
  size_t open = text.find('(', at), close = text.find(')', at);
  if (open == std::string::npos || close == std::string::npos || close < open)
    return 0;
  int n = 0;
  for (size_t p = text.find(".param", open);
       p != std::string::npos && p < close; p = text.find(".param", p + 1))
    ++n;
  return n;
}
uint64_t fakeClock = 1000000;
} // namespace

extern "C" {
typedef int CUresult;

CUresult cuInit(unsigned) { return 0; }
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}
CUresult cuDeviceGetCount(int *c) {
  *c = 1;
  return 0;
}
CUresult cuDeviceGet(int *d, int i) {
  *d = i;
  return 0;
}
CUresult cuDeviceGetName(char *n, int len, int) {
  std::strncpy(n, "Fake GPU", static_cast<size_t>(len));
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 1:
    *v = 1024;
    return 0;
  case 2:
  case 3:
    *v = 1024;
    return 0;
  case 4:
    *v = 64;
    return 0;
  case 5:
    *v = 2147483647;
    return 0;
  case 6:
  case 7:
    *v = 65535;
    return 0;
  case 16: {
    const char *sms = std::getenv("ARGUS_FAKE_CUDA_SMS");
    *v = sms ? std::atoi(sms) : 4;
    return 0;
  }
  case 75:
    *v = 9;
    return 0;
  case 76:
    *v = 0;
    return 0;
  case 97:
    *v = 232448;
    return 0;
  }
  return 1;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int) {
  static int ctx;
  *c = &ctx;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return 0; }
CUresult cuCtxSetCurrent(void *) { return 0; }
CUresult cuCtxSynchronize() { return 0; }

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n,
                            int *opts, void **vals) {
  const char *text = static_cast<const char *>(image);
  if (std::strstr(text, "fake-bad-ptx")) {
    for (unsigned i = 0; i < n; ++i)
      if (opts[i] == 5)
        std::strcpy(static_cast<char *>(vals[i]),
                    "ptxas fatal: fake syntax error at line 3");
    return 218; // CUDA_ERROR_INVALID_PTX
  }
  *mod = const_cast<char *>(strdup(text));
  return 0;
}
CUresult cuModuleUnload(void *m) {
  std::free(m);
  return 0;
}
CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
  std::string text = static_cast<const char *>(mod);
  if (text.find(std::string(".entry ") + name) == std::string::npos)
    return 500; // CUDA_ERROR_NOT_FOUND
  auto *fn = new FakeFunc{name, countParams(text, name)};
  size_t at = text.find(std::string(".entry ") + name);
  size_t open = text.find('(', at), comma = text.find_first_of(",)", open);
  fn->mapByValue =
      open != std::string::npos &&
      text.substr(open, comma - open).find("[128]") != std::string::npos;
  size_t sm = text.find("fake-static-smem=");
  if (sm != std::string::npos)
    fn->staticSmem = std::atoi(text.c_str() + sm + 17);
  *f = fn;
  return 0;
}
CUresult cuFuncSetAttribute(void *, int attr, int v) {
  if (attr == 8) // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    argusFakeLaunch.maxDynamicSmem = v;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  if (attr == 0) {
    *v = 1024;
    return 0;
  }
  if (attr == 1) { // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
    *v = static_cast<FakeFunc *>(f)->staticSmem;
    return 0;
  }
  return 1;
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  *p = reinterpret_cast<uintptr_t>(std::malloc(n));
  if (*p)
    liveAllocs()[*p] = n;
  return *p ? 0 : 2;
}
CUresult cuMemFree_v2(unsigned long long p) {
  liveAllocs().erase(p);
  std::free(reinterpret_cast<void *>(p));
  return 0;
}
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) {
  std::memcpy(reinterpret_cast<void *>(d), s, n);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) {
  std::memcpy(d, reinterpret_cast<void *>(s), n);
  return 0;
}
CUresult cuMemsetD8_v2(unsigned long long d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void *>(d), v, n);
  return 0;
}

static void probeEmit(uint8_t *buf, uint32_t block, uint32_t warp,
                      uint32_t region, uint32_t flags, uint32_t it) {
  ArgusProbeHeader h;
  std::memcpy(&h, buf, sizeof(h));
  // Only warps the buffer has slots for write (the device protocol): a block
  // with fewer warps than the fake's 4 must not write into the next block's
  // slots or past the slot table.
  if (warp >= h.warps_per_block)
    return;
  uint64_t s = uint64_t(block) * h.warps_per_block + warp;
  if (s >= h.num_slots)
    return;
  ArgusProbeSlot *slot =
      reinterpret_cast<ArgusProbeSlot *>(buf + ARGUS_PROBE_HEADER_SIZE) + s;
  uint32_t n = slot->count;
  if (n < h.capacity) {
    ArgusProbeRecord r{
        region, flags, block, warp, it, block % 4, fakeClock += 10 + region};
    std::memcpy(buf + argusProbeRecordsOffset(h.num_slots) +
                    (uint64_t(s) * h.capacity + n) * sizeof(r),
                &r, sizeof(r));
    slot->count = n + 1;
  } else {
    slot->dropped += 1;
  }
}

static size_t tmaElementSize(uint64_t dataType) {
  switch (dataType) {
  case 0:
    return 1;
  case 1:
  case 6:
  case 9:
    return 2;
  case 4:
  case 5:
  case 8:
    return 8;
  default:
    return 4;
  }
}

static CUresult fakeTmaCopy(FakeFunc *fn, void **params) {
  if (fn->params < 2)
    return 1;
  const uint64_t *map;
  if (fn->mapByValue) {
    map = static_cast<const uint64_t *>(params[0]);
    std::memcpy(argusFakeLaunch.param0, params[0], 128);
    argusFakeLaunch.param0Size = 128;
  } else {
    uint64_t p = *static_cast<uint64_t *>(params[0]);
    std::memcpy(argusFakeLaunch.param0, &p, 8);
    argusFakeLaunch.param0Size = 8;
    if (!isLive(p, 128))
      return 700; // CUDA_ERROR_ILLEGAL_ADDRESS
    map = reinterpret_cast<const uint64_t *>(static_cast<uintptr_t>(p));
  }
  if (map[0] != kArgusFakeMapMagic)
    return 700;
  size_t bytes = tmaElementSize(map[13]);
  for (uint64_t i = 0; i < map[2]; ++i)
    bytes *= map[3 + i];
  if (!isLive(map[1], bytes))
    return 700; // a stale or foreign address in the map
  auto *out = *static_cast<uint8_t **>(params[1]);
  std::memcpy(out, reinterpret_cast<const void *>(map[1]), bytes);
  ++argusFakeLaunch.mapsSeen;
  return 0;
}

static CUresult fakeGemmBf16Tn(FakeFunc *fn, void **params) {
  if (fn->params < 6)
    return 1;
  auto *A = *static_cast<uint16_t **>(params[0]);
  auto *B = *static_cast<uint16_t **>(params[1]);
  auto *C = *static_cast<uint16_t **>(params[2]);
  int M = *static_cast<int *>(params[3]), N = *static_cast<int *>(params[4]),
      K = *static_cast<int *>(params[5]);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += bf16ToFloat(A[m * K + k]) * bf16ToFloat(B[n * K + k]);
      C[m * N + n] = floatToBf16(acc);
    }
  return 0;
}

/// argus-run's device reference (DeviceReference.cpp), emulated with the
/// kernel's own parameters: element strides and type codes. Not recorded
/// as the last launch, which stays the kernel under test's.
static CUresult referenceGemm(void **params) {
  auto arg = [&](int i) { return *static_cast<uint64_t *>(params[i]); };
  auto *A = reinterpret_cast<const uint8_t *>(arg(0));
  auto *B = reinterpret_cast<const uint8_t *>(arg(1));
  auto *C = reinterpret_cast<float *>(arg(2));
  uint64_t M = arg(3), N = arg(4), K = arg(5), am = arg(6), ak = arg(7),
           bk = arg(8), bn = arg(9);
  uint32_t ta = *static_cast<uint32_t *>(params[10]),
           tb = *static_cast<uint32_t *>(params[11]);
  auto load = [](const uint8_t *base, uint32_t t, uint64_t i) -> float {
    const argus::rt::DType types[] = {
        argus::rt::DType::F32, argus::rt::DType::F16, argus::rt::DType::BF16};
    return static_cast<float>(argus::rt::loadElement(base, types[t], i));
  };
  ++argusFakeReferenceLaunches;
  for (uint64_t m = 0; m < M; ++m)
    for (uint64_t n = 0; n < N; ++n) {
      float acc = 0;
      for (uint64_t k = 0; k < K; ++k)
        acc += load(A, ta, m * am + k * ak) * load(B, tb, k * bk + n * bn);
      C[m * N + n] = acc;
    }
  return 0;
}

static CUresult runKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                          unsigned bx, unsigned by, unsigned bz, unsigned smem,
                          void **params) {
  auto *fn = static_cast<FakeFunc *>(f);
  const std::string &name = fn->name;
  if (name == "argus_reference_gemm")
    return referenceGemm(params);
  unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  std::memcpy(argusFakeLaunch.grid, g, sizeof(g));
  std::memcpy(argusFakeLaunch.block, b, sizeof(b));
  argusFakeLaunch.sharedMem = smem;
  if (bx * by * bz > 1024)
    return 1;
  if (name == "fake_tma_copy")
    return fakeTmaCopy(fn, params);
  if (name == "fake_gemm_bf16_tn")
    return fakeGemmBf16Tn(fn, params);
  if (name != "fake_gemm" && name != "probe_gemm") // same signature
    return 0;
  const int nparams = static_cast<FakeFunc *>(f)->params;
  if (nparams < 6)
    return 1; // CUDA_ERROR_INVALID_VALUE: the entry lacks A, B, C, M, N, K
  auto *A = *static_cast<uint16_t **>(params[0]);
  auto *B = *static_cast<uint16_t **>(params[1]);
  auto *C = *static_cast<float **>(params[2]);
  int M = *static_cast<int *>(params[3]), N = *static_cast<int *>(params[4]),
      K = *static_cast<int *>(params[5]);
  uint8_t *probes =
      nparams >= 7 ? *static_cast<uint8_t **>(params[6]) : nullptr;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += halfToFloat(A[m * K + k]) * halfToFloat(B[k * N + n]);
      C[m * N + n] = acc;
    }
  if (probes)
    for (uint32_t b = 0; b < gx * gy * gz; ++b)
      for (uint32_t w = 0; w < 4; ++w)
        for (int kt = 0; kt < K / 32; ++kt)
          for (uint32_t region = 1; region <= 2; ++region) {
            probeEmit(probes, b, w, region, 0, static_cast<uint32_t>(kt));
            probeEmit(probes, b, w, region, 1, static_cast<uint32_t>(kt));
          }
  return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *, void **params, void **) {
  ++argusFakeLaunch.calls;
  argusFakeLaunch.numAttrs = 0;
  for (unsigned &c : argusFakeLaunch.cluster)
    c = 1;
  return runKernel(f, gx, gy, gz, bx, by, bz, smem, params);
}

// cuda.h's CUlaunchConfig / CUlaunchAttribute layout.
struct FakeLaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    unsigned dim[3];
  } value;
};
struct FakeLaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  FakeLaunchAttribute *attrs;
  unsigned numAttrs;
};

CUresult cuLaunchKernelEx(const FakeLaunchConfig *c, void *f, void **params,
                          void **) {
  ++argusFakeLaunch.exCalls;
  argusFakeLaunch.numAttrs = c->numAttrs;
  for (unsigned &x : argusFakeLaunch.cluster)
    x = 1;
  unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == 4) // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
      for (int k = 0; k < 3; ++k) {
        unsigned d = c->attrs[i].value.dim[k];
        argusFakeLaunch.cluster[k] = d;
        if (d == 0 || g[k] % d != 0)
          return 912; // CUDA_ERROR_INVALID_CLUSTER_SIZE
      }
  return runKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
                   c->blockDimY, c->blockDimZ, c->sharedMemBytes, params);
}

CUresult cuTensorMapEncodeTiled(void *map, int dataType, uint32_t rank,
                                void *addr, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box,
                                const uint32_t *elemStrides, int interleave,
                                int swizzle, int l2, int oob) {
  ArgusFakeEncode &e = argusFakeEncode;
  ++e.calls;
  e.dataType = dataType;
  e.rank = rank;
  e.globalAddress = reinterpret_cast<uintptr_t>(addr);
  std::memset(e.globalDim, 0, sizeof(e.globalDim));
  std::memset(e.globalStrides, 0, sizeof(e.globalStrides));
  std::memset(e.boxDim, 0, sizeof(e.boxDim));
  std::memset(e.elementStrides, 0, sizeof(e.elementStrides));
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    e.globalDim[i] = dims[i];
    e.boxDim[i] = box[i];
    e.elementStrides[i] = elemStrides[i];
    if (i + 1 < rank)
      e.globalStrides[i] = strides[i];
  }
  e.interleave = interleave;
  e.swizzle = swizzle;
  e.l2Promotion = l2;
  e.oobFill = oob;
  e.mapAddress = reinterpret_cast<uintptr_t>(map);
  // The real driver's preconditions that the runtime is meant to ensure.
  if (reinterpret_cast<uintptr_t>(map) % 64 != 0 || rank == 0 || rank > 5 ||
      e.globalAddress % 16 != 0)
    return 1;
  const char *fail = std::getenv("ARGUS_FAKE_CUDA_FAIL_ENCODE");
  if (fail && std::strcmp(fail, "1") == 0)
    return 1; // CUDA_ERROR_INVALID_VALUE
  uint64_t q[16] = {kArgusFakeMapMagic, e.globalAddress, rank};
  for (uint32_t i = 0; i < rank; ++i) {
    q[3 + i] = dims[i];
    q[8 + i] = box[i];
  }
  q[13] = static_cast<uint64_t>(dataType);
  q[14] = static_cast<uint64_t>(swizzle);
  std::memcpy(map, q, sizeof(q));
  return 0;
}

CUresult cuEventCreate(void **e, unsigned) {
  *e = new int(0);
  return 0;
}
CUresult cuEventDestroy_v2(void *e) {
  delete static_cast<int *>(e);
  return 0;
}
CUresult cuEventRecord(void *e, void *) {
  static int n = 0;
  *static_cast<int *>(e) = ++n;
  return 0;
}
CUresult cuEventSynchronize(void *) { return 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
  *ms = 0.001f *
        static_cast<float>(*static_cast<int *>(b) - *static_cast<int *>(a));
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == 218   ? "CUDA_ERROR_INVALID_PTX"
       : r == 1   ? "CUDA_ERROR_INVALID_VALUE"
       : r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS"
       : r == 912 ? "CUDA_ERROR_INVALID_CLUSTER_SIZE"
                  : "CUDA_ERROR_FAKE";
  return 0;
}
CUresult cuGetErrorString(CUresult, const char **s) {
  *s = "fake driver error";
  return 0;
}
} // extern "C"
