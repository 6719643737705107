//===- Targets.h - the chips argus kernels target ---------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// One list of the chips a kernel may target (#argus.kernel<target = ...>),
// that the lowering accepts as a target override and that the Python DSL
// accepts in kernel.compile(target=...).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_TARGETS_H
#define ARGUS_DIALECT_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::argus {

/// The known chips, in the order diagnostics list them.
llvm::ArrayRef<llvm::StringRef> getKernelTargets();

/// Whether `chip` is one of getKernelTargets().
bool isKernelTarget(llvm::StringRef chip);

/// The known chips as a quoted, comma-separated list for diagnostics:
/// "\"gfx942\", \"sm_90\" or \"sm_90a\"".
std::string formatKernelTargets();

} // namespace mlir::argus

#endif // ARGUS_DIALECT_TARGETS_H
