//===- Backends.h - The driver backends behind openDevice -----------------===//
//
// Private to the runtime: each backend lives in its own file and is reached
// only through these factories, so Device.cpp needs no driver ABI.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_LIB_BACKENDS_H
#define ARGUS_RUNTIME_LIB_BACKENDS_H

#include "DynamicLibrary.h"
#include "argus/runtime/Device.h"

#include <memory>

namespace argus {
namespace rt {

/// The CUDA driver API device `index` of an opened libcuda. Throws
/// RuntimeError(NoDriver) when the driver has no such device.
std::unique_ptr<Device> makeCudaDevice(std::unique_ptr<DynamicLibrary> lib,
                                       int index);

/// The HIP device `index` of an opened libamdhip64. Throws
/// RuntimeError(NoDriver) when the runtime has no such device.
std::unique_ptr<Device> makeHipDevice(std::unique_ptr<DynamicLibrary> lib,
                                      int index);

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_LIB_BACKENDS_H
