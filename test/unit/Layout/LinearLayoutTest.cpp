//===- LinearLayoutTest.cpp - F2-linear layout tests ----------------------===//
#include "TestUtil.h"

#include "argus/Layout/LinearLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace argus::layout;
using namespace argus::layout::test;

TEST_CASE("linear layouts from shape:stride layouts agree", "[linear][prop]") {
  Gen g(21);
  int converted = 0;
  for (int n = 0; n < 600; ++n) {
    Layout l = g.coin() ? g.layout(3, 3, 1024, /*powersOfTwo=*/true)
                        : g.injective(3, 3, 1024, false);
    auto ll = LinearLayout::fromLayout(l);
    bool p2 = true;
    for (auto [s, d] : l.flatModes())
      p2 &= llvm::isPowerOf2_64(s) && (d == 0 || llvm::isPowerOf2_64(d));
    if (!ll) {
      llvm::consumeError(ll.takeError());
      continue;
    }
    REQUIRE(p2);
    ++converted;
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(int64_t(ll->applyFlat(uint64_t(i))) == l(i));
    REQUIRE(ll->isInjective() == isInjective(l));
  }
  CHECK(converted > 150);
  CHECK_THAT(errorOf(LinearLayout::fromLayout(L("3:1"))),
             Catch::Contains("shape 3 is not a power of two"));
  CHECK_THAT(errorOf(LinearLayout::fromLayout(L("(2,2):(1,1)"))),
             Catch::Contains("not F2-linear"));
}

TEST_CASE("linear layouts from swizzled layouts agree", "[linear][prop]") {
  for (const char *s :
       {"Sw<3,3,3> o (8,64):(64,1)", "Sw<2,4,3> o (8,32):(32,1)",
        "Sw<2,0,-3> o (4,8):(8,1)", "Sw<1,1,2> o 16:1"}) {
    SwizzledLayout l = ok(parseLayout(s), s);
    LinearLayout ll = ok(LinearLayout::fromSwizzledLayout(l), s);
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(int64_t(ll.applyFlat(uint64_t(i))) == l(i));
    // Bijective ones invert.
    if (ll.numInBits() == ll.numOutBits() && ll.isInjective()) {
      LinearLayout inv = ok(ll.invert(), "invert");
      for (int64_t i = 0; i < l.size(); ++i)
        REQUIRE(int64_t(inv.applyFlat(uint64_t(l(i)))) == i);
    }
  }
}

TEST_CASE("linear layout algebra", "[linear]") {
  // MMA-like C layout of mma.m16n8k16 restricted to power-of-two pieces:
  // (lane, reg) -> (m, n).
  LinearLayout c =
      ok(LinearLayout::get({{"reg", {{0, 1}, {8, 0}}},
                            {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
                           {{"m", 4}, {"n", 3}}),
         "get");
  CHECK(c.apply({3, 5}) == llvm::SmallVector<int64_t, 4>{9, 3});
  CHECK(c.isInjective());
  CHECK(c.isSurjective());
  LinearLayout inv = ok(c.invert(), "invert");
  for (int64_t m = 0; m < 16; ++m)
    for (int64_t n = 0; n < 8; ++n) {
      auto tv = inv.apply({m, n});
      REQUIRE(c.apply({tv[0], tv[1]}) == llvm::SmallVector<int64_t, 4>{m, n});
    }
  // Compose with a (m, n) -> offset layout.
  LinearLayout off = ok(LinearLayout::get({{"m", {{8}, {16}, {32}, {64}}},
                                           {"n", {{1}, {2}, {4}}}},
                                          {{"offset", 7}}),
                        "get");
  LinearLayout co = ok(off.compose(c), "compose");
  for (int64_t x = 0; x < 128; ++x)
    REQUIRE(co.applyFlat(uint64_t(x)) == off.applyFlat(c.applyFlat(x)));
  // Pseudo-inverse of an injective non-square layout.
  LinearLayout inj =
      ok(LinearLayout::get({{"x", {{1}, {6}, {12}}}}, {{"y", 5}}), "get");
  CHECK(inj.isInjective());
  CHECK_FALSE(inj.isSurjective());
  LinearLayout p = ok(inj.pseudoInvert(), "pseudo");
  for (uint64_t x = 0; x < 8; ++x)
    REQUIRE(p.applyFlat(inj.applyFlat(x)) == x);
  CHECK_THAT(errorOf(inj.invert()), Catch::Contains("not square"));
  LinearLayout sing =
      ok(LinearLayout::get({{"x", {{1}, {1}}}}, {{"y", 2}}), "get");
  CHECK(sing.rank() == 1);
  CHECK_THAT(errorOf(sing.invert()), Catch::Contains("not bijective"));
  CHECK_THAT(errorOf(sing.pseudoInvert()), Catch::Contains("not injective"));
  // Random square matrices: invert when full rank.
  Gen g(22);
  for (int n = 0; n < 300; ++n) {
    int k = g.uniform(1, 8);
    std::vector<std::vector<int64_t>> bases;
    for (int b = 0; b < k; ++b)
      bases.push_back({g.uniform(0, (1 << k) - 1)});
    LinearLayout r = ok(LinearLayout::get({{"x", bases}}, {{"y", k}}), "get");
    std::set<uint64_t> im;
    for (uint64_t x = 0; x < (1u << k); ++x)
      im.insert(r.applyFlat(x));
    REQUIRE(r.isInjective() == (im.size() == (1u << k)));
    if (r.isInjective()) {
      LinearLayout i = ok(r.invert(), "invert");
      for (uint64_t x = 0; x < (1u << k); ++x)
        REQUIRE(i.applyFlat(r.applyFlat(x)) == x);
    }
  }
}
