//===- AckermannTests.cpp - function applications as variables ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Ackermann's reduction (Ackermann.h) must keep satisfiability exactly:
// over random formulas with applications of two functions (nested too, as
// an entry indexed by another entry), the reduced formula (applications as
// variables plus their congruence, no function symbols) is satisfiable
// exactly when the original is, and without the congruence a formula whose
// unsatisfiability rests on it is not (so the lemmas are what the test
// sees).
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "Ackermann.h"

#include <functional>
#include <random>

using namespace argus::verify::detail;

namespace {

z3::check_result check(z3::context &ctx, const z3::expr_vector &as) {
  z3::solver s(ctx);
  for (unsigned i = 0; i < as.size(); ++i)
    s.add(as[i]);
  return s.check();
}

/// The reduced formula: applications replaced, congruence added.
z3::expr_vector reduced(const z3::expr_vector &as, bool withLemmas = true) {
  FunctionApplications apps = functionApplications(as);
  z3::expr_vector out(as.ctx());
  for (unsigned i = 0; i < as.size(); ++i)
    out.push_back(as[i].substitute(apps.applied, apps.vars));
  if (withLemmas)
    for (const z3::expr &l : congruenceLemmas(apps, apps.applied, apps.vars))
      out.push_back(l);
  return out;
}

bool hasFunctions(const z3::expr_vector &as) {
  return !functionApplications(as).empty();
}

} // namespace

TEST_CASE("Ackermann's reduction keeps satisfiability on random formulas",
          "[verify][ackermann]") {
  z3::context ctx;
  z3::sort bv = ctx.bv_sort(4);
  z3::func_decl f = z3::function("f", bv, bv);
  z3::sort_vector two(ctx);
  two.push_back(bv);
  two.push_back(bv);
  z3::func_decl g = z3::function("g", two, bv);
  std::vector<z3::expr> vars{ctx.bv_const("x", 4), ctx.bv_const("y", 4),
                             ctx.bv_const("z", 4)};
  std::mt19937 rng(7);
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  std::function<z3::expr(int)> term = [&](int depth) -> z3::expr {
    int k = depth > 0 ? pick(7) : pick(2);
    switch (k) {
    case 0:
      return vars[pick(3)];
    case 1:
      return ctx.bv_val(pick(16), 4);
    case 2:
    case 3:
      return f(term(depth - 1));
    case 4:
      return g(term(depth - 1), term(depth - 1));
    case 5:
      return term(depth - 1) + term(depth - 1);
    default:
      return term(depth - 1) & term(depth - 1);
    }
  };
  int sat = 0, unsat = 0;
  for (int n = 0; n < 500; ++n) {
    z3::expr_vector as(ctx);
    int clauses = 2 + pick(6);
    for (int c = 0; c < clauses; ++c) {
      z3::expr a = term(3), b = term(3);
      as.push_back(pick(2) ? a == b : a != b);
    }
    if (!hasFunctions(as))
      continue;
    z3::check_result want = check(ctx, as);
    z3::expr_vector r = reduced(as);
    INFO(z3::mk_and(as).to_string());
    REQUIRE(!hasFunctions(r));
    CHECK(check(ctx, r) == want);
    (want == z3::sat ? sat : unsat) += 1;
  }
  // Both answers occur, so agreement is not vacuous.
  CHECK(sat > 30);
  CHECK(unsat > 30);
}

TEST_CASE("the congruence lemmas are what makes equal entries equal",
          "[verify][ackermann]") {
  z3::context ctx;
  z3::sort bv = ctx.bv_sort(8);
  z3::func_decl f = z3::function("entries", bv, bv);
  z3::expr i = ctx.bv_const("i", 8), j = ctx.bv_const("j", 8);
  // Two loads of one entry (i == j) that differ: impossible.
  z3::expr_vector as(ctx);
  as.push_back(i == j);
  as.push_back(f(i) != f(j));
  CHECK(check(ctx, as) == z3::unsat);
  CHECK(check(ctx, reduced(as)) == z3::unsat);
  CHECK(check(ctx, reduced(as, /*withLemmas=*/false)) == z3::sat);
  // An entry indexed by an entry: f(f(i)) with f(i) == i is f(i).
  z3::expr_vector nested(ctx);
  nested.push_back(f(i) == i);
  nested.push_back(f(f(i)) != i);
  CHECK(check(ctx, nested) == z3::unsat);
  CHECK(check(ctx, reduced(nested)) == z3::unsat);
}
