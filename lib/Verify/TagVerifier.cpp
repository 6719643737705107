//===- TagVerifier.cpp - the entry point: verify every kernel -------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The verifier itself is lib/Verify/KernelVerifier.h (one file per concept,
// listed there); diagnostics are in Diagnostics.cpp, the report in
// Report.cpp.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/TagVerifier.h"
#include "KernelVerifier.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify {

std::vector<KernelReport> verifyModule(ModuleOp module,
                                       const VerifyOptions &options) {
  std::vector<KernelReport> out;
  module.walk([&](func::FuncOp f) {
    auto k = f->getAttrOfType<KernelAttr>("argus.kernel");
    if (!k)
      return;
    out.push_back(verifyKernel(f, k, options));
  });
  return out;
}

} // namespace argus::verify
