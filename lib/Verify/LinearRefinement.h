//===- LinearRefinement.h - products made linear where a model needs it -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The integer stage decides the query's abstraction: its products and
// quotients of two symbolic values are free variables (stand-ins). A model
// of the abstraction is the query's only when each stand-in equals its
// term on the model's inputs; when one does not, lifting it to the query
// needed a bit-blasted search with multiplier circuits (the model's
// multiplier inputs fixed: 25-80 ms a witness on the attention kernels).
// The same search in integers: for a product x * y whose stand-in p the
// model gets wrong, the lemmas `x = c -> p = c * y` and `y = d -> p = x * d`
// (c and d the model's values of x and y; for a quotient or remainder, the
// divisor's value) are valid and linear, so the abstraction with them still
// translates exactly; with the multiplier inputs also fixed to the model's
// values they determine every stand-in, so that query has the models of the
// bit-blasted search (a few milliseconds of the integer solver when it has
// one; its unsat answers are slower).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_LINEARREFINEMENT_H
#define ARGUS_LIB_VERIFY_LINEARREFINEMENT_H

#include "IntegerTranslation.h"

#include <optional>
#include <set>

namespace argus::verify::detail {

class LinearRefinement {
public:
  /// `nonlinear[i]` (a term of the query) is `standIns[i]` in
  /// `abstraction`.
  LinearRefinement(z3::context &ctx, const z3::expr_vector &abstraction,
                   const z3::expr_vector &nonlinear,
                   const z3::expr_vector &standIns);

  /// The abstraction with the lemmas for every product and quotient at the
  /// values `values` gives its inputs, and the variables `fixed` (ids: the
  /// multiplier inputs, covering a factor or the divisor of each) equal to
  /// their values, as integers; nullopt when no lemma applies or they do
  /// not translate.
  std::optional<IntegerQuery> linearized(const BitVectorValues &values,
                                         const std::set<unsigned> &fixed);

private:
  z3::context &ctx;
  z3::expr_vector abstraction, standIns;
  /// Each nonlinear term in the abstraction's vocabulary: its operands with
  /// nested products and quotients replaced by their stand-ins.
  z3::expr_vector terms;
};

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_LINEARREFINEMENT_H
