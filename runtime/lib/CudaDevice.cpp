//===- CudaDevice.cpp - The CUDA driver API backend (dlopen'ed libcuda) --===//
#include "Backends.h"

#include <sstream>

namespace argus {
namespace rt {

namespace {

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

  void load(const DynamicLibrary &l) {
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
  CudaDevice(std::unique_ptr<DynamicLibrary> lib, int index)
      : lib_(std::move(lib)) {
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

  std::unique_ptr<DynamicLibrary> lib_;
  CudaApi api_{};
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  std::string name_;
  DeviceLimits lim_;
};

} // namespace

std::unique_ptr<Device> makeCudaDevice(std::unique_ptr<DynamicLibrary> lib,
                                       int index) {
  return std::make_unique<CudaDevice>(std::move(lib), index);
}

} // namespace rt
} // namespace argus
