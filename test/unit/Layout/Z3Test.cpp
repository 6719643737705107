//===- Z3Test.cpp - Z3 encoding agrees with the concrete evaluator --------===//
#include "TestUtil.h"

#include "argus/Layout/Instructions.h"
#include "argus/Verify/LayoutZ3.h"

using namespace argus::layout;
using namespace argus::layout::test;
namespace enc = argus::layout::z3enc;

namespace {
/// Evaluates term(x := v) to a number.
uint64_t at(z3::context &c, z3::expr term, const z3::expr &x, uint64_t v) {
  z3::expr_vector from(c), to(c);
  from.push_back(x);
  to.push_back(c.bv_val(v, x.get_sort().bv_size()));
  z3::expr r = term.substitute(from, to).simplify();
  REQUIRE(r.is_numeral());
  return r.get_numeral_uint64();
}

uint64_t mask(unsigned w) {
  return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
}
} // namespace

TEST_CASE("Z3 encoding of shape:stride layouts", "[z3][prop]") {
  z3::context c;
  Gen g(31);
  for (int n = 0; n < 150; ++n) {
    Layout l = g.layout(3, 3, 64);
    if (g.coin(0.1))
      l = L("(4,3):(-1,5)");
    unsigned w = enc::safeWidth(l);
    z3::expr x = c.bv_const("x", w);
    z3::expr t = ok(enc::encode(l, x), "encode " + l.str());
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(at(c, t, x, uint64_t(i)) == (uint64_t(l(i)) & mask(w)));
  }
  // Large layouts, random inputs.
  std::uniform_int_distribution<int64_t> pick;
  for (int n = 0; n < 20; ++n) {
    Layout l = g.layout(3, 4, int64_t(1) << 30);
    unsigned w = enc::safeWidth(l);
    z3::expr x = c.bv_const("x", w);
    z3::expr t = ok(enc::encode(l, x), "encode");
    for (int k = 0; k < 30; ++k) {
      int64_t i = pick(g.rng) % l.size();
      REQUIRE(at(c, t, x, uint64_t(i)) == (uint64_t(l(i)) & mask(w)));
    }
  }
  // Too narrow.
  CHECK_THAT(errorOf(enc::encode(L("(8,64):(64,1)"), c.bv_const("y", 4))),
             Catch::Contains("below the minimum"));
}

TEST_CASE("Z3 encoding with per-mode coordinates", "[z3]") {
  z3::context c;
  Layout l = L("(4,(2,8)):(2,(1,8))");
  unsigned w = enc::safeWidth(l);
  z3::expr i = c.bv_const("i", w), j = c.bv_const("j", w);
  z3::expr t = ok(enc::encodeCoords(l, {i, j}), "encodeCoords");
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 16; ++b) {
      z3::expr_vector from(c), to(c);
      from.push_back(i);
      from.push_back(j);
      to.push_back(c.bv_val(uint64_t(a), w));
      to.push_back(c.bv_val(uint64_t(b), w));
      z3::expr r = t.substitute(from, to).simplify();
      REQUIRE(r.get_numeral_uint64() == uint64_t(l(IntTuple::tuple({a, b}))));
    }
}

TEST_CASE("Z3 encoding of swizzled and linear layouts", "[z3][prop]") {
  z3::context c;
  for (const char *s : {"Sw<3,3,3> o (8,64):(64,1)", "Sw<2,0,-3> o (4,8):(8,1)",
                        "Sw<1,4,3> o (8,16):(16,1)", "Sw<3,4,3> o 2048:1"}) {
    SwizzledLayout l = ok(parseLayout(s), s);
    unsigned w = enc::safeWidth(l);
    z3::expr x = c.bv_const("x", w);
    z3::expr t = ok(enc::encode(l, x), s);
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(at(c, t, x, uint64_t(i)) == uint64_t(l(i)));
    LinearLayout ll = ok(LinearLayout::fromSwizzledLayout(l), s);
    unsigned lw = enc::safeWidth(ll);
    z3::expr y = c.bv_const("y", lw);
    z3::expr lt = ok(enc::encode(ll, y), s);
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(at(c, lt, y, uint64_t(i)) == uint64_t(l(i)));
  }
  // Per-dimension linear encoding.
  LinearLayout ll =
      ok(LinearLayout::get({{"reg", {{0, 1}, {8, 0}}},
                            {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
                           {{"m", 4}, {"n", 3}}),
         "get");
  z3::expr r = c.bv_const("r", 8), lane = c.bv_const("lane", 8);
  auto outs = ok(enc::encodeDims(ll, {r, lane}), "encodeDims");
  REQUIRE(outs.size() == 2);
  for (int64_t rv = 0; rv < 4; ++rv)
    for (int64_t lv = 0; lv < 32; ++lv) {
      z3::expr_vector from(c), to(c);
      from.push_back(r);
      from.push_back(lane);
      to.push_back(c.bv_val(uint64_t(rv), 8));
      to.push_back(c.bv_val(uint64_t(lv), 8));
      auto want = ll.apply({rv, lv});
      REQUIRE(z3::expr(outs[0])
                  .substitute(from, to)
                  .simplify()
                  .get_numeral_uint64() == uint64_t(want[0]));
      REQUIRE(z3::expr(outs[1])
                  .substitute(from, to)
                  .simplify()
                  .get_numeral_uint64() == uint64_t(want[1]));
    }
}

TEST_CASE("Z3 proves layout facts for all inputs at once", "[z3]") {
  z3::context c;
  // The 128B-swizzled b16 atom is injective on its domain: no two distinct
  // indices in range share an offset.
  SwizzledLayout a = ok(smemSwizzleAtom(SmemSwizzle::B128, 16), "atom").atom;
  unsigned w = enc::safeWidth(a);
  z3::expr x = c.bv_const("x", w), y = c.bv_const("y", w);
  z3::solver s(c);
  s.add(enc::inRange(x, a.size()));
  s.add(enc::inRange(y, a.size()));
  s.add(x != y);
  s.add(ok(enc::encode(a, x), "x") == ok(enc::encode(a, y), "y"));
  CHECK(s.check() == z3::unsat);
  // The mma.m16n8k16 C layout hits offset 77 at exactly one (thread, value),
  // and the model evaluates back to it.
  MmaInstr m = *lookupMmaInstr("mma.m16n8k16.f32.f16");
  unsigned cw = enc::safeWidth(m.C.tv);
  z3::expr t = c.bv_const("t", cw), v = c.bv_const("v", cw);
  z3::solver s2(c);
  s2.add(enc::inRange(t, 32));
  s2.add(enc::inRange(v, 4));
  s2.add(ok(enc::encodeCoords(m.C.tv, {t, v}), "C") == c.bv_val(77, cw));
  REQUIRE(s2.check() == z3::sat);
  z3::model mod = s2.get_model();
  int tv = int(mod.eval(t, true).get_numeral_uint64());
  int vv = int(mod.eval(v, true).get_numeral_uint64());
  CHECK(m.cCoord(tv, vv) == std::pair<int, int>(77 % 16, 77 / 16));
}
