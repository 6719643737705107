//===- Device.cpp - CUDA driver API and HIP backends via dlopen -----------===//
#include "argus/runtime/Device.h"
#include "argus/runtime/Error.h"

#include <cstring>
#include <dlfcn.h>
#include <sstream>

namespace argus {
namespace rt {

const char *errorKindName(ErrorKind k) {
  switch (k) {
  case ErrorKind::Runtime:
    return "runtime";
  case ErrorKind::Spec:
    return "spec";
  case ErrorKind::NoDriver:
    return "no_driver";
  case ErrorKind::Module:
    return "module";
  case ErrorKind::Launch:
    return "launch";
  case ErrorKind::Check:
    return "check";
  }
  return "unknown";
}

Device::~Device() = default;

void Device::encodeTensorMap(const TensorMapDesc &, TensorMapBytes &,
                             const std::string &what) {
  throw RuntimeError(ErrorKind::Launch, what + ": the " + backend() +
                                            " backend has no TMA tensor maps");
}

static bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

ModuleFormat moduleFormatFromPath(const std::string &path) {
  if (endsWith(path, ".ptx"))
    return ModuleFormat::PTX;
  if (endsWith(path, ".cubin"))
    return ModuleFormat::Cubin;
  if (endsWith(path, ".hsaco") || endsWith(path, ".co"))
    return ModuleFormat::Hsaco;
  return ModuleFormat::Auto;
}

const char *moduleFormatName(ModuleFormat f) {
  switch (f) {
  case ModuleFormat::Auto:
    return "auto";
  case ModuleFormat::PTX:
    return "ptx";
  case ModuleFormat::Cubin:
    return "cubin";
  case ModuleFormat::Hsaco:
    return "hsaco";
  }
  return "auto";
}

void validateLaunch(const LaunchConfig &cfg, const DeviceLimits &lim) {
  static const char *axis[3] = {"x", "y", "z"};
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (cfg.grid[i] == 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("grid.") + axis[i] + " is 0");
    if (cfg.block[i] == 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("block.") + axis[i] + " is 0");
    if (cfg.grid[i] > static_cast<unsigned>(lim.maxGridDim[i]))
      throw RuntimeError(ErrorKind::Launch,
                         std::string("grid.") + axis[i] + " = " +
                             std::to_string(cfg.grid[i]) +
                             " exceeds the device maximum " +
                             std::to_string(lim.maxGridDim[i]));
    if (cfg.block[i] > static_cast<unsigned>(lim.maxBlockDim[i]))
      throw RuntimeError(ErrorKind::Launch,
                         std::string("block.") + axis[i] + " = " +
                             std::to_string(cfg.block[i]) +
                             " exceeds the device maximum " +
                             std::to_string(lim.maxBlockDim[i]));
    threads *= cfg.block[i];
  }
  if (threads > static_cast<uint64_t>(lim.maxThreadsPerBlock))
    throw RuntimeError(ErrorKind::Launch,
                       "block has " + std::to_string(threads) +
                           " threads; the device allows at most " +
                           std::to_string(lim.maxThreadsPerBlock));
  if (cfg.sharedMem > static_cast<unsigned>(lim.maxSharedPerBlockOptin))
    throw RuntimeError(ErrorKind::Launch,
                       "dynamic shared memory: requested " +
                           std::to_string(cfg.sharedMem) +
                           " bytes, the device maximum per block (opt-in) is " +
                           std::to_string(lim.maxSharedPerBlockOptin));
  if (!cfg.hasCluster())
    return;
  uint64_t clusterBlocks = 1;
  for (int i = 0; i < 3; ++i) {
    if (cfg.cluster[i] == 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("cluster.") + axis[i] + " is 0");
    if (cfg.grid[i] % cfg.cluster[i] != 0)
      throw RuntimeError(ErrorKind::Launch,
                         std::string("grid.") + axis[i] + " = " +
                             std::to_string(cfg.grid[i]) +
                             " is not a multiple of cluster." + axis[i] +
                             " = " + std::to_string(cfg.cluster[i]));
    clusterBlocks *= cfg.cluster[i];
  }
  if (clusterBlocks > kMaxPortableClusterBlocks)
    throw RuntimeError(ErrorKind::Launch,
                       "cluster of " + std::to_string(clusterBlocks) +
                           " blocks exceeds the portable maximum of 8 "
                           "(non-portable sizes up to 16 are not supported)");
  // ccMajor 0: not queried (HIP), left to the driver.
  if (lim.ccMajor > 0 && lim.ccMajor < 9)
    throw RuntimeError(ErrorKind::Launch,
                       "thread-block clusters need compute capability 9.0 or "
                       "higher; the device is sm_" +
                           std::to_string(lim.ccMajor) +
                           std::to_string(lim.ccMinor));
}

namespace {

/// RAII wrapper over dlopen.
class Library {
public:
  Library() = default;
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;
  ~Library() {
    if (h_)
      dlclose(h_);
  }
  bool open(const std::string &name, std::string &err) {
    h_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h_) {
      const char *e = dlerror();
      err = e ? e : (name + ": dlopen failed");
    }
    return h_ != nullptr;
  }
  void *sym(const char *n) const { return h_ ? dlsym(h_, n) : nullptr; }

private:
  void *h_ = nullptr;
};

template <typename F>
F loadSym(const Library &lib, std::initializer_list<const char *> names,
          const char *backendName) {
  for (const char *n : names)
    if (void *p = lib.sym(n))
      return reinterpret_cast<F>(p);
  throw RuntimeError(ErrorKind::NoDriver, std::string(backendName) +
                                              " driver library lacks " +
                                              *names.begin());
}

/// An entry point newer drivers have (nullptr when absent): its users say
/// what is missing only when it is needed.
template <typename F> F loadOptionalSym(const Library &lib, const char *name) {
  return reinterpret_cast<F>(lib.sym(name));
}

//===----------------------------------------------------------------------===//
// CUDA driver API (declared here; ABI of cuda.h)
//===----------------------------------------------------------------------===//
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUjit_option = int;
using cuuint32_t = uint32_t;
using cuuint64_t = uint64_t;

// cuLaunchKernelEx (CUDA 11.8+): the layout of cuda.h's CUlaunchConfig and
// CUlaunchAttribute (id padded to 8 bytes, then a 64-byte value union).
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute ABI");
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_INVALID_CLUSTER_SIZE = 912;

struct CudaApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Optional (nullptr with older drivers).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuTensorMapEncodeTiled)(
      void *tensorMap, int dataType, cuuint32_t rank, void *globalAddress,
      const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
      const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
      int interleave, int swizzle, int l2Promotion, int oobFill);

  void load(const Library &l) {
    const char *b = "CUDA";
    cuInit = loadSym<decltype(cuInit)>(l, {"cuInit"}, b);
    cuDriverGetVersion =
        loadSym<decltype(cuDriverGetVersion)>(l, {"cuDriverGetVersion"}, b);
    cuDeviceGetCount =
        loadSym<decltype(cuDeviceGetCount)>(l, {"cuDeviceGetCount"}, b);
    cuDeviceGet = loadSym<decltype(cuDeviceGet)>(l, {"cuDeviceGet"}, b);
    cuDeviceGetName =
        loadSym<decltype(cuDeviceGetName)>(l, {"cuDeviceGetName"}, b);
    cuDeviceGetAttribute =
        loadSym<decltype(cuDeviceGetAttribute)>(l, {"cuDeviceGetAttribute"}, b);
    cuDevicePrimaryCtxRetain = loadSym<decltype(cuDevicePrimaryCtxRetain)>(
        l, {"cuDevicePrimaryCtxRetain"}, b);
    cuDevicePrimaryCtxRelease = loadSym<decltype(cuDevicePrimaryCtxRelease)>(
        l, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, b);
    cuCtxSetCurrent =
        loadSym<decltype(cuCtxSetCurrent)>(l, {"cuCtxSetCurrent"}, b);
    cuCtxSynchronize =
        loadSym<decltype(cuCtxSynchronize)>(l, {"cuCtxSynchronize"}, b);
    cuModuleLoadDataEx =
        loadSym<decltype(cuModuleLoadDataEx)>(l, {"cuModuleLoadDataEx"}, b);
    cuModuleUnload =
        loadSym<decltype(cuModuleUnload)>(l, {"cuModuleUnload"}, b);
    cuModuleGetFunction =
        loadSym<decltype(cuModuleGetFunction)>(l, {"cuModuleGetFunction"}, b);
    cuFuncSetAttribute =
        loadSym<decltype(cuFuncSetAttribute)>(l, {"cuFuncSetAttribute"}, b);
    cuFuncGetAttribute =
        loadSym<decltype(cuFuncGetAttribute)>(l, {"cuFuncGetAttribute"}, b);
    cuMemAlloc = loadSym<decltype(cuMemAlloc)>(l, {"cuMemAlloc_v2"}, b);
    cuMemFree = loadSym<decltype(cuMemFree)>(l, {"cuMemFree_v2"}, b);
    cuMemcpyHtoD = loadSym<decltype(cuMemcpyHtoD)>(l, {"cuMemcpyHtoD_v2"}, b);
    cuMemcpyDtoH = loadSym<decltype(cuMemcpyDtoH)>(l, {"cuMemcpyDtoH_v2"}, b);
    cuMemsetD8 = loadSym<decltype(cuMemsetD8)>(l, {"cuMemsetD8_v2"}, b);
    cuLaunchKernel =
        loadSym<decltype(cuLaunchKernel)>(l, {"cuLaunchKernel"}, b);
    cuEventCreate = loadSym<decltype(cuEventCreate)>(l, {"cuEventCreate"}, b);
    cuEventDestroy = loadSym<decltype(cuEventDestroy)>(
        l, {"cuEventDestroy_v2", "cuEventDestroy"}, b);
    cuEventRecord = loadSym<decltype(cuEventRecord)>(l, {"cuEventRecord"}, b);
    cuEventSynchronize =
        loadSym<decltype(cuEventSynchronize)>(l, {"cuEventSynchronize"}, b);
    cuEventElapsedTime = loadSym<decltype(cuEventElapsedTime)>(
        l, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, b);
    cuGetErrorName =
        loadSym<decltype(cuGetErrorName)>(l, {"cuGetErrorName"}, b);
    cuGetErrorString =
        loadSym<decltype(cuGetErrorString)>(l, {"cuGetErrorString"}, b);
    cuLaunchKernelEx =
        loadOptionalSym<decltype(cuLaunchKernelEx)>(l, "cuLaunchKernelEx");
    cuTensorMapEncodeTiled = loadOptionalSym<decltype(cuTensorMapEncodeTiled)>(
        l, "cuTensorMapEncodeTiled");
  }
};

