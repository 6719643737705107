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
//   anything else               - does nothing
// Text containing "fake-bad-ptx" fails to load with a JIT log. Like the real
// driver, a function has the parameters its .entry declares: fake_gemm
// reads the probe pointer only when the entry declares a seventh parameter
// (the kernel parameter array has no more elements than that).
//
//===----------------------------------------------------------------------===//
#include "argus/runtime/HostData.h"
#include "argus/runtime/ProbeFormat.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using argus::rt::floatToHalf;
using argus::rt::halfToFloat;

namespace {
struct FakeFunc {
  std::string name;
  int params = 0; ///< .param entries the .entry declares
};

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
  case 16:
    *v = 4;
    return 0;
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
  *f = new FakeFunc{name, countParams(text, name)};
  return 0;
}
CUresult cuFuncSetAttribute(void *, int, int) { return 0; }
CUresult cuFuncGetAttribute(int *v, int attr, void *) {
  if (attr == 0) {
    *v = 1024;
    return 0;
  }
  return 1;
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  *p = reinterpret_cast<uintptr_t>(std::malloc(n));
  return *p ? 0 : 2;
}
CUresult cuMemFree_v2(unsigned long long p) {
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

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned, void *,
                        void **params, void **) {
  const std::string &name = static_cast<FakeFunc *>(f)->name;
  if (bx * by * bz > 1024)
    return 1;
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
  *s = r == 218 ? "CUDA_ERROR_INVALID_PTX" : "CUDA_ERROR_FAKE";
  return 0;
}
CUresult cuGetErrorString(CUresult, const char **s) {
  *s = "fake driver error";
  return 0;
}
} // extern "C"
