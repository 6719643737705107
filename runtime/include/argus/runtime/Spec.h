//===- Spec.h - argus-run launch specification ----------------------------===//
#ifndef ARGUS_RUNTIME_SPEC_H
#define ARGUS_RUNTIME_SPEC_H

#include "argus/runtime/Device.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/HostData.h"
#include "argus/runtime/Json.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace argus {
namespace rt {

/// A TMA descriptor argument ("kind": "tensor_map") over a whole row-major
/// buffer argument.
struct TensorMapSpec {
  int buffer = -1;            ///< index of the buffer argument it covers
  std::string bufferName;     ///< "buffer" as written, when a name
  std::vector<int64_t> box;   ///< box shape, outermost first (like "shape")
  unsigned swizzle = 0;       ///< bytes: 0 (none), 32, 64, 128
  bool oobNan = false;        ///< "nan": NAN_REQUEST_ZERO_FMA, else zeros
  unsigned l2Promotion = 128; ///< bytes: 0, 64, 128, 256
  bool passPointer = false;   ///< "pointer": device address of a copy
};

struct ArgSpec {
  std::string name;
  bool isBuffer = true;
  bool isTensorMap = false; ///< then isBuffer is false and `tensorMap` holds it
  TensorMapSpec tensorMap;
  DType dtype = DType::F32;
  // Buffers.
  std::vector<int64_t> shape;
  size_t elements = 0;
  std::string init = "zeros"; ///< random | zeros | const | file | host
  /// "host": the initial contents, set by an embedding program (the C API),
  /// never read from a spec file; exactly elements * dtypeSize bytes.
  std::vector<uint8_t> hostInit;
  double initValue = 0; ///< for const
  std::string initFile; ///< for file: raw elements (resolved path)
  std::string savePath; ///< "save": written after the checked run
  uint64_t seed = 0;
  double lo = -1, hi = 1;     ///< random range
  std::string role = "input"; ///< input | output | inout
  /// "param": false - allocated, initialised and checked, but not a kernel
  /// parameter (a TMA kernel may see a buffer only through its tensor map).
  bool kernelParam = true;
  // Scalars.
  double scalar = 0;
  int64_t scalarInt = 0; ///< integer dtypes (u64: the value's bit pattern)
};

struct CheckSpec {
  bool enabled = false;
  std::string kind = "gemm";
  int a = -1, b = -1, c = -1;
  int64_t M = 0, N = 0, K = 0;
  std::string layout = "row-major";
  bool aTransposed = false, bTransposed = false;
  double atol = 1e-2, rtol = 1e-2; ///< defaults depend on C's dtype
  /// Where the reference is computed: "auto" (the device when it can, else
  /// the host), "device" or "host".
  std::string reference = "auto";
};

struct ProbeSpec {
  bool enabled = false;
  uint32_t capacity = 0;
  uint32_t warpsPerBlock = 0;
  uint32_t warpSize = 32;
  uint32_t clockKind = 0;
  double clockHz = 0;
  std::map<uint32_t, std::string> regions;
  size_t timelineWarps = 256;
};

struct LaunchSpec {
  std::string name;
  std::string specPath;
  std::string modulePath; ///< resolved relative to the spec's folder
  /// The module's contents when an embedding program passes them in memory
  /// (the C API); then modulePath is only a name for reports.
  std::string moduleImage;
  ModuleFormat format = ModuleFormat::Auto;
  std::string kernel;
  LaunchConfig launch; ///< grid entries given as "sms" hold 0 until resolved
  bool gridSms[3] = {false, false, false}; ///< "grid": ["sms", ...]
  std::vector<ArgSpec> args;
  CheckSpec check;
  ProbeSpec probes;
  int warmup = 3;
  int repetitions = 20;
  int device = 0;
  std::string backend = "auto";
};

/// Parse a spec object. Throws RuntimeError(Spec) whose path names the
/// offending field ("$.args[2].dtype", JSON pointer "/args/2/dtype").
/// baseDir resolves relative paths.
LaunchSpec parseLaunchSpec(const Json &j, const std::string &baseDir,
                           const std::string &specPath = "");
/// Read, parse and validate a spec file (Spec errors for I/O and JSON).
LaunchSpec loadLaunchSpec(const std::string &file);

/// The launch configuration for a device: "sms" grid entries become the
/// multiprocessor count, rounded down to a multiple of the cluster's extent
/// on that axis. Throws RuntimeError(Launch) when the count is unknown.
LaunchConfig resolveLaunch(const LaunchSpec &spec, const DeviceLimits &lim);

/// The cuTensorMapEncodeTiled arguments of tensor-map argument `tm` over
/// buffer `buf` at device address `addr`, reversed to TMA's innermost-first
/// order. Throws RuntimeError(Spec) for what TMA cannot describe (path
/// names `jsonPath`) and RuntimeError(Launch) for a misaligned address.
TensorMapDesc tensorMapDesc(const ArgSpec &tm, const ArgSpec &buf,
                            DevicePtr addr, const std::string &jsonPath);

/// A RuntimeError about the spec field at `path` ("$.args[2].dtype"): it
/// carries the path and its JSON pointer ("/args/2/dtype").
RuntimeError specPathError(ErrorKind kind, const std::string &msg,
                           const std::string &path);

/// Read a whole file; throws RuntimeError(kind) when it cannot.
std::string readFile(const std::string &path, ErrorKind kind);

/// Read the raw contents of `a.initFile` (an "init": {"file": ...} buffer):
/// exactly a.elements * dtypeSize(a.dtype) bytes. Throws RuntimeError(Spec)
/// naming `jsonPath` when the file is missing or has another size.
std::vector<uint8_t> readInitFile(const ArgSpec &a,
                                  const std::string &jsonPath);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_SPEC_H
