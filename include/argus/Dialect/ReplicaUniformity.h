//===- ReplicaUniformity.h - equal values in every replica ------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A register layout may hold one element in several threads (row statistics
// replicated over a quad). Whether those replicas hold *equal* values
// depends on how the tile was computed: a reduction's all-reduce leaves
// bitwise equal copies, an mma whose accumulator layout replicates holds
// different partial sums. Storing a replica-uniform tile writes each
// element once (from its first holder, argus/Layout/Replication.h); any
// other replicated tile writes from every holder, which the verifier
// reports as a write collision. The lowering and the verifier share this
// analysis.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_REPLICAUNIFORMITY_H
#define ARGUS_DIALECT_REPLICAUNIFORMITY_H

#include "mlir/IR/Value.h"

namespace mlir::argus {

/// Whether every (thread, slot) holding one element of register tile `v`
/// holds the same value: `v` is built from fills, splats, iotas,
/// reductions and loads by elementwise ops, layout conversions and
/// broadcasts, through loop-carried values and scf.if results whose every
/// source is such. Conservative: false for mma results and anything else.
bool isReplicaUniform(Value v);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_REPLICAUNIFORMITY_H
