//===- SwizzleTest.cpp - Swizzle and swizzled layout tests ----------------===//
//
// Swizzle<B,M,S> semantics as documented in CuTe's swizzle.hpp comment
// ("0bxxxxxxxxxxxxYYYxxxxxxxZZZxxxx: the YYY bits at [M+S, M+S+B) are
// xor'ed into the ZZZ bits at [M, M+B)").
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "argus/Layout/Swizzle.h"

using namespace argus::layout;
using namespace argus::layout::test;

static Swizzle sw(int b, int m, int s) {
  return ok(Swizzle::get(b, m, s), "swizzle");
}

TEST_CASE("swizzle values", "[swizzle]") {
  Swizzle s = sw(3, 4, 3);
  CHECK(s.yyyMask() == 0x380);
  CHECK(s.zzzMask() == 0x70);
  CHECK(s(0x80) == 0x90);
  CHECK(s(0x3FF) == 0x38F);
  CHECK(s(0x0F) == 0x0F);
  CHECK(s.str() == "Sw<3,4,3>");
  // Negative shift: yyy bits below, zzz above.
  Swizzle n = sw(2, 0, -3);
  CHECK(n.yyyMask() == 0x3);
  CHECK(n.zzzMask() == 0x18);
  CHECK(n(1) == 9);
  CHECK(n(3) == (3 | 0x18));
  CHECK(sw(0, 4, 3)(12345) == 12345);
  CHECK_FALSE(bool(Swizzle::get(3, 4, 2)) == true);
  llvm::consumeError(Swizzle::get(3, 4, 2).takeError());
}

TEST_CASE("swizzles are involutions", "[swizzle][prop]") {
  for (int b = 0; b <= 3; ++b)
    for (int m = 0; m <= 4; ++m)
      for (int s = -5; s <= 5; ++s) {
        auto e = Swizzle::get(b, m, s);
        if (!e) {
          llvm::consumeError(e.takeError());
          REQUIRE((s < 0 ? -s : s) < b);
          continue;
        }
        int64_t n = int64_t(1) << e->topBit();
        for (int64_t x = 0; x < 2 * n; ++x) {
          REQUIRE((*e)((*e)(x)) == x);
          // A swizzle permutes each aligned block of 2^topBit.
          REQUIRE((*e)(x) / n == x / n);
        }
      }
}

TEST_CASE("swizzled layouts", "[swizzle]") {
  SwizzledLayout a = ok(parseLayout("Sw<3,3,3> o (8,64):(64,1)"), "parse");
  CHECK(a.size() == 512);
  CHECK(a.cosize() == 512);
  // Row 1, column 0 lands in 16-byte chunk 1 of row 1.
  CHECK(a(IntTuple::tuple({1, 0})) == 64 + 8);
  CHECK(a(IntTuple::tuple({1, 8})) == 64 + 0);
  // (Sw o L) o R = Sw o (L o R).
  Layout r = L("(4,16):(2,8)");
  SwizzledLayout c = ok(composition(a, r), "composition");
  CHECK(c.swizzle == a.swizzle);
  for (int64_t i = 0; i < r.size(); ++i)
    CHECK(c(i) == a(r(i)));
  // Inverse of a bijective swizzled layout.
  SwizzledInverse inv = ok(inverse(a), "inverse");
  for (int64_t i = 0; i < a.size(); ++i)
    REQUIRE(inv(a(i)) == i);
  // Not bijective: the swizzle leaves [0, cosize).
  CHECK_THAT(errorOf(inverse(ok(parseLayout("Sw<3,3,3> o 64:1"), "p"))),
             Catch::Contains("not a multiple of 512"));
  // cosize accounts for the swizzle.
  CHECK(ok(parseLayout("Sw<1,0,-2> o 4:1"), "p").cosize() == 8);
}
