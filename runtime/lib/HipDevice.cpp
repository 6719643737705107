//===- HipDevice.cpp - The HIP backend (dlopen'ed libamdhip64) -----------===//
#include "Backends.h"

namespace argus {
namespace rt {

namespace {

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

  void load(const DynamicLibrary &l) {
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
  HipDevice(std::unique_ptr<DynamicLibrary> lib, int index)
      : lib_(std::move(lib)) {
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

  std::unique_ptr<DynamicLibrary> lib_;
  HipApi api_{};
  std::string name_;
  DeviceLimits lim_;
};

} // namespace

std::unique_ptr<Device> makeHipDevice(std::unique_ptr<DynamicLibrary> lib,
                                      int index) {
  return std::make_unique<HipDevice>(std::move(lib), index);
}

} // namespace rt
} // namespace argus
