//===- ConstantDivisionTests.cpp - quotients by constants as equations ----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// eliminateConstantDivisions must keep exactly the models of a query: over
// the whole 8-bit domain, the rewritten query has a model for every
// dividend, and every model gives the true quotient and remainder, for
// divisors that are not powers of two, nested divisions and divisors near
// the top of the width.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "ConstantDivision.h"

#include <string>

using argus::verify::detail::eliminateConstantDivisions;

namespace {

/// Whether `s` has a model with x == v in which `q` and `r` are `qv` and
/// `rv`, and none in which they are anything else.
bool decidesExactly(z3::solver &s, z3::context &ctx, const z3::expr &x,
                    unsigned v, const z3::expr &q, unsigned qv,
                    const z3::expr &r, unsigned rv) {
  s.push();
  s.add(x == ctx.bv_val(v, 8));
  bool some = s.check() == z3::sat;
  s.add(q != ctx.bv_val(qv, 8) || r != ctx.bv_val(rv, 8));
  bool other = s.check() != z3::unsat;
  s.pop();
  return some && !other;
}

} // namespace

TEST_CASE("quotients by constants keep their models over a whole domain",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 8);
  z3::expr q = ctx.bv_const("q", 8);
  z3::expr r = ctx.bv_const("r", 8);
  for (unsigned c : {3u, 5u, 6u, 7u, 12u, 100u, 255u}) {
    z3::expr_vector in(ctx);
    in.push_back(q == z3::udiv(x, ctx.bv_val(c, 8)));
    in.push_back(r == z3::urem(x, ctx.bv_val(c, 8)));
    z3::expr_vector out = eliminateConstantDivisions(ctx, in);
    // Definitions were added and no divider is left.
    CHECK(out.size() == 4);
    for (unsigned i = 0; i < out.size(); ++i)
      CHECK(out[i].to_string().find("bvudiv") == std::string::npos);
    z3::solver s(ctx, "QF_BV");
    for (unsigned i = 0; i < out.size(); ++i)
      s.add(out[i]);
    for (unsigned v = 0; v < 256; ++v) {
      INFO("x = " << v << ", divisor " << c);
      CHECK(decidesExactly(s, ctx, x, v, q, v / c, r, v % c));
    }
  }
}

TEST_CASE("nested quotients by constants and powers of two",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 8);
  z3::expr q = ctx.bv_const("q", 8);
  z3::expr r = ctx.bv_const("r", 8);
  z3::expr_vector in(ctx);
  // (x / 3) % 5 and (x % 7) / 4: a power of two stays a division (Z3
  // selects bits for it).
  in.push_back(q == z3::urem(z3::udiv(x, ctx.bv_val(3, 8)), ctx.bv_val(5, 8)));
  in.push_back(r == z3::udiv(z3::urem(x, ctx.bv_val(7, 8)), ctx.bv_val(4, 8)));
  z3::expr_vector out = eliminateConstantDivisions(ctx, in);
  CHECK(out.size() == 2 + 2 * 3);
  z3::solver s(ctx, "QF_BV");
  for (unsigned i = 0; i < out.size(); ++i)
    s.add(out[i]);
  for (unsigned v = 0; v < 256; ++v) {
    INFO("x = " << v);
    CHECK(decidesExactly(s, ctx, x, v, q, (v / 3) % 5, r, (v % 7) / 4));
  }
}

TEST_CASE("a query without quotients by constants is returned as it is",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 8), y = ctx.bv_const("y", 8);
  z3::expr_vector in(ctx);
  in.push_back(z3::udiv(x, y) == z3::urem(x, ctx.bv_val(8, 8)));
  z3::expr_vector out = eliminateConstantDivisions(ctx, in);
  REQUIRE(out.size() == 1);
  CHECK(z3::eq(out[0], in[0]));
}
