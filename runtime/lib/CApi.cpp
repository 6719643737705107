//===- CApi.cpp - The runtime as a C library ------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// argus_rt_run is runSpec behind a C ABI: it parses the spec like argus-run,
// puts the in-memory module and buffers into it, and turns every error into
// the same JSON object argus-run --batch writes. No C++ exception crosses
// the boundary.
//
//===----------------------------------------------------------------------===//
#include "argus/runtime/CApi.h"
#include "argus/runtime/Device.h"
#include "argus/runtime/Error.h"
#include "argus/runtime/HostData.h"
#include "argus/runtime/Json.h"
#include "argus/runtime/Runner.h"
#include "argus/runtime/Spec.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

using namespace argus::rt;

namespace {

char *copyOut(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p)
    std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

/// The device of the last call, reused while the options stay the same
/// (opening a CUDA context costs a few hundred milliseconds).
struct DeviceCache {
  std::mutex lock;
  std::string key;
  std::unique_ptr<Device> dev;
};

DeviceCache &deviceCache() {
  static DeviceCache cache;
  return cache;
}

std::string argPath(int i, const char *field) {
  return "$.args[" + std::to_string(i) + "]" + field;
}

/// Puts the caller's buffers into the spec: "init" becomes "host".
void bindBuffers(LaunchSpec &spec, const argus_rt_buffer *bufs, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    const argus_rt_buffer &b = bufs[k];
    if (b.arg < 0 || static_cast<size_t>(b.arg) >= spec.args.size() ||
        !spec.args[b.arg].isBuffer)
      throw RuntimeError(ErrorKind::Spec,
                         "in-memory buffer " + std::to_string(k) +
                             " names argument " + std::to_string(b.arg) +
                             ", which is not a buffer argument of the spec");
    ArgSpec &a = spec.args[b.arg];
    size_t bytes = a.elements * dtypeSize(a.dtype);
    if (b.in) {
      if (b.in_bytes != bytes)
        throw specPathError(ErrorKind::Spec,
                            "in-memory data for '" + a.name + "' has " +
                                std::to_string(b.in_bytes) + " bytes, the " +
                                "buffer has " + std::to_string(bytes),
                            argPath(b.arg, ".init"));
      const auto *p = static_cast<const uint8_t *>(b.in);
      a.hostInit.assign(p, p + bytes);
      a.init = "host";
    }
    if (b.out && (a.role == "input" || b.out_bytes != bytes))
      throw specPathError(
          ErrorKind::Spec,
          a.role == "input"
              ? "'" + a.name + "' is an input: nothing is copied back"
              : "output space for '" + a.name + "' has " +
                    std::to_string(b.out_bytes) + " bytes, the buffer has " +
                    std::to_string(bytes),
          argPath(b.arg, ".role"));
  }
}

int run(const char *specJson, const void *module, size_t moduleBytes,
        const argus_rt_buffer *bufs, size_t n, const char *cudaLib,
        const char *hipLib, Json &result) {
  if (!specJson || (!module && moduleBytes))
    throw RuntimeError(ErrorKind::Spec, "argus_rt_run: no spec or no module");
  Json j;
  try {
    j = parseJson(specJson);
  } catch (const JsonParseError &e) {
    throw specPathError(ErrorKind::Spec, std::string("the spec: ") + e.what(),
                        "$");
  }
  LaunchSpec spec = parseLaunchSpec(j, "", "<memory>");
  if (module)
    spec.moduleImage.assign(static_cast<const char *>(module), moduleBytes);
  bindBuffers(spec, bufs, n);

  DeviceOptions o;
  if (cudaLib)
    o.cudaLibraries = {cudaLib};
  if (hipLib)
    o.hipLibraries = {hipLib};
  o.deviceIndex = spec.device;
  o.backend = spec.backend;
  std::string key = o.backend + "#" + std::to_string(o.deviceIndex) + "#" +
                    (cudaLib ? cudaLib : "") + "#" + (hipLib ? hipLib : "");
  DeviceCache &cache = deviceCache();
  std::lock_guard<std::mutex> guard(cache.lock);
  if (!cache.dev || cache.key != key) {
    cache.dev.reset();
    cache.dev = openDevice(o);
    cache.key = key;
  }
  RunOptions ro;
  ro.buildTrace = false;
  RunResult r = runSpec(*cache.dev, spec, ro);
  for (size_t k = 0; k < n; ++k)
    if (bufs[k].out)
      std::memcpy(bufs[k].out, r.outputs[bufs[k].arg].data(),
                  bufs[k].out_bytes);
  result = std::move(r.report);
  return r.checked && !r.checkPassed ? 6 : 0;
}

} // namespace

extern "C" int argus_rt_abi_version(void) { return ARGUS_RT_ABI_VERSION; }

extern "C" int argus_rt_run(const char *specJson, const void *module,
                            size_t moduleBytes, const argus_rt_buffer *bufs,
                            size_t n, const char *cudaLib, const char *hipLib,
                            char **reportJson) {
  Json result;
  int code;
  try {
    code = run(specJson, module, moduleBytes, bufs, n, cudaLib, hipLib, result);
  } catch (const RuntimeError &e) {
    result = errorJson(e);
    code = static_cast<int>(e.kind);
  } catch (const std::exception &e) {
    result = errorJson(RuntimeError(ErrorKind::Runtime, e.what()));
    code = 1;
  }
  if (reportJson)
    *reportJson = copyOut(dumpJson(result));
  return code;
}

extern "C" void argus_rt_free(char *p) { std::free(p); }