class CudaDevice : public Device {
public:
  CudaDevice(std::unique_ptr<Library> lib, int index) : lib_(std::move(lib)) {
    api_.load(*lib_);
    CUresult r = api_.cuInit(0);
    if (r != 0)
      throw RuntimeError(ErrorKind::NoDriver,
                         "CUDA driver loaded but cuInit failed: " + err(r));
    int count = 0;
    check(api_.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count <= 0)
      throw RuntimeError(ErrorKind::NoDriver,
                         "CUDA driver loaded but no CUDA device is present");
    if (index < 0 || index >= count)
      throw RuntimeError(ErrorKind::NoDriver,
                         "CUDA device index " + std::to_string(index) +
                             " out of range (" + std::to_string(count) +
                             " devices)");
    check(api_.cuDeviceGet(&dev_, index), "cuDeviceGet");
    char nm[256] = {0};
    check(api_.cuDeviceGetName(nm, sizeof(nm) - 1, dev_), "cuDeviceGetName");
    name_ = nm;
    check(api_.cuDevicePrimaryCtxRetain(&ctx_, dev_),
          "cuDevicePrimaryCtxRetain");
    check(api_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
    auto attr = [&](int a, int &out) {
      int v = 0;
      if (api_.cuDeviceGetAttribute(&v, a, dev_) == 0)
        out = v;
    };
    attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, lim_.maxThreadsPerBlock);
    for (int i = 0; i < 3; ++i) {
      attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i, lim_.maxBlockDim[i]);
      attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i, lim_.maxGridDim[i]);
    }
    attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         lim_.maxSharedPerBlockOptin);
    attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, lim_.multiprocessors);
    attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, lim_.ccMajor);
    attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, lim_.ccMinor);
  }

  ~CudaDevice() override {
    if (ctx_)
      api_.cuDevicePrimaryCtxRelease(dev_);
  }

  std::string backend() const override { return "cuda"; }
  std::string name() const override {
    return name_ + " (sm_" + std::to_string(lim_.ccMajor) +
           std::to_string(lim_.ccMinor) + ")";
  }
  const DeviceLimits &limits() const override { return lim_; }

  DevicePtr alloc(size_t bytes) override {
    CUdeviceptr p = 0;
    check(api_.cuMemAlloc(&p, bytes ? bytes : 1),
          "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
    return p;
  }
  void free(DevicePtr p) override {
    if (p)
      api_.cuMemFree(p);
  }
  void copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    if (bytes)
      check(api_.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }
  void copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    if (bytes)
      check(api_.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  }
  void memset8(DevicePtr dst, uint8_t v, size_t bytes) override {
    if (bytes)
      check(api_.cuMemsetD8(dst, v, bytes), "cuMemsetD8");
  }

  ModuleHandle loadModule(const std::vector<char> &image,
                          ModuleFormat format) override {
    if (format == ModuleFormat::Hsaco)
      throw RuntimeError(ErrorKind::Module,
                         "an hsaco (AMDGPU) module cannot be loaded by the "
                         "CUDA backend");
    std::vector<char> data = image;
    bool isPtx = format == ModuleFormat::PTX;
    if (format == ModuleFormat::Auto)
      isPtx = !(image.size() >= 4 && image[0] == 0x7f && image[1] == 'E' &&
                image[2] == 'L' && image[3] == 'F');
    if (isPtx && (data.empty() || data.back() != '\0'))
      data.push_back('\0'); // PTX must be NUL-terminated
    std::vector<char> errLog(1 << 16, '\0'), infoLog(1 << 16, '\0');
    CUjit_option opts[5] = {
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE};
    void *vals[5] = {errLog.data(), reinterpret_cast<void *>(errLog.size() - 1),
                     infoLog.data(),
                     reinterpret_cast<void *>(infoLog.size() - 1),
                     reinterpret_cast<void *>(static_cast<uintptr_t>(1))};
    CUmodule mod = nullptr;
    CUresult r = api_.cuModuleLoadDataEx(&mod, data.data(), 5, opts, vals);
    lastJitInfoLog = std::string(infoLog.data());
    if (r != 0) {
      std::string log(errLog.data());
      throw RuntimeError(ErrorKind::Module,
                         std::string("cuModuleLoadDataEx failed (") +
                             (isPtx ? "PTX JIT" : "binary image") +
                             "): " + err(r),
                         "", log);
    }
    return ModuleHandle{mod};
  }

  void unloadModule(ModuleHandle m) override {
    if (m.handle)
      api_.cuModuleUnload(static_cast<CUmodule>(m.handle));
  }

  FunctionHandle getFunction(ModuleHandle m,
                             const std::string &fname) override {
    CUfunction f = nullptr;
    CUresult r = api_.cuModuleGetFunction(&f, static_cast<CUmodule>(m.handle),
                                          fname.c_str());
    if (r != 0)
      throw RuntimeError(ErrorKind::Module,
                         "kernel '" + fname +
                             "' not found in module: " + err(r));
    return FunctionHandle{f, fname};
  }

  void launch(const FunctionHandle &f, const LaunchConfig &cfg,
              std::vector<void *> &args) override {
    validateLaunch(cfg, lim_);
    auto fn = static_cast<CUfunction>(f.handle);
    int maxThreads = 0;
    if (api_.cuFuncGetAttribute(
            &maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) == 0 &&
        maxThreads > 0) {
      uint64_t t = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
      if (t > static_cast<uint64_t>(maxThreads))
        throw RuntimeError(
            ErrorKind::Launch,
            "block has " + std::to_string(t) + " threads; kernel '" + f.name +
                "' allows at most " + std::to_string(maxThreads) +
                " (register/launch-bounds limit)");
    }
    // Static shared memory counts against the same opt-in limit, and
    // cuFuncSetAttribute would only say CUDA_ERROR_INVALID_VALUE.
    int staticSmem = 0;
    if (api_.cuFuncGetAttribute(&staticSmem,
                                CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn) != 0)
      staticSmem = 0;
    uint64_t totalSmem = uint64_t(cfg.sharedMem) + uint64_t(staticSmem);
    if (staticSmem > 0 &&
        totalSmem > static_cast<uint64_t>(lim_.maxSharedPerBlockOptin))
      throw RuntimeError(ErrorKind::Launch,
                         "shared memory: kernel '" + f.name + "' has " +
                             std::to_string(staticSmem) + " bytes static + " +
                             std::to_string(cfg.sharedMem) +
                             " bytes dynamic = " + std::to_string(totalSmem) +
                             "; the device maximum per block (opt-in) is " +
                             std::to_string(lim_.maxSharedPerBlockOptin));
    // Above 48 KiB in all (static + dynamic) the kernel must opt in, up to
    // 227 KiB on H100/H200; by default dynamic is capped at 48 KiB - static.
    if (cfg.sharedMem > 0 && totalSmem > 48 * 1024) {
      CUresult r = api_.cuFuncSetAttribute(
          fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(cfg.sharedMem));
      if (r != 0)
        throw RuntimeError(
            ErrorKind::Launch,
            "cannot raise dynamic shared memory to " +
                std::to_string(cfg.sharedMem) + " bytes (device maximum " +
                std::to_string(lim_.maxSharedPerBlockOptin) + "): " + err(r));
    }
    const char *what = "cuLaunchKernel";
    CUresult r;
    if (cfg.hasCluster()) {
      what = "cuLaunchKernelEx";
      if (!api_.cuLaunchKernelEx)
        throw RuntimeError(ErrorKind::Launch,
                           "a cluster launch needs cuLaunchKernelEx, which "
                           "this CUDA driver lacks (CUDA 11.8 or newer)");
      CUlaunchAttribute attr{};
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = cfg.cluster[0];
      attr.value.clusterDim.y = cfg.cluster[1];
      attr.value.clusterDim.z = cfg.cluster[2];
      CUlaunchConfig lc{};
      lc.gridDimX = cfg.grid[0];
      lc.gridDimY = cfg.grid[1];
      lc.gridDimZ = cfg.grid[2];
      lc.blockDimX = cfg.block[0];
      lc.blockDimY = cfg.block[1];
      lc.blockDimZ = cfg.block[2];
      lc.sharedMemBytes = cfg.sharedMem;
      lc.hStream = nullptr;
      lc.attrs = &attr;
      lc.numAttrs = 1;
      r = api_.cuLaunchKernelEx(&lc, fn, args.data(), nullptr);
    } else {
      r = api_.cuLaunchKernel(fn, cfg.grid[0], cfg.grid[1], cfg.grid[2],
                              cfg.block[0], cfg.block[1], cfg.block[2],
                              cfg.sharedMem, nullptr, args.data(), nullptr);
    }
    if (r == CUDA_ERROR_INVALID_VALUE ||
        r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ||
        r == CUDA_ERROR_INVALID_CLUSTER_SIZE)
      throw RuntimeError(ErrorKind::Launch, std::string(what) + ": " + err(r));
    check(r, what);
  }

  void encodeTensorMap(const TensorMapDesc &d, TensorMapBytes &out,
                       const std::string &what) override {
    if (!api_.cuTensorMapEncodeTiled)
      throw RuntimeError(ErrorKind::Launch,
                         what + ": this CUDA driver lacks "
                                "cuTensorMapEncodeTiled (CUDA 12.0 or newer)");
    CUresult r = api_.cuTensorMapEncodeTiled(
        &out, static_cast<int>(d.dataType), d.rank,
        reinterpret_cast<void *>(static_cast<uintptr_t>(d.globalAddress)),
        d.globalDim, d.globalStrides, d.boxDim, d.elementStrides,
        static_cast<int>(d.interleave), static_cast<int>(d.swizzle),
        static_cast<int>(d.l2Promotion), static_cast<int>(d.oobFill));
    if (r != 0)
      throw RuntimeError(ErrorKind::Launch,
                         what + ": cuTensorMapEncodeTiled failed: " + err(r));
  }

  void synchronize() override {
    check(api_.cuCtxSynchronize(), "kernel execution (cuCtxSynchronize)");
  }

  void *createEvent() override {
    CUevent e = nullptr;
    check(api_.cuEventCreate(&e, 0), "cuEventCreate");
    return e;
  }
  void destroyEvent(void *e) override {
    if (e)
      api_.cuEventDestroy(static_cast<CUevent>(e));
  }
  void recordEvent(void *e) override {
    check(api_.cuEventRecord(static_cast<CUevent>(e), nullptr),
          "cuEventRecord");
  }
  float elapsedMs(void *a, void *b) override {
    check(api_.cuEventSynchronize(static_cast<CUevent>(b)),
          "cuEventSynchronize");
    float ms = 0;
    check(api_.cuEventElapsedTime(&ms, static_cast<CUevent>(a),
                                  static_cast<CUevent>(b)),
          "cuEventElapsedTime");
    return ms;
  }

private:
  std::string err(CUresult r) const {
    const char *n = nullptr, *s = nullptr;
    api_.cuGetErrorName(r, &n);
    api_.cuGetErrorString(r, &s);
    std::ostringstream os;
    os << (n ? n : "CUDA_ERROR") << " (" << r << ")";
    if (s)
      os << ": " << s;
    return os.str();
  }
  void check(CUresult r, const std::string &what) const {
    if (r != 0)
      throw RuntimeError(ErrorKind::Runtime, what + " failed: " + err(r));
  }

  std::unique_ptr<Library> lib_;
  CudaApi api_{};
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  std::string name_;
  DeviceLimits lim_;
};

