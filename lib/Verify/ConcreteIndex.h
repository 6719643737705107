//===- ConcreteIndex.h - concrete index arithmetic for replay ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The concrete counterparts of the symbolic index terms, used to replay a
// model (floor division and modulo as MLIR's affine expressions define them).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_CONCRETEINDEX_H
#define ARGUS_LIB_VERIFY_CONCRETEINDEX_H

#include "argus/Layout/Layout.h"

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace argus::verify::detail {

inline int64_t product(llvm::ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Column-major (first coordinate fastest), like the layout algebra.
inline std::vector<int64_t> delinConcrete(int64_t lin,
                                          llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> c;
  for (int64_t d : shape) {
    c.push_back(lin % d);
    lin /= d;
  }
  return c;
}

inline int64_t linConcrete(llvm::ArrayRef<int64_t> c,
                           llvm::ArrayRef<int64_t> shape) {
  int64_t lin = 0, mul = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    lin += c[k] * mul;
    mul *= shape[k];
  }
  return lin;
}

/// The first (thread, slot) of thread-value layout `tv` (modes thread x
/// slot) that holds linear tile coordinate `lin`, among the threads below
/// `threads`: the concrete inverse of an access or register layout.
inline std::optional<std::pair<int64_t, int64_t>>
holderOf(const ::argus::layout::Layout &tv, int64_t lin,
         int64_t threads = std::numeric_limits<int64_t>::max()) {
  int64_t lt = tv.mode(0).size();
  for (int64_t i = 0; i < tv.size(); ++i)
    if (i % lt < threads && tv(i) == lin)
      return std::make_pair(i % lt, i / lt);
  return std::nullopt;
}

/// The tile coordinate (in a tile of `shape`) that thread `thread` holds in
/// slot `slot` of thread-value layout `tv`: the inverse of holderOf.
inline std::vector<int64_t> tileCoordOf(const ::argus::layout::Layout &tv,
                                        int64_t thread, int64_t slot,
                                        llvm::ArrayRef<int64_t> shape) {
  return delinConcrete(tv(thread + tv.mode(0).size() * slot), shape);
}

inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
inline int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

/// An affine expression on concrete dimension and symbol values.
inline int64_t evalAffineConcrete(mlir::AffineExpr a,
                                  llvm::ArrayRef<int64_t> dims,
                                  llvm::ArrayRef<int64_t> syms) {
  if (auto d = llvm::dyn_cast<mlir::AffineDimExpr>(a))
    return dims[d.getPosition()];
  if (auto s = llvm::dyn_cast<mlir::AffineSymbolExpr>(a))
    return syms[s.getPosition()];
  if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(a))
    return c.getValue();
  auto b = llvm::cast<mlir::AffineBinaryOpExpr>(a);
  int64_t x = evalAffineConcrete(b.getLHS(), dims, syms),
          y = evalAffineConcrete(b.getRHS(), dims, syms);
  switch (a.getKind()) {
  case mlir::AffineExprKind::Add:
    return x + y;
  case mlir::AffineExprKind::Mul:
    return x * y;
  case mlir::AffineExprKind::FloorDiv:
    return floorDiv(x, y);
  case mlir::AffineExprKind::CeilDiv:
    return -floorDiv(-x, y);
  default:
    return floorMod(x, y);
  }
}

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_CONCRETEINDEX_H
