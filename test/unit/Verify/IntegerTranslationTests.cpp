//===- IntegerTranslationTests.cpp - bit-vector terms as integers ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// toLinearIntegers must be exact: for every term of the fragment and every
// assignment of a whole small domain, the integer query gives the term
// exactly the value that bit-vector semantics give it (one model, no other
// value possible), including wrap-around, quotients and remainders by
// constants (and by zero), bit selections, shifts, masks, and the ranges it
// narrows from the query's own bounds. Formulas keep their truth value; terms
// outside the fragment are refused with their operator's name.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "IntegerTranslation.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

using argus::verify::detail::toLinearIntegers;

namespace {

constexpr unsigned kWidth = 4;

/// The integer variable standing for the bit-vector variable `v`, if `v`
/// is in the query.
std::optional<z3::expr> integerOf(const argus::verify::detail::IntegerQuery &iq,
                                  const z3::expr &v) {
  for (auto &[bv, in] : iq.variables)
    if (z3::eq(bv, v))
      return in;
  return std::nullopt;
}

/// Checks, for every (x, y) in the domain allowed by `bounds`, that the
/// translation of `t == z` (plus the bounds) forces z to t's value.
void checkTerm(z3::context &ctx, const z3::expr &x, const z3::expr &y,
               const z3::expr &t, const std::vector<z3::expr> &bounds = {}) {
  unsigned w = t.get_sort().bv_size();
  z3::expr z = ctx.bv_const("z", w);
  z3::expr_vector as(ctx);
  as.push_back(t == z);
  for (auto &b : bounds)
    as.push_back(b);
  std::string why;
  auto iq = toLinearIntegers(ctx, as, &why);
  INFO("term " << t << " (unsupported: " << why << ")");
  REQUIRE(iq);
  z3::solver s(ctx);
  for (unsigned i = 0; i < iq->assertions.size(); ++i)
    s.add(iq->assertions[i]);
  // x or y may be absent from the query when t does not use them.
  auto fix = [&](const z3::expr &v, unsigned value) {
    if (auto in = integerOf(*iq, v))
      s.add(*in == ctx.int_val(value));
  };
  std::optional<z3::expr> zInteger = integerOf(*iq, z);
  REQUIRE(zInteger);
  z3::expr zi = *zInteger;
  for (unsigned a = 0; a < (1u << kWidth); ++a)
    for (unsigned b = 0; b < (1u << kWidth); ++b) {
      z3::expr_vector from(ctx), to(ctx);
      from.push_back(x);
      from.push_back(y);
      to.push_back(ctx.bv_val(a, kWidth));
      to.push_back(ctx.bv_val(b, kWidth));
      bool allowed = true;
      for (auto &bd : bounds)
        allowed =
            allowed && z3::expr(bd).substitute(from, to).simplify().is_true();
      uint64_t expected = 0;
      REQUIRE(
          z3::expr(t).substitute(from, to).simplify().is_numeral_u64(expected));
      s.push();
      fix(x, a);
      fix(y, b);
      INFO("x = " << a << ", y = " << b << ", expected " << expected);
      if (!allowed) {
        CHECK(s.check() == z3::unsat);
        s.pop();
        continue;
      }
      s.push();
      s.add(zi == ctx.int_val(static_cast<int64_t>(expected)));
      CHECK(s.check() == z3::sat);
      s.pop();
      s.add(zi != ctx.int_val(static_cast<int64_t>(expected)));
      CHECK(s.check() == z3::unsat);
      s.pop();
    }
}

} // namespace

TEST_CASE("integer translation gives every term its bit-vector value",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", kWidth), y = ctx.bv_const("y", kWidth);
  auto c = [&](unsigned v) { return ctx.bv_val(v, kWidth); };
  std::vector<std::pair<const char *, z3::expr>> terms = {
      {"sum", x + y},
      {"difference", x - y},
      {"negation", -x},
      {"linear", c(3) * x - c(5) * y + c(7)},
      {"all-ones factor", c(15) * x + y},
      {"quotient", z3::udiv(x, c(3))},
      {"remainder", z3::urem(x + y, c(3))},
      {"quotient by zero", z3::udiv(x, c(0))},
      {"remainder by zero", z3::urem(x, c(0))},
      {"power-of-two quotient", z3::udiv(x - y, c(4))},
      {"shift left", z3::shl(x, c(2))},
      {"logical shift right", z3::lshr(x + c(9), c(1))},
      {"mask", (x + y) & c(3)},
      {"bit selection",
       z3::zext(x.extract(2, 1), kWidth - 2) + y.extract(3, 0)},
      {"concatenation", z3::concat(x.extract(1, 0), y).extract(3, 0)},
      {"zero extension", z3::zext(x, 2).extract(4, 1)},
      {"if-then-else", z3::ite(z3::ult(x, y), x, y - x)},
      {"nested wrap", c(2) * (x + c(12)) - (y - c(1))},
  };
  for (auto &[name, t] : terms) {
    SECTION(name) { checkTerm(ctx, x, y, t); }
  }
}

