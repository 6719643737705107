//===- Passes.h - argus analysis test passes --------------------*- C++ -*-===//

#ifndef ARGUS_ANALYSIS_PASSES_H
#define ARGUS_ANALYSIS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::argus {

#define GEN_PASS_DECL
#include "argus/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "argus/Analysis/Passes.h.inc"

} // namespace mlir::argus

#endif // ARGUS_ANALYSIS_PASSES_H
