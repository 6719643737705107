//===- Layout.h - CuTe-style hierarchical shape:stride layouts --*- C++ -*-===//
//
// Part of Argus. Plain C++ (LLVM Support only): no MLIR, no Z3, no exceptions.
//
// A Layout is a pair of congruent IntTuples (shape, stride). It maps a 1-D
// index, or a hierarchical coordinate, to an integer offset. Coordinates are
// split colexicographically (the leftmost mode varies fastest), as in CuTe.
//
// Every algebra operation that can fail (divisibility conditions, injectivity
// requirements) returns llvm::Expected and names the failed condition; no
// operation ever returns a wrong layout.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_LAYOUT_H
#define ARGUS_LAYOUT_LAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace argus::layout {

/// An integer or a (possibly empty) tuple of IntTuples.
class IntTuple {
public:
  /// The integer 0.
  IntTuple() = default;
  IntTuple(int64_t v) : isLeaf(true), val(v) {}
  /// A tuple (use IntTuple::tuple to avoid brace-initialisation ambiguity).
  static IntTuple tuple(std::vector<IntTuple> elems);

  bool isInt() const { return isLeaf; }
  bool isTuple() const { return !isLeaf; }
  /// The integer value; only valid when isInt().
  int64_t value() const { return val; }
  /// Tuple elements; empty for an integer.
  const std::vector<IntTuple> &elements() const { return elems; }
  /// Number of top-level modes: 1 for an integer, the tuple length otherwise.
  size_t rank() const { return isLeaf ? 1 : elems.size(); }
  /// Mode i: the integer itself when isInt() and i == 0.
  const IntTuple &operator[](size_t i) const;
  /// Nesting depth: 0 for an integer, 1 + max depth of elements otherwise.
  int depth() const;
  /// Product of all leaves (1 for an empty tuple); saturates at INT64_MAX.
  int64_t product() const;
  /// The leaves in order (depth-first, left to right).
  std::vector<int64_t> flatten() const;
  void flattenInto(std::vector<int64_t> &out) const;
  /// True when both have the same tree structure.
  bool congruent(const IntTuple &other) const;
  /// CuTe notation: 4, (4,(2,8)).
  std::string str() const;

  bool operator==(const IntTuple &o) const;
  bool operator!=(const IntTuple &o) const { return !(*this == o); }

private:
  bool isLeaf = true;
  int64_t val = 0;
  std::vector<IntTuple> elems;
};

/// A hierarchical shape:stride layout.
class Layout {
public:
  /// The trivial layout 1:0.
  Layout() : shp(1), strd(0) {}
  /// Shape and stride must be congruent (asserted); shapes must be >= 1.
  Layout(IntTuple shape, IntTuple stride);
  /// Compact column-major (colexicographic) layout of `shape`.
  static Layout compact(const IntTuple &shape);
  /// Compact row-major (lexicographic) layout of `shape`.
  static Layout compactRowMajor(const IntTuple &shape);
  /// make_layout(L0, L1, ...): the tuple of the given layouts as modes.
  static Layout concat(std::vector<Layout> modes);

  const IntTuple &shape() const { return shp; }
  const IntTuple &stride() const { return strd; }
  size_t rank() const { return shp.rank(); }
  int depth() const { return shp.depth(); }
  /// Top-level mode i as a layout (the layout itself for i == 0 of rank-1
  /// integer layouts).
  Layout mode(size_t i) const { return Layout(shp[i], strd[i]); }
  /// The top-level modes.
  std::vector<Layout> modes() const;
  /// Flattened (shape, stride) leaf pairs.
  std::vector<std::pair<int64_t, int64_t>> flatModes() const;

  /// Number of points in the domain: product of the shape.
  int64_t size() const { return shp.product(); }
  /// 1 + the largest value (1 + sum (s-1)*max(d,0)).
  int64_t cosize() const;
  /// Value at the 1-D (colexicographic) index idx, 0 <= idx < size().
  int64_t operator()(int64_t idx) const;
  /// Value at a hierarchical coordinate. The coordinate may be weakly
  /// congruent: an integer where the shape has a tuple is split
  /// colexicographically over that sub-shape.
  int64_t operator()(const IntTuple &coord) const;
  /// The value at every 1-D index 0 .. size() - 1, in that order: the
  /// function as a table, computed incrementally (an odometer over the flat
  /// modes) instead of size() evaluations. For domains small enough to hold.
  std::vector<int64_t> values() const;

  /// CuTe notation SHAPE:STRIDE, e.g. (4,(2,8)):(2,(1,8)).
  std::string str() const;
  bool operator==(const Layout &o) const {
    return shp == o.shp && strd == o.strd;
  }
  bool operator!=(const Layout &o) const { return !(*this == o); }

private:
  IntTuple shp, strd;
};

/// A tiler: one layout per mode (CuTe's tuple-of-layouts tiler).
using Tiler = std::vector<Layout>;

