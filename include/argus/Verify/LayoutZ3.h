//===- LayoutZ3.h - Layouts as Z3 bit-vector terms -------------*- C++ -*-===//
//
// Part of Argus. Emits layout-algebra functions as Z3 bit-vector terms of a
// symbolic input, so the verifier reasons about all threads at once.
//
// Conventions: all terms are unsigned bit-vectors of the input's width.
// Shape:stride layouts with negative strides are computed modulo 2^width
// (two's complement). Use safeWidth() to pick a width in which no
// intermediate value wraps. No function throws: Z3 exceptions are caught and
// returned as llvm::Error.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_VERIFY_LAYOUTZ3_H
#define ARGUS_VERIFY_LAYOUTZ3_H

#include "argus/Layout/LinearLayout.h"
#include "argus/Layout/Swizzle.h"

#include "llvm/Support/Error.h"

#include <z3++.h>

namespace argus::layout::z3enc {

/// Smallest width at which encode() of the layout is exact for every input
/// in [0, size): enough bits for max(size, cosize) (plus a sign bit with
/// negative strides).
unsigned minWidth(const Layout &l);
unsigned minWidth(const SwizzledLayout &l);
unsigned minWidth(const LinearLayout &l);
/// minWidth + 2 bits of headroom (room to add offsets, compare, detect
/// overflow), at least 8.
unsigned safeWidth(const Layout &l);
unsigned safeWidth(const SwizzledLayout &l);
unsigned safeWidth(const LinearLayout &l);

/// L(idx) for a 1-D (colexicographic) index bit-vector. Fails when idx is not
/// a bit-vector or narrower than minWidth(l).
llvm::Expected<z3::expr> encode(const Layout &l, const z3::expr &idx);
/// L(c_0, .., c_{r-1}) with one 1-D coordinate per top-level mode (each
/// split colexicographically inside its mode). All of one width.
llvm::Expected<z3::expr> encodeCoords(const Layout &l,
                                      llvm::ArrayRef<z3::expr> modeCoords);
/// Sw(x).
llvm::Expected<z3::expr> encode(const Swizzle &sw, const z3::expr &x);
/// Sw(L(idx)).
llvm::Expected<z3::expr> encode(const SwizzledLayout &l, const z3::expr &idx);
llvm::Expected<z3::expr> encodeCoords(const SwizzledLayout &l,
                                      llvm::ArrayRef<z3::expr> modeCoords);
/// Flattened linear layout: input bits of idx (first input dimension in the
/// lowest bits) to flattened output bits.
llvm::Expected<z3::expr> encode(const LinearLayout &l, const z3::expr &idx);
/// Per-dimension form: one input term per input dimension, one output term
/// per output dimension (all of the width of the first input).
llvm::Expected<std::vector<z3::expr>>
encodeDims(const LinearLayout &l, llvm::ArrayRef<z3::expr> inputs);

/// 0 <= x < size for an unsigned bit-vector x (true when size >= 2^width).
z3::expr inRange(const z3::expr &x, int64_t size);

} // namespace argus::layout::z3enc

#endif // ARGUS_VERIFY_LAYOUTZ3_H
