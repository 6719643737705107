//===- PredicateEvaluator.h - tag predicates, symbolic and concrete -*- C++
//-*-//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A parsed `argus.tag_assert` predicate evaluated on tag terms (signed,
// floor division), and on concrete tag values to replay a counterexample.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_PREDICATEEVALUATOR_H
#define ARGUS_LIB_VERIFY_PREDICATEEVALUATOR_H

#include "Query.h"

#include "argus/Dialect/TagPredicate.h"

namespace argus::verify::detail {

struct PredicateEvaluator {
  z3::context &ctx;
  /// Operand name -> its tags.
  const std::map<std::string, Tags> *ops;

  /// The predicate as a boolean term (sub-terms as bit-vectors).
  z3::expr eval(const mlir::argus::TagExpr &e);

  /// Concrete value (booleans as 0/1); nullopt on division by zero or a
  /// missing field.
  static std::optional<int64_t>
  concrete(const mlir::argus::TagExpr &e,
           const std::map<std::string, std::map<std::string, int64_t>> &v);

private:
  z3::expr bv(int64_t v) { return ctx.bv_val(v, kWidth); }
  z3::expr ref(const mlir::argus::TagExpr &e);
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_PREDICATEEVALUATOR_H
