//===- Device.h - GPU device abstraction (CUDA / HIP via dlopen) ----------===//
//
// No CUDA or HIP headers or link-time dependency: the driver libraries are
// loaded with dlopen at run time, so this builds on any machine.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_DEVICE_H
#define ARGUS_RUNTIME_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace argus {
namespace rt {

enum class ModuleFormat { Auto, PTX, Cubin, Hsaco };

/// Guess a module format from a file name (".ptx", ".cubin", ".hsaco",
/// ".co"); Auto when unknown.
ModuleFormat moduleFormatFromPath(const std::string &path);
const char *moduleFormatName(ModuleFormat f);

using DevicePtr = uint64_t;

struct DeviceLimits {
  int maxThreadsPerBlock = 1024;
  int maxBlockDim[3] = {1024, 1024, 64};
  int maxGridDim[3] = {2147483647, 65535, 65535};
  int maxSharedPerBlockOptin = 48 * 1024;
  int multiprocessors = 0;
  int ccMajor = 0, ccMinor = 0;
};

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedMem = 0;
  /// Thread-block cluster (sm_90+); {1,1,1} launches without one.
  unsigned cluster[3] = {1, 1, 1};
  bool hasCluster() const { return cluster[0] * cluster[1] * cluster[2] > 1; }
};

/// Portable cluster size limit (16 needs the non-portable function
/// attribute, which argus-run does not set).
constexpr unsigned kMaxPortableClusterBlocks = 8;

/// Arguments of cuTensorMapEncodeTiled, already in TMA's innermost-first
/// order. The enum fields hold the CUDA driver's CUtensorMap* values.
struct TensorMapDesc {
  uint32_t dataType = 0; ///< CUtensorMapDataType
  uint32_t rank = 0;     ///< 1..5
  DevicePtr globalAddress = 0;
  uint64_t globalDim[5] = {0, 0, 0, 0, 0};
  uint64_t globalStrides[4] = {0, 0, 0, 0}; ///< bytes, dims 1..rank-1
  uint32_t boxDim[5] = {0, 0, 0, 0, 0};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  uint32_t interleave = 0; ///< CU_TENSOR_MAP_INTERLEAVE_NONE
  uint32_t swizzle = 0; ///< CUtensorMapSwizzle (0 none, 1 32B, 2 64B, 3 128B)
  uint32_t l2Promotion = 2; ///< CUtensorMapL2promotion (2 = 128B)
  uint32_t oobFill = 0;     ///< 0 zeros, 1 NaN (NAN_REQUEST_ZERO_FMA)
};

/// The opaque 128-byte CUtensorMap (cuda.h aligns it to 128 since CUDA 13;
/// TMA needs 64).
struct alignas(128) TensorMapBytes {
  uint64_t opaque[16] = {};
};
static_assert(sizeof(TensorMapBytes) == 128, "CUtensorMap is 128 bytes");

/// Opaque handles owned by the device.
struct ModuleHandle {
  void *handle = nullptr;
};
struct FunctionHandle {
  void *handle = nullptr;
  std::string name;
};

class Device {
public:
  virtual ~Device();
  virtual std::string backend() const = 0; ///< "cuda" or "hip"
  virtual std::string name() const = 0;
  virtual const DeviceLimits &limits() const = 0;

  virtual DevicePtr alloc(size_t bytes) = 0;
  virtual void free(DevicePtr p) = 0;
  virtual void copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual void copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  virtual void memset8(DevicePtr dst, uint8_t value, size_t bytes) = 0;

  /// Load a module image; format Auto sniffs the bytes. On failure throws
  /// RuntimeError(Module) with the JIT error log attached.
  virtual ModuleHandle loadModule(const std::vector<char> &image,
                                  ModuleFormat format) = 0;
  virtual void unloadModule(ModuleHandle m) = 0;
  virtual FunctionHandle getFunction(ModuleHandle m,
                                     const std::string &name) = 0;
  /// Validates the configuration against the device limits (throws
  /// RuntimeError(Launch)), then enqueues the kernel. `args` holds pointers
  /// to each argument value, as the driver APIs expect.
  virtual void launch(const FunctionHandle &f, const LaunchConfig &cfg,
                      std::vector<void *> &args) = 0;
  virtual void synchronize() = 0;

  /// Encodes a TMA descriptor (cuTensorMapEncodeTiled). `what` names the
  /// argument in errors. Backends without TMA throw RuntimeError(Launch).
  virtual void encodeTensorMap(const TensorMapDesc &desc, TensorMapBytes &out,
                               const std::string &what);

  /// Events for timing on the default stream.
  virtual void *createEvent() = 0;
  virtual void destroyEvent(void *e) = 0;
  virtual void recordEvent(void *e) = 0;
  virtual float elapsedMs(void *start, void *stop) = 0;

  /// Module JIT info log of the last loadModule (may be empty).
  std::string lastJitInfoLog;
};

struct DeviceOptions {
  /// Libraries tried in order; injectable for tests.
  std::vector<std::string> cudaLibraries = {"libcuda.so.1"};
  std::vector<std::string> hipLibraries = {"libamdhip64.so"};
  int deviceIndex = 0;
  /// "auto", "cuda" or "hip".
  std::string backend = "auto";
};

/// Open a device. Throws RuntimeError(NoDriver) with the message
/// "no GPU driver found (tried libcuda.so.1, libamdhip64.so): ..." when no
/// library loads, or when the driver reports no device.
std::unique_ptr<Device> openDevice(const DeviceOptions &opts = {});

/// Validate a launch configuration against limits (dimensions, threads,
/// dynamic shared memory, cluster shape); throws RuntimeError(Launch) with a
/// clear message.
void validateLaunch(const LaunchConfig &cfg, const DeviceLimits &limits);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_DEVICE_H
