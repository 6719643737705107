//===- LinearRefinementTests.cpp - products made linear at fixed inputs ---===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// LinearRefinement::linearized must give, with the multiplier inputs fixed
// to their values, exactly the bit-vector query's answer at those inputs:
// for every fixed operand value and every target over a whole 4-bit
// domain, the abstraction (a stand-in for the product, quotient or
// remainder) with the linear lemmas is satisfiable exactly when the query
// with the operand fixed is, and its models give the stand-in the term's
// value (wrap-around and division by zero included).
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "LinearRefinement.h"

#include <functional>

using namespace argus::verify::detail;

namespace {

constexpr unsigned kWidth = 4;

z3::check_result integerAnswer(const IntegerQuery &iq,
                               std::optional<z3::model> &m) {
  z3::context &c = iq.assertions.ctx();
  z3::solver s = (z3::tactic(c, "simplify") & z3::tactic(c, "solve-eqs") &
                  z3::tactic(c, "lia"))
                     .mk_solver();
  for (unsigned i = 0; i < iq.assertions.size(); ++i)
    s.add(iq.assertions[i]);
  z3::check_result r = s.check();
  if (r == z3::sat)
    m = s.get_model();
  return r;
}

/// For `op` (x OP y) with operand `fixedIsY` (else x) fixed to each value
/// and each target t: the linearized abstraction `p == t` against the
/// bit-vector query `x OP y == t` with the operand fixed.
void checkOperator(
    const std::function<z3::expr(const z3::expr &, const z3::expr &)> &op,
    bool fixedIsY) {
  z3::context c;
  z3::expr x = c.bv_const("x", kWidth), y = c.bv_const("y", kWidth);
  z3::expr p = c.bv_const("p", kWidth);
  z3::expr term = op(x, y);
  z3::expr_vector nonlinear(c), standIns(c);
  nonlinear.push_back(term);
  standIns.push_back(p);
  const z3::expr &f = fixedIsY ? y : x;
  for (unsigned v = 0; v < (1u << kWidth); ++v)
    for (unsigned t = 0; t < (1u << kWidth); ++t) {
      z3::expr_vector abstraction(c);
      abstraction.push_back(p == c.bv_val(t, kWidth));
      BitVectorValues values;
      values.set(f, c.bv_val(v, kWidth));
      LinearRefinement refinement(c, abstraction, nonlinear, standIns);
      std::optional<IntegerQuery> iq = refinement.linearized(values, {f.id()});
      REQUIRE(iq.has_value());
      std::optional<z3::model> m;
      z3::check_result got = integerAnswer(*iq, m);
      z3::solver bv(c, "QF_BV");
      bv.add(term == c.bv_val(t, kWidth) && f == c.bv_val(v, kWidth));
      INFO("fixed " << f << " = " << v << ", target " << t);
      REQUIRE(got == bv.check());
      if (got != z3::sat)
        continue;
      // The model's operands give the term the stand-in's value.
      IntegerTerms terms(*iq);
      std::vector<std::optional<uint64_t>> vals;
      for (unsigned i = 0; i < terms.terms.size(); ++i) {
        uint64_t u = 0;
        z3::expr e = m->eval(terms.terms[i], true);
        vals.push_back(e.is_numeral_u64(u) ? std::optional<uint64_t>(u)
                                           : std::nullopt);
      }
      BitVectorValues model = terms.values(vals);
      std::optional<z3::expr> actual = model.evaluate(term);
      REQUIRE(actual.has_value());
      CHECK(actual->get_numeral_uint64() == t);
    }
}

} // namespace

TEST_CASE("linearized products keep the query's answers", "[arith]") {
  auto mul = [](const z3::expr &a, const z3::expr &b) { return a * b; };
  checkOperator(mul, /*fixedIsY=*/true);
  checkOperator(mul, /*fixedIsY=*/false);
}

TEST_CASE("linearized quotients and remainders keep the query's answers",
          "[arith]") {
  checkOperator(
      [](const z3::expr &a, const z3::expr &b) { return z3::udiv(a, b); },
      /*fixedIsY=*/true);
  checkOperator(
      [](const z3::expr &a, const z3::expr &b) { return z3::urem(a, b); },
      /*fixedIsY=*/true);
}

TEST_CASE("no lemma without a value for an operand", "[arith]") {
  z3::context c;
  z3::expr x = c.bv_const("x", kWidth), y = c.bv_const("y", kWidth);
  z3::expr p = c.bv_const("p", kWidth);
  z3::expr_vector nonlinear(c), standIns(c), abstraction(c);
  nonlinear.push_back(z3::udiv(x, y));
  standIns.push_back(p);
  abstraction.push_back(p == c.bv_val(3, kWidth));
  BitVectorValues values;
  values.set(x, c.bv_val(7, kWidth)); // the dividend only: no lemma
  LinearRefinement refinement(c, abstraction, nonlinear, standIns);
  CHECK_FALSE(refinement.linearized(values, {x.id()}).has_value());
}
