//===- Passes.h - tag verifier passes ---------------------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_PASSES_H
#define ARGUS_VERIFY_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir::argus {

#define GEN_PASS_DECL
#include "ArgusVerifyPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "ArgusVerifyPasses.h.inc"

} // namespace mlir::argus

#endif // ARGUS_VERIFY_PASSES_H