/// Largest size/cosize the algebra accepts (keeps every product in int64).
constexpr int64_t kMaxExtent = int64_t(1) << 48;

//===-------------------------- predicates ------------------------------===//

/// True when no two domain points map to the same value. Exact for
/// size() <= 2^22 (enumeration); above that, a sufficient condition is used
/// (sorted strides each divisible by the previous extent) and false may be a
/// false negative.
bool isInjective(const Layout &l);
/// True when the image is all of [0, cosize()). Exact for cosize() <= 2^24;
/// above that a sufficient condition is used.
bool isSurjective(const Layout &l);
/// Injective and surjective onto [0, cosize()).
bool isBijective(const Layout &l);

//===-------------------------- operations ------------------------------===//

/// Flatten, drop size-1 modes and merge contiguous modes; preserves the
/// function on [0, size). Result has depth <= 1 (an integer layout when a
/// single mode remains, 1:0 when none).
Layout coalesce(const Layout &l);
/// Coalesce each top-level mode separately (keeps the rank).
Layout coalesceModes(const Layout &l);
/// Remove stride-0 and size-1 modes, then coalesce.
Layout filter(const Layout &l);

/// R(c) = A(B(c)), with R congruent to B. Fails when a stride of B does not
/// divide (or is not divisible by) a shape of A, or a shape of B is not
/// compatible with A's shapes.
llvm::Expected<Layout> composition(const Layout &a, const Layout &b);
/// Composition by mode: mode i of A composed with tiler[i]; modes of A beyond
/// the tiler are kept.
llvm::Expected<Layout> composition(const Layout &a, const Tiler &tiler);

/// The layout ordered by stride that fills the holes of L up to cosizeHi.
/// Fails when L is not injective in the required (sorted, divisible) sense.
llvm::Expected<Layout> complement(const Layout &l, int64_t cosizeHi);
/// complement(L, cosize(L)).
llvm::Expected<Layout> complement(const Layout &l);

/// composition(A, (B, complement(B, size(A)))): rank-2 (tile, rest).
llvm::Expected<Layout> logicalDivide(const Layout &a, const Layout &b);
/// By mode: mode i -> (tile_i, rest_i).
llvm::Expected<Layout> logicalDivide(const Layout &a, const Tiler &t);
/// ((tile_0,..), (rest_0,.., extra modes of A)).
llvm::Expected<Layout> zippedDivide(const Layout &a, const Tiler &t);
/// ((tile_0,..), rest_0, .., extra modes of A).
llvm::Expected<Layout> tiledDivide(const Layout &a, const Tiler &t);
/// (tile_0, .., rest_0, .., extra modes of A).
llvm::Expected<Layout> flatDivide(const Layout &a, const Tiler &t);
/// Layout-tiler versions: zipped = tiled = logical_divide; flat splices the
/// tile's and rest's top-level modes.
llvm::Expected<Layout> zippedDivide(const Layout &a, const Layout &b);
llvm::Expected<Layout> tiledDivide(const Layout &a, const Layout &b);
llvm::Expected<Layout> flatDivide(const Layout &a, const Layout &b);

/// (A, complement(A, size(A)*cosize(B)) o B).
llvm::Expected<Layout> logicalProduct(const Layout &a, const Layout &b);
/// By mode: mode i -> logical_product(A_i, T_i).
llvm::Expected<Layout> logicalProduct(const Layout &a, const Tiler &t);
/// Mode i -> (A_i, (C o B)_i) (A repeated in blocks).
llvm::Expected<Layout> blockedProduct(const Layout &a, const Layout &b);
/// Mode i -> ((C o B)_i, A_i) (A interleaved / raked).
llvm::Expected<Layout> rakedProduct(const Layout &a, const Layout &b);
/// ((A-part_0, ..), (T-part_0, ..)); with a Layout: logical_product.
llvm::Expected<Layout> zippedProduct(const Layout &a, const Tiler &t);
llvm::Expected<Layout> zippedProduct(const Layout &a, const Layout &b);
/// ((A-part_0, ..), T-part_0, ..); with a Layout: logical_product.
llvm::Expected<Layout> tiledProduct(const Layout &a, const Tiler &t);
llvm::Expected<Layout> tiledProduct(const Layout &a, const Layout &b);

/// R with L(R(i)) == i for i in [0, size(R)) (the largest such contiguous
/// prefix; 1:0 when only 0 is reachable). Fails on negative strides.
llvm::Expected<Layout> rightInverse(const Layout &l);
/// R with R(L(i)) == i for all i in [0, size(L)). Requires L injective with
/// a complement.
llvm::Expected<Layout> leftInverse(const Layout &l);
/// Reshape: composition(L, compact(shape)); the shape's size must equal
/// size(L).
llvm::Expected<Layout> withShape(const Layout &l, const IntTuple &shape);

} // namespace argus::layout

#endif // ARGUS_LAYOUT_LAYOUT_H
