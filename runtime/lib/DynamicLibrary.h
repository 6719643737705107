//===- DynamicLibrary.h - dlopen/dlsym wrapper for the driver backends ----===//
//
// Private to the runtime: the backends resolve their driver entry points
// through this so nothing links against libcuda or libamdhip64.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_RUNTIME_LIB_DYNAMICLIBRARY_H
#define ARGUS_RUNTIME_LIB_DYNAMICLIBRARY_H

#include "argus/runtime/Error.h"

#include <initializer_list>
#include <string>

namespace argus {
namespace rt {

/// RAII wrapper over dlopen.
class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;
  ~DynamicLibrary();
  /// dlopen(RTLD_NOW | RTLD_LOCAL); on failure `err` gets dlerror().
  bool open(const std::string &name, std::string &err);
  /// The symbol's address, or nullptr when absent (or nothing is open).
  void *sym(const char *n) const;

private:
  void *h_ = nullptr;
};

/// The first of `names` the library exports (drivers renamed some entry
/// points, e.g. the _v2 variants); RuntimeError(NoDriver) when none is.
template <typename F>
F loadSym(const DynamicLibrary &lib, std::initializer_list<const char *> names,
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
template <typename F>
F loadOptionalSym(const DynamicLibrary &lib, const char *name) {
  return reinterpret_cast<F>(lib.sym(name));
}

} // namespace rt
} // namespace argus

#endif // ARGUS_RUNTIME_LIB_DYNAMICLIBRARY_H