//===----------------------------------------------------------------------===//
// HIP (declared here; ABI of hip_runtime_api.h). Untested: no AMD GPU here.
//===----------------------------------------------------------------------===//
using hipError_t = int;
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipEvent_t;
struct ihipStream_t;
using hipModule_t = ihipModule_t *;
using hipFunction_t = ihipModuleSymbol_t *;
using hipEvent_t = ihipEvent_t *;
using hipStream_t = ihipStream_t *;
using hipDeviceptr_t = void *;

struct HipApi {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t, const void *, size_t);
  hipError_t (*hipMemcpyDtoH)(void *, hipDeviceptr_t, size_t);
  hipError_t (*hipMemset)(void *, int, size_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  const char *(*hipGetErrorString)(hipError_t);

  void load(const Library &l) {
    const char *b = "HIP";
#define ARGUS_HIP_SYM(n) n = loadSym<decltype(n)>(l, {#n}, b)
    ARGUS_HIP_SYM(hipInit);
    ARGUS_HIP_SYM(hipGetDeviceCount);
    ARGUS_HIP_SYM(hipSetDevice);
    ARGUS_HIP_SYM(hipDeviceGetName);
    ARGUS_HIP_SYM(hipModuleLoadData);
    ARGUS_HIP_SYM(hipModuleUnload);
    ARGUS_HIP_SYM(hipModuleGetFunction);
    ARGUS_HIP_SYM(hipMalloc);
    ARGUS_HIP_SYM(hipFree);
    ARGUS_HIP_SYM(hipMemcpyHtoD);
    ARGUS_HIP_SYM(hipMemcpyDtoH);
    ARGUS_HIP_SYM(hipMemset);
    ARGUS_HIP_SYM(hipModuleLaunchKernel);
    ARGUS_HIP_SYM(hipDeviceSynchronize);
    ARGUS_HIP_SYM(hipEventCreate);
    ARGUS_HIP_SYM(hipEventDestroy);
    ARGUS_HIP_SYM(hipEventRecord);
    ARGUS_HIP_SYM(hipEventSynchronize);
    ARGUS_HIP_SYM(hipEventElapsedTime);
    ARGUS_HIP_SYM(hipGetErrorString);
#undef ARGUS_HIP_SYM
  }
};

