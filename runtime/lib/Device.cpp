//===- Device.cpp - Device interface, launch checks and the backend factory
//===//
//
// The backends themselves are in CudaDevice.cpp and HipDevice.cpp; their
// driver libraries are opened through DynamicLibrary.
//
//===----------------------------------------------------------------------===//
#include "argus/runtime/Device.h"
#include "Backends.h"
#include "argus/runtime/Error.h"

#include <cstring>

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
      auto lib = std::make_unique<DynamicLibrary>();
      std::string e;
      if (!lib->open(name, e)) {
        errors.push_back(e);
        continue;
      }
      try {
        return makeCudaDevice(std::move(lib), opts.deviceIndex);
      } catch (const RuntimeError &err) {
        errors.push_back(name + ": " + err.what());
      }
    }
  if (wantHip)
    for (const auto &name : opts.hipLibraries) {
      tried.push_back(name);
      auto lib = std::make_unique<DynamicLibrary>();
      std::string e;
      if (!lib->open(name, e)) {
        errors.push_back(e);
        continue;
      }
      try {
        return makeHipDevice(std::move(lib), opts.deviceIndex);
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
