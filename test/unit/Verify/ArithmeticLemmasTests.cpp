//===- ArithmeticLemmasTests.cpp - every lemma is a valid fact ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The arithmetic lemmas (ArithmeticLemmas.h) are added to queries whose
// unsat answers are proofs, so each must hold for every value of its
// variables, wrap-around included. Over random queries built from the
// patterns the lemmas look for (divisions by symbolic divisors and their
// multiples, radix forms q * C + r, products sharing a factor, equalities
// of radix terms, a quotient by a constant beside a quotient by its
// multiple), at a narrow width where wrap-around is common, every lemma
// instance is checked valid by Z3, and each family is seen to fire.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "ArithmeticLemmas.h"

#include <functional>
#include <random>
#include <string>

using namespace argus::verify::detail;

namespace {

constexpr unsigned kWidth = 6;

bool valid(z3::context &ctx, const z3::expr &lemma) {
  z3::solver s(ctx);
  s.add(!lemma);
  return s.check() == z3::unsat;
}

bool mentionsTerm(const z3::expr &e, const z3::expr &t) {
  if (z3::eq(e, t))
    return true;
  if (e.is_app())
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (mentionsTerm(e.arg(i), t))
        return true;
  return false;
}

} // namespace

TEST_CASE("every arithmetic lemma is valid at a narrow width", "[lemmas]") {
  std::mt19937 rng(7);
  size_t checked = 0, nested = 0, small = 0, smallDivisor = 0;
  for (int round = 0; round < 12; ++round) {
    z3::context ctx;
    auto var = [&](const std::string &n) {
      return ctx.bv_const(n.c_str(), kWidth);
    };
    auto num = [&](uint64_t v) { return ctx.bv_val(v, kWidth); };
    z3::expr x = var("x"), y = var("y"), d = var("d"), C = var("C"),
             q1 = var("q1"), q2 = var("q2"), r1 = var("r1"), r2 = var("r2"),
             a1 = var("a1"), a2 = var("a2");
    uint64_t k = std::vector<uint64_t>{2, 3, 4, 8}[rng() % 4];
    z3::expr kv = num(k), scaled = kv * C;
    std::vector<z3::expr> terms = {
        z3::udiv(x, d) + z3::urem(x, d),                     // L2, L6, L13
        z3::udiv(y, d) + z3::urem(y, d),                     //
        a1 * d + z3::udiv(x, d) * d,                         // L1, L10, L12
        z3::urem(q1 * d + r1, d) + z3::udiv(q1 * d + r1, d), // L4
        z3::urem(y - z3::urem(y, d), d),                     // L5
        z3::udiv(q1 * C + r1, scaled) + z3::urem(q1 * C + r1, scaled), // L7
        z3::urem(q2 * C + r2, scaled),                                 // L8
        a2 * d,                                                      // L9, L11
        z3::udiv(x, scaled) + z3::urem(x, scaled) + z3::udiv(x, kv), // L15
        a1 * z3::ite(z3::ult(y, kv), y, kv) + a2 * z3::urem(x, kv),  // L16
        z3::udiv(x, z3::ite(z3::ult(y, kv), y, kv)) +
            z3::urem(y, z3::urem(x, kv)), // L17
    };
    // A random half of the patterns, so that lemmas meet different company.
    z3::expr_vector roots(ctx);
    for (const z3::expr &t : terms)
      if (rng() % 2)
        roots.push_back(t == var("v" + std::to_string(roots.size())));
    if (rng() % 2) // L3: an equality of two radix terms
      roots.push_back(q1 * C + r1 == q2 * C + r2);
    for (const z3::expr &l : arithmeticLemmas(ctx, roots)) {
      INFO(l.to_string());
      CHECK(valid(ctx, l));
      ++checked;
      nested += mentionsTerm(l, z3::udiv(z3::udiv(x, kv), C));
      small += mentionsTerm(l, a1 * kv);
      smallDivisor += mentionsTerm(l, z3::udiv(x, num(1)));
    }
  }
  CHECK(checked > 200);
  // The nested-quotient lemma (L15) and the small-factor ones (L16, L17)
  // fired.
  CHECK(nested > 0);
  CHECK(small > 0);
  CHECK(smallDivisor > 0);
}

TEST_CASE("a quotient by a multiple is the quotient of the quotient",
          "[lemmas]") {
  // t / (8 * n) and (t / 8) % n: with L15 the solver sees that two tiles
  // with the same group and column digits are one tile (no multiplier or
  // divider circuit needed), as a grouped raster's output-once check asks.
  z3::context ctx;
  z3::expr t1 = ctx.bv_const("t1", 16), t2 = ctx.bv_const("t2", 16),
           n = ctx.bv_const("n", 16);
  z3::expr eight = ctx.bv_val(8, 16), gn = eight * n;
  auto row = [&](const z3::expr &t) {
    return z3::udiv(t, gn) * eight + z3::urem(t, eight);
  };
  auto col = [&](const z3::expr &t) { return z3::urem(z3::udiv(t, eight), n); };
  z3::expr_vector roots(ctx);
  roots.push_back(z3::ult(n, ctx.bv_val(64, 16)) && n != ctx.bv_val(0, 16));
  roots.push_back(row(t1) == row(t2) && col(t1) == col(t2) && t1 != t2);
  std::vector<z3::expr> lemmas = arithmeticLemmas(ctx, roots);
  bool found = false;
  for (const z3::expr &l : lemmas)
    found |= mentionsTerm(l, z3::udiv(z3::udiv(t1, eight), n));
  CHECK(found);
  // With every division by a symbolic divisor a fresh variable (as the
  // verifier's abstraction has them), the roots are unsat with the lemmas
  // and satisfiable without: the lemmas carry the proof.
  std::vector<z3::expr> divisions;
  std::function<void(const z3::expr &)> collect = [&](const z3::expr &e) {
    if (!e.is_app())
      return;
    Z3_decl_kind k = e.decl().decl_kind();
    if ((k == Z3_OP_BUDIV || k == Z3_OP_BUREM) && !e.arg(1).is_numeral()) {
      divisions.push_back(e);
      return;
    }
    for (unsigned i = 0; i < e.num_args(); ++i)
      collect(e.arg(i));
  };
  for (unsigned i = 0; i < roots.size(); ++i)
    collect(roots[i]);
  for (const z3::expr &l : lemmas)
    collect(l);
  z3::expr_vector from(ctx), to(ctx);
  for (const z3::expr &e : divisions) {
    from.push_back(e);
    to.push_back(ctx.bv_const(("div" + std::to_string(to.size())).c_str(), 16));
  }
  auto abstracted = [&](bool withLemmas) {
    z3::solver s(ctx);
    for (unsigned i = 0; i < roots.size(); ++i)
      s.add(roots[i].substitute(from, to));
    if (withLemmas)
      for (const z3::expr &l : lemmas)
        s.add(z3::expr(l).substitute(from, to));
    return s.check();
  };
  CHECK(abstracted(false) == z3::sat);
  CHECK(abstracted(true) == z3::unsat);
}