class HipDevice : public Device {
public:
  HipDevice(std::unique_ptr<Library> lib, int index) : lib_(std::move(lib)) {
    api_.load(*lib_);
    hipError_t r = api_.hipInit(0);
    if (r != 0)
      throw RuntimeError(ErrorKind::NoDriver,
                         "HIP runtime loaded but hipInit failed: " + err(r));
    int count = 0;
    if (api_.hipGetDeviceCount(&count) != 0 || count <= 0)
      throw RuntimeError(ErrorKind::NoDriver,
                         "HIP runtime loaded but no AMD GPU is present");
    if (index < 0 || index >= count)
      throw RuntimeError(ErrorKind::NoDriver, "HIP device index " +
                                                  std::to_string(index) +
                                                  " out of range");
    check(api_.hipSetDevice(index), "hipSetDevice");
    char nm[256] = {0};
    api_.hipDeviceGetName(nm, sizeof(nm) - 1, index);
    name_ = nm;
    lim_.maxSharedPerBlockOptin = 64 * 1024;
  }

  std::string backend() const override { return "hip"; }
  std::string name() const override { return name_; }
  const DeviceLimits &limits() const override { return lim_; }

  DevicePtr alloc(size_t bytes) override {
    void *p = nullptr;
    check(api_.hipMalloc(&p, bytes ? bytes : 1), "hipMalloc");
    return reinterpret_cast<DevicePtr>(p);
  }
  void free(DevicePtr p) override {
    if (p)
      api_.hipFree(reinterpret_cast<void *>(p));
  }
  void copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    if (bytes)
      check(api_.hipMemcpyHtoD(reinterpret_cast<void *>(dst), src, bytes),
            "hipMemcpyHtoD");
  }
  void copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    if (bytes)
      check(api_.hipMemcpyDtoH(dst, reinterpret_cast<void *>(src), bytes),
            "hipMemcpyDtoH");
  }
  void memset8(DevicePtr dst, uint8_t v, size_t bytes) override {
    if (bytes)
      check(api_.hipMemset(reinterpret_cast<void *>(dst), v, bytes),
            "hipMemset");
  }
  ModuleHandle loadModule(const std::vector<char> &image,
                          ModuleFormat format) override {
    if (format == ModuleFormat::PTX || format == ModuleFormat::Cubin)
      throw RuntimeError(ErrorKind::Module,
                         std::string("a ") + moduleFormatName(format) +
                             " module cannot be loaded by the HIP backend");
    hipModule_t m = nullptr;
    hipError_t r = api_.hipModuleLoadData(&m, image.data());
    if (r != 0)
      throw RuntimeError(ErrorKind::Module,
                         "hipModuleLoadData failed: " + err(r));
    return ModuleHandle{m};
  }
  void unloadModule(ModuleHandle m) override {
    if (m.handle)
      api_.hipModuleUnload(static_cast<hipModule_t>(m.handle));
  }
  FunctionHandle getFunction(ModuleHandle m,
                             const std::string &fname) override {
    hipFunction_t f = nullptr;
    hipError_t r = api_.hipModuleGetFunction(
        &f, static_cast<hipModule_t>(m.handle), fname.c_str());
    if (r != 0)
      throw RuntimeError(ErrorKind::Module,
                         "kernel '" + fname + "' not found: " + err(r));
    return FunctionHandle{f, fname};
  }
  void launch(const FunctionHandle &f, const LaunchConfig &cfg,
              std::vector<void *> &args) override {
    validateLaunch(cfg, lim_);
    if (cfg.hasCluster())
      throw RuntimeError(ErrorKind::Launch,
                         "thread-block clusters are CUDA-only (sm_90+)");
    hipError_t r = api_.hipModuleLaunchKernel(
        static_cast<hipFunction_t>(f.handle), cfg.grid[0], cfg.grid[1],
        cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2], cfg.sharedMem,
        nullptr, args.data(), nullptr);
    if (r != 0)
      throw RuntimeError(ErrorKind::Launch, "hipModuleLaunchKernel: " + err(r));
  }
  void synchronize() override {
    check(api_.hipDeviceSynchronize(), "kernel execution");
  }
  void *createEvent() override {
    hipEvent_t e = nullptr;
    check(api_.hipEventCreate(&e), "hipEventCreate");
    return e;
  }
  void destroyEvent(void *e) override {
    if (e)
      api_.hipEventDestroy(static_cast<hipEvent_t>(e));
  }
  void recordEvent(void *e) override {
    check(api_.hipEventRecord(static_cast<hipEvent_t>(e), nullptr),
          "hipEventRecord");
  }
  float elapsedMs(void *a, void *b) override {
    check(api_.hipEventSynchronize(static_cast<hipEvent_t>(b)),
          "hipEventSynchronize");
    float ms = 0;
    check(api_.hipEventElapsedTime(&ms, static_cast<hipEvent_t>(a),
                                   static_cast<hipEvent_t>(b)),
          "hipEventElapsedTime");
    return ms;
  }

