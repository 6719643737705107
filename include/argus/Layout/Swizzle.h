//===- Swizzle.h - XOR swizzles and swizzled layouts -----------*- C++ -*-===//
//
// Part of Argus. Swizzle<B,M,S> (CuTe semantics):
//   y = x ^ shift(x & yyyMask, S)
// where the B "yyy" bits at [M + max(0,S), M + max(0,S) + B) are XOR'ed into
// the B "zzz" bits at [M - min(0,S), M - min(0,S) + B); shift is a right
// shift by S for S >= 0 and a left shift by -S otherwise. |S| >= B is
// required, which makes every swizzle an involution (its own inverse).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_SWIZZLE_H
#define ARGUS_LAYOUT_SWIZZLE_H

#include "argus/Layout/Layout.h"

#include <optional>

namespace argus::layout {

class Swizzle {
public:
  /// Validates B >= 0, M >= 0, |S| >= B and M + B + |S| <= 48.
  static llvm::Expected<Swizzle> get(int bits, int base, int shift);

  int bits() const { return b; }
  int base() const { return m; }
  int shift() const { return s; }
  /// Mask of the source ("yyy") bits.
  uint64_t yyyMask() const;
  /// Mask of the destination ("zzz") bits.
  uint64_t zzzMask() const;
  /// One past the highest bit the swizzle reads or writes: it permutes every
  /// aligned block of 2^topBit() offsets.
  int topBit() const { return m + b + (s < 0 ? -s : s); }
  int64_t operator()(int64_t x) const;
  /// "Sw<B,M,S>".
  std::string str() const;
  bool operator==(const Swizzle &o) const {
    return b == o.b && m == o.m && s == o.s;
  }
  bool operator!=(const Swizzle &o) const { return !(*this == o); }

private:
  Swizzle(int b, int m, int s) : b(b), m(m), s(s) {}
  int b = 0, m = 0, s = 0;
};

/// Sw o L: the swizzle (if any) applied after the layout.
class SwizzledLayout {
public:
  std::optional<Swizzle> swizzle;
  Layout layout;

  SwizzledLayout() = default;
  SwizzledLayout(Layout l) : layout(std::move(l)) {}
  SwizzledLayout(std::optional<Swizzle> sw, Layout l)
      : swizzle(sw), layout(std::move(l)) {}

  int64_t size() const { return layout.size(); }
  /// 1 + the largest value. Exact (enumeration) when size() <= 2^22;
  /// otherwise the layout's cosize rounded up to a multiple of
  /// 2^swizzle->topBit() (an upper bound).
  int64_t cosize() const;
  int64_t operator()(int64_t idx) const;
  int64_t operator()(const IntTuple &coord) const;
  /// Canonical form "Sw<B,M,S> o SHAPE:STRIDE" (just the layout when there
  /// is no swizzle).
  std::string str() const;
  bool operator==(const SwizzledLayout &o) const {
    return swizzle == o.swizzle && layout == o.layout;
  }
  bool operator!=(const SwizzledLayout &o) const { return !(*this == o); }
};

/// (Sw o L) o R = Sw o (L o R).
llvm::Expected<SwizzledLayout> composition(const SwizzledLayout &a,
                                           const Layout &r);

/// The inverse of a bijective swizzled layout: offset -> index, computed as
/// inverse(swizzle(offset)) (a swizzle is its own inverse).
struct SwizzledInverse {
  std::optional<Swizzle> swizzle;
  Layout inverse;
  int64_t size() const { return inverse.size(); }
  int64_t operator()(int64_t offset) const {
    return inverse(swizzle ? (*swizzle)(offset) : offset);
  }
  /// "(SHAPE:STRIDE) o Sw<B,M,S>".
  std::string str() const;
};

/// Requires the layout to be bijective onto [0, cosize) and the swizzle to
/// stay inside that range (cosize a multiple of 2^topBit()).
llvm::Expected<SwizzledInverse> inverse(const SwizzledLayout &l);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_SWIZZLE_H
