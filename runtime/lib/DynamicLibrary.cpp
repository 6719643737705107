//===- DynamicLibrary.cpp - dlopen/dlsym wrapper --------------------------===//
#include "DynamicLibrary.h"

#include <dlfcn.h>

namespace argus {
namespace rt {

DynamicLibrary::~DynamicLibrary() {
  if (h_)
    dlclose(h_);
}

bool DynamicLibrary::open(const std::string &name, std::string &err) {
  h_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h_) {
    const char *e = dlerror();
    err = e ? e : (name + ": dlopen failed");
  }
  return h_ != nullptr;
}

void *DynamicLibrary::sym(const char *n) const {
  return h_ ? dlsym(h_, n) : nullptr;
}

} // namespace rt
} // namespace argus