private:
  std::string err(hipError_t r) const {
    const char *s = api_.hipGetErrorString ? api_.hipGetErrorString(r) : "";
    return std::string(s ? s : "") + " (" + std::to_string(r) + ")";
  }
  void check(hipError_t r, const std::string &what) const {
    if (r != 0)
      throw RuntimeError(ErrorKind::Runtime, what + " failed: " + err(r));
  }

  std::unique_ptr<Library> lib_;
  HipApi api_{};
  std::string name_;
  DeviceLimits lim_;
};

} // namespace

std::unique_ptr<Device> openDevice(const DeviceOptions &opts) {
  std::vector<std::string> tried, errors;
  bool wantCuda = opts.backend == "auto" || opts.backend == "cuda";
  bool wantHip = opts.backend == "auto" || opts.backend == "hip";
  if (!wantCuda && !wantHip)
    throw RuntimeError(ErrorKind::Spec, "unknown backend '" + opts.backend +
                                            "' (expected auto, cuda or hip)");
  if (wantCuda)
    for (const auto &name : opts.cudaLibraries) {
      tried.push_back(name);
      auto lib = std::make_unique<Library>();
      std::string e;
      if (!lib->open(name, e)) {
        errors.push_back(e);
        continue;
      }
      try {
        return std::make_unique<CudaDevice>(std::move(lib), opts.deviceIndex);
      } catch (const RuntimeError &err) {
        errors.push_back(name + ": " + err.what());
      }
    }
  if (wantHip)
    for (const auto &name : opts.hipLibraries) {
      tried.push_back(name);
      auto lib = std::make_unique<Library>();
      std::string e;
      if (!lib->open(name, e)) {
        errors.push_back(e);
        continue;
      }
      try {
        return std::make_unique<HipDevice>(std::move(lib), opts.deviceIndex);
      } catch (const RuntimeError &err) {
        errors.push_back(name + ": " + err.what());
      }
    }
  std::string msg = "no GPU driver found (tried ";
  for (size_t i = 0; i < tried.size(); ++i)
    msg += (i ? ", " : "") + tried[i];
  msg += "): ";
  for (size_t i = 0; i < errors.size(); ++i)
    msg += (i ? "; " : "") + errors[i];
  throw RuntimeError(ErrorKind::NoDriver, msg);
}

} // namespace rt
} // namespace argus
