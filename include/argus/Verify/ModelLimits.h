//===- ModelLimits.h - the ranges the verifier's model covers ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The verifier reasons about bounded bit-vectors: a kernel argument, a grid
// size or a tensor size outside these ranges is outside every proof. They
// are preconditions of the proof like `argus.assume`, so the launch ABI
// carries them (`"limits"`) and every launcher (the DSL's kernel[grid],
// argus.aot, argus-run and the runtime C API) refuses a launch outside them.
// Header-only: the lowering records them without linking the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_MODELLIMITS_H
#define ARGUS_VERIFY_MODELLIMITS_H

#include <cstdint>

namespace argus::verify {

/// Integer (index) kernel arguments: [kScalarMin, kScalarBound).
inline constexpr int64_t kScalarMin = 1;
inline constexpr int64_t kScalarBound = int64_t(1) << 16;
/// Grid sizes (blocks per dimension): [1, kGridBound); block ids below them.
inline constexpr int64_t kGridBound = int64_t(1) << 16;
/// Dynamic sizes of tensor arguments: [1, kSizeBound).
inline constexpr int64_t kSizeBound = int64_t(1) << 23;
/// Values a kernel loads from a tensor at its top level (routing tables,
/// group offsets): [0, kScalarBound).
inline constexpr int64_t kLoadedBound = kScalarBound;

} // namespace argus::verify

#endif // ARGUS_VERIFY_MODELLIMITS_H
