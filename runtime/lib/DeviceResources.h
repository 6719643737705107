//===- DeviceResources.h - device allocations freed on every exit path ----===//
//
// Private to the runtime: what a run (Runner.cpp) or the device reference
// check (DeviceReference.cpp) allocated on the device, released by the
// destructor whichever way the code leaves (driver errors throw).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_LIB_DEVICERESOURCES_H
#define ARGUS_RUNTIME_LIB_DEVICERESOURCES_H

#include "argus/runtime/Device.h"

#include <vector>

namespace argus {
namespace rt {

struct DeviceResources {
  Device &dev;
  ModuleHandle module;
  std::vector<DevicePtr> buffers;
  std::vector<void *> events;
  explicit DeviceResources(Device &d) : dev(d) {}
  DeviceResources(const DeviceResources &) = delete;
  DeviceResources &operator=(const DeviceResources &) = delete;
  ~DeviceResources() {
    for (void *e : events)
      dev.destroyEvent(e);
    for (DevicePtr p : buffers)
      dev.free(p);
    dev.unloadModule(module);
  }
};

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_LIB_DEVICERESOURCES_H
