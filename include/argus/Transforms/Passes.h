//===- Passes.h - argus transformations around the lowering -----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The passes that are not the dialect conversion: the probe plan before it
// (argus-insert-probes) and the by-value tensor-map parameters after
// upstream's GPU-to-NVVM conversion (argus-tensor-map-params).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TRANSFORMS_PASSES_H
#define ARGUS_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::argus {

#define GEN_PASS_DECL
#include "argus/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "argus/Transforms/Passes.h.inc"

} // namespace mlir::argus

#endif // ARGUS_TRANSFORMS_PASSES_H
