//===- WrittenArguments.h - tensor arguments a kernel may store into -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Which memref arguments of an argus kernel the kernel may write: those that
// reach, through the ops that view memory (views, gathers, tags, transposes,
// tensor maps, loop-carried values), an operand with a MemWrite effect. The
// answer over-approximates: an op that uses a view and whose effects are
// unknown counts as a writer. The launch ABI records it per buffer, so a host
// copies back exactly what may have changed.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_ANALYSIS_WRITTENARGUMENTS_H
#define ARGUS_ANALYSIS_WRITTENARGUMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::argus {

/// Bit i is set when argument i of `kernel` is a memref the kernel may write.
llvm::BitVector writtenArguments(func::FuncOp kernel);

/// The first op of `kernel` (in the walk's order) that may write memory
/// argument `argNumber` through an alias of it; null when none may.
Operation *firstWriterOf(func::FuncOp kernel, unsigned argNumber);

} // namespace mlir::argus

#endif // ARGUS_ANALYSIS_WRITTENARGUMENTS_H
