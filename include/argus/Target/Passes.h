//===- Passes.h - serialising lowered gpu.modules ---------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TARGET_PASSES_H
#define ARGUS_TARGET_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::argus {

#define GEN_PASS_DECL
#include "argus/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "argus/Target/Passes.h.inc"

} // namespace mlir::argus

#endif // ARGUS_TARGET_PASSES_H
