//===- SymbolicTerms.h - index, affine and layout terms in Z3 ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the bit-vector terms of one query: fresh and range-bounded
// variables, division by constants, (de)linearisation, affine expressions
// and layouts applied to symbolic coordinates. Every step that the solver
// could get wrong (a layout encoding, a division) records a concrete `Fact`
// for the counterexample replay. Knows nothing about ops.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_SYMBOLICTERMS_H
#define ARGUS_LIB_VERIFY_SYMBOLICTERMS_H

#include "Query.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Layout/Layout.h"
#include "argus/Layout/Swizzle.h"

#include "mlir/IR/AffineExpr.h"

namespace argus::verify::detail {

/// Floor division of signed terms (MLIR's floordiv).
z3::expr floorDivTerm(const z3::expr &l, const z3::expr &r);

/// The (thread, slot) -> coordinate layout of a register tile.
::argus::layout::Layout registerLayout(mlir::argus::TileType ty);
/// The coordinate -> offset layout of a memory tile (row-major by default).
::argus::layout::SwizzledLayout memoryLayout(mlir::argus::TileType ty);

class SymbolicTerms {
protected:
  z3::context ctx;
  /// The query under construction; terms add their side conditions to it.
  Query *q = nullptr;
  unsigned fresh = 0;

  z3::expr bv(int64_t v) { return ctx.bv_val(static_cast<int64_t>(v), kWidth); }
  z3::expr var(const std::string &name) {
    return ctx.bv_const((name + "!" + std::to_string(fresh++)).c_str(), kWidth);
  }
  z3::expr rangeVar(const std::string &name, int64_t size) {
    z3::expr v = var(name);
    q->cons.push_back(z3::ult(v, bv(size)));
    return v;
  }
  std::vector<z3::expr> coordVars(const std::string &name,
                                  llvm::ArrayRef<int64_t> shape) {
    std::vector<z3::expr> c;
    for (size_t k = 0; k < shape.size(); ++k)
      c.push_back(rangeVar(name + std::to_string(k), shape[k]));
    return c;
  }
  void assume(const z3::expr &guard, const z3::expr &cond) {
    q->cons.push_back(z3::implies(guard, cond));
  }
  /// Assume `cond` where `guard` holds, as an obligation of `op` that the
  /// verifier then checks (never silently assumed).
  void oblige(const z3::expr &guard, const z3::expr &cond, mlir::Operation *op,
              const std::string &what) {
    q->obligations.push_back({guard, cond, op, what});
  }
  static int64_t uval(const z3::model &m, const z3::expr &e);
  static int64_t sval(const z3::model &m, const z3::expr &e);

  /// a * b and a + b with the constants 1 and 0 folded (for the lemmas'
  /// syntactic matching, as tripCount).
  z3::expr times(const z3::expr &a, const z3::expr &b);
  z3::expr plus(const z3::expr &a, const z3::expr &b);
  /// The iterations of a loop from `lb` to `ub` by `step` (0 when ub <= lb),
  /// folded where the bounds allow: no case split from 0 and no division
  /// by a constant step of 1. The solver folds them too, but the lemmas
  /// (ArithmeticLemmas.cpp) match terms syntactically: a trip count of
  /// `K / 64` tiles stays `K / 64`.
  z3::expr tripCount(const z3::expr &lb, const z3::expr &ub,
                     const z3::expr &step);
  /// x udiv c and x urem c for a constant c > 0.
  std::pair<z3::expr, z3::expr> divmod(const z3::expr &x, int64_t c);
  std::vector<z3::expr> delin(const z3::expr &lin,
                              llvm::ArrayRef<int64_t> shape);
  z3::expr lin(const std::vector<z3::expr> &c, llvm::ArrayRef<int64_t> shape);
  z3::expr evalAffine(mlir::AffineExpr e, const std::vector<z3::expr> &dims,
                      const std::vector<z3::expr> &syms);
  /// evalAffine, with a fact that re-evaluates `e` concretely on the model
  /// (`what` names the value in a disagreement).
  z3::expr evalAffineReplayed(mlir::AffineExpr e,
                              const std::vector<z3::expr> &dims,
                              const std::vector<z3::expr> &syms,
                              const z3::expr &guard, const std::string &what);
  /// The linear coordinate layout `l` maps (thread t, slot v) to.
  z3::expr tvLin(const ::argus::layout::Layout &l, const z3::expr &t,
                 const z3::expr &v, const z3::expr &guard);
  /// The offset of tile coordinate `c` under the memory layout `l`.
  z3::expr memOffset(const ::argus::layout::SwizzledLayout &l,
                     llvm::ArrayRef<int64_t> shape,
                     const std::vector<z3::expr> &c, const z3::expr &guard);
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_SYMBOLICTERMS_H