TEST_CASE("integer translation narrows wrap-arounds only as bounds allow",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", kWidth), y = ctx.bv_const("y", kWidth);
  auto c = [&](unsigned v) { return ctx.bv_val(v, kWidth); };
  // y < x makes x - y non-negative (no wrap variable is needed), and x < 10
  // keeps x + 5 below 16; the values must still be exact.
  SECTION("related difference") {
    checkTerm(ctx, x, y, x - y - c(1), {z3::ult(y, x)});
  }
  SECTION("bounded sum") {
    checkTerm(ctx, x, y, x + c(5) + y, {z3::ult(x, c(10)), z3::ule(y, c(2))});
  }
  SECTION("equal variables") { checkTerm(ctx, x, y, x - y + c(3), {x == y}); }
}

TEST_CASE("integer translation keeps formulas' truth values",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", kWidth), y = ctx.bv_const("y", kWidth);
  z3::expr p = ctx.bool_const("p");
  auto c = [&](unsigned v) { return ctx.bv_val(v, kWidth); };
  std::vector<z3::expr> formulas = {
      z3::ult(x, y),
      z3::ule(x + c(3), y),
      z3::ugt(x - y, c(7)),
      z3::uge(c(3) * x, y),
      x != y,
      z3::implies(p, x == y) && (p || z3::ult(y, x)),
      z3::ite(p, z3::ult(x, c(4)), x == c(9)) != (y == c(0)),
      z3::expr(ctx, Z3_mk_bvmul_no_overflow(ctx, x, c(3), false)),
      z3::slt(x - y, c(2)),
      z3::sle(x, y + c(1)),
      z3::sgt(c(12), x),
      z3::sge(z3::udiv(x, c(2)), c(9) * y),
  };
  for (const z3::expr &f : formulas) {
    INFO("formula " << f);
    z3::expr_vector as(ctx);
    as.push_back(f);
    auto iq = toLinearIntegers(ctx, as);
    REQUIRE(iq);
    z3::solver in(ctx);
    in.add(iq->assertions);
    // Satisfiable at each point of the domain exactly when the bit-vector
    // formula is true there.
    for (unsigned a = 0; a < (1u << kWidth); ++a)
      for (unsigned b = 0; b < (1u << kWidth); ++b)
        for (bool pv : {false, true}) {
          z3::expr_vector from(ctx), to(ctx);
          from.push_back(x);
          from.push_back(y);
          from.push_back(p);
          to.push_back(c(a));
          to.push_back(c(b));
          to.push_back(ctx.bool_val(pv));
          bool truth = z3::expr(f).substitute(from, to).simplify().is_true();
          in.push();
          for (auto &[bv, i] : iq->variables)
            in.add(i == ctx.int_val(z3::eq(bv, x) ? a : b));
          in.add(p == ctx.bool_val(pv));
          INFO("x = " << a << ", y = " << b << ", p = " << pv);
          CHECK((in.check() == z3::sat) == truth);
          in.pop();
        }
  }
}

TEST_CASE("integer translation refuses terms outside its fragment",
          "[verify][arith]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", kWidth), y = ctx.bv_const("y", kWidth);
  std::vector<std::pair<z3::expr, std::string>> refused = {
      {x * y == x, "bvmul"},
      {z3::udiv(x, y) == x, "bvudiv"},
      {(x ^ y) == x, "bvxor"},
      {(x / y) == x, "bvsdiv"},
      {ctx.bv_const("wide", 64) == ctx.bv_val(1, 64), "width 64"},
  };
  for (auto &[f, op] : refused) {
    z3::expr_vector as(ctx);
    as.push_back(f);
    std::string why;
    CHECK_FALSE(toLinearIntegers(ctx, as, &why));
    CHECK(why == op);
  }
}
