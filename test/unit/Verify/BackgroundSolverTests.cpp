//===- BackgroundSolverTests.cpp - a query stage on a second core ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The background solver must give the answer (and model values) the same
// query gets on the caller's context, stop when cancelled, interrupt a
// registered foreground check once it finds unsat, and leave both contexts
// usable afterwards (Z3's per-solver interrupts stop only the running check).
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "BackgroundSolver.h"

#include <chrono>

using argus::verify::detail::BackgroundSolver;

namespace {

z3::solver plainSolver(z3::context &c) { return z3::solver(c, "QF_BV"); }

/// A query no solver decides quickly: a 64-bit prime as a product of two
/// factors greater than 1 (unsat, but only after a long search).
z3::expr_vector factorPrime(z3::context &c) {
  z3::expr x = c.bv_const("x", 64), y = c.bv_const("y", 64);
  z3::expr_vector q(c);
  q.push_back(x * y == c.bv_val(uint64_t(18446744073709551557ull), 64));
  q.push_back(z3::ugt(x, c.bv_val(1, 64)));
  q.push_back(z3::ugt(y, c.bv_val(1, 64)));
  q.push_back(z3::bvmul_no_overflow(x, y, false));
  return q;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

/// Whether `c` still decides a small query (no interrupt left behind).
bool stillUsable(z3::context &c) {
  z3::solver s(c, "QF_BV");
  z3::expr a = c.bv_const("a", 16);
  s.add(a * a == c.bv_val(49, 16) && z3::ult(a, c.bv_val(100, 16)));
  return s.check() == z3::sat &&
         s.get_model().eval(a).get_numeral_uint64() == 7;
}

} // namespace

TEST_CASE("background answers and model values are the caller's query's",
          "[background]") {
  z3::context c;
  BackgroundSolver bg;
  z3::expr x = c.bv_const("x", 8), y = c.bv_const("y", 8);
  z3::expr flag = c.bool_const("flag");
  for (int round = 0; round < 3; ++round) { // the context is reused
    z3::expr_vector q(c);
    q.push_back(x + y == c.bv_val(10 + round, 8));
    q.push_back(z3::ugt(x, y) && z3::ult(y, c.bv_val(2, 8)));
    q.push_back(flag == (x == c.bv_val(9 + round, 8)));
    z3::expr_vector terms(c);
    terms.push_back(x);
    terms.push_back(y);
    terms.push_back(flag);
    terms.push_back(x + y);
    bg.start(q, terms, plainSolver, 0, 10000);
    BackgroundSolver::Answer a = bg.wait();
    REQUIRE(a.result == z3::sat);
    REQUIRE(a.values.size() == 4);
    REQUIRE(a.values[0].has_value());
    REQUIRE(a.values[1].has_value());
    uint64_t vx = *a.values[0], vy = *a.values[1];
    CHECK((vx + vy) % 256 == uint64_t(10 + round));
    CHECK(vx > vy);
    CHECK(vy < 2);
    CHECK(*a.values[2] == (vx == uint64_t(9 + round) ? 1u : 0u));
    CHECK(*a.values[3] == uint64_t(10 + round));
  }
  z3::expr_vector unsat(c);
  unsat.push_back(z3::ult(x, c.bv_val(3, 8)) && z3::ugt(x, c.bv_val(5, 8)));
  bg.start(unsat, z3::expr_vector(c), plainSolver, 0, 10000);
  CHECK(bg.wait().result == z3::unsat);
  CHECK(bg.decided());
}

TEST_CASE("a cancelled background query stops early", "[background]") {
  z3::context c;
  BackgroundSolver bg;
  auto t0 = std::chrono::steady_clock::now();
  bg.start(factorPrime(c), z3::expr_vector(c), plainSolver, 0, 60000);
  // Cancelled while it runs (or before it starts: then it never does).
  while (msSince(t0) < 50)
    ;
  bg.cancel();
  CHECK(bg.wait().result == z3::unknown);
  CHECK(msSince(t0) < 20000);
  // The background context decides the next query normally.
  z3::expr x = c.bv_const("x", 8);
  z3::expr_vector q(c);
  q.push_back(x == c.bv_val(3, 8));
  z3::expr_vector terms(c);
  terms.push_back(x);
  bg.start(q, terms, plainSolver, 0, 10000);
  BackgroundSolver::Answer a = bg.wait();
  REQUIRE(a.result == z3::sat);
  CHECK(*a.values[0] == 3);
}

TEST_CASE("a background unsat interrupts the registered foreground check",
          "[background]") {
  // An interrupt that arrives in the few microseconds between the
  // registration's last look at the background and the start of the
  // foreground check is lost (Z3 clears it when a check starts): then the
  // foreground runs to its own limit. So a few attempts, each limited to
  // 5 s, and one of them must be cut short by the background's answer.
  bool interrupted = false;
  for (int attempt = 0; attempt < 3 && !interrupted; ++attempt) {
    z3::context c;
    BackgroundSolver bg;
    // The background query is unsat after a short search (2 is no square
    // modulo 2^24), long enough for the foreground check to have started.
    z3::expr x = c.bv_const("x", 24);
    z3::expr_vector q(c);
    q.push_back(x * x == c.bv_val(2, 24));
    auto t0 = std::chrono::steady_clock::now();
    bg.start(q, z3::expr_vector(c), plainSolver, 0, 60000);
    z3::solver fg(c, "QF_BV");
    z3::params p(c);
    p.set("timeout", 5000u);
    fg.set(p);
    z3::expr_vector hard = factorPrime(c);
    for (unsigned i = 0; i < hard.size(); ++i)
      fg.add(hard[i]);
    z3::check_result r = z3::unknown;
    if (!bg.decided()) {
      BackgroundSolver::Foreground registered(&bg, c, fg);
      // Registered after the background answered: nothing interrupts it,
      // so the test asks again.
      if (!bg.decided())
        r = fg.check();
    }
    BackgroundSolver::Answer a = bg.wait();
    CHECK(a.result == z3::unsat);
    CHECK(r == z3::unknown);
    INFO("background " << a.milliseconds << " ms");
    interrupted = msSince(t0) < 4000;
    CHECK(stillUsable(c));
  }
  CHECK(interrupted);
}
