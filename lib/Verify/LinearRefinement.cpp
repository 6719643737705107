//===- LinearRefinement.cpp - products made linear where a model needs it -===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LinearRefinement.h"

namespace argus::verify::detail {

LinearRefinement::LinearRefinement(z3::context &ctx,
                                   const z3::expr_vector &abstraction,
                                   const z3::expr_vector &nonlinear,
                                   const z3::expr_vector &standIns)
    : ctx(ctx), abstraction(abstraction), standIns(standIns), terms(ctx) {
  for (unsigned i = 0; i < nonlinear.size(); ++i) {
    z3::expr e = nonlinear[i];
    z3::expr_vector args(ctx);
    for (unsigned j = 0; j < e.num_args(); ++j)
      args.push_back(e.arg(j).substitute(nonlinear, standIns));
    terms.push_back(e.decl()(args));
  }
}

std::optional<IntegerQuery>
LinearRefinement::linearized(const BitVectorValues &values,
                             const std::set<unsigned> &fixed) {
  z3::expr_vector all(ctx);
  for (unsigned i = 0; i < abstraction.size(); ++i)
    all.push_back(abstraction[i]);
  unsigned lemmas = 0;
  auto add = [&](const z3::expr &lemma) {
    all.push_back(lemma);
    ++lemmas;
  };
  for (unsigned i = 0; i < terms.size(); ++i) {
    z3::expr e = terms[i], p = standIns[i];
    z3::expr x = e.arg(0), y = e.arg(1);
    std::optional<z3::expr> cx = values.evaluate(x), cy = values.evaluate(y);
    switch (e.decl().decl_kind()) {
    case Z3_OP_BMUL:
      if (cy)
        add(z3::implies(y == *cy, p == x * *cy));
      if (cx)
        add(z3::implies(x == *cx, p == *cx * y));
      break;
    case Z3_OP_BUMUL_NO_OVFL:
      if (cy)
        add(z3::implies(y == *cy, p == z3::bvmul_no_overflow(x, *cy, false)));
      if (cx)
        add(z3::implies(x == *cx, p == z3::bvmul_no_overflow(*cx, y, false)));
      break;
    case Z3_OP_BUDIV:
      if (cy)
        add(z3::implies(y == *cy, p == z3::udiv(x, *cy)));
      break;
    case Z3_OP_BUREM:
      if (cy)
        add(z3::implies(y == *cy, p == z3::urem(x, *cy)));
      break;
    default:
      break;
    }
  }
  if (!lemmas)
    return std::nullopt;
  for (unsigned id : fixed)
    if (auto vv = values.entry(id))
      all.push_back(vv->first == vv->second);
  return toLinearIntegers(ctx, all);
}

} // namespace argus::verify::detail
