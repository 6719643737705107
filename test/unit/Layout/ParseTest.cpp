//===- ParseTest.cpp - CuTe notation parser tests -------------------------===//
#include "TestUtil.h"

#include "argus/Layout/Swizzle.h"

using namespace argus::layout;
using namespace argus::layout::test;

TEST_CASE("parse and print round-trip", "[parse]") {
  for (const char *s : {"(4,(2,8)):(2,(1,8))", "8:1", "(8,64):(64,1)",
                        "Sw<3,4,3> o (8,64):(64,1)", "(4):(1)",
                        "((2,2),3):((24,2),8)", "Sw<2,0,-3> o 32:1", "4:-1"}) {
    auto l = ok(parseLayout(s), s);
    CHECK(l.str() == s);
  }
  CHECK(ok(parseLayout(" ( 4 , 2 ) : ( 2 , 1 ) "), "spaces").str() ==
        "(4,2):(2,1)");
  CHECK(
      ok(parseLayout("Sw<3,3,3>\xE2\x88\x98(8,64):(64,1)"), "unicode").str() ==
      "Sw<3,3,3> o (8,64):(64,1)");
  // No stride: compact column-major.
  CHECK(ok(parseLayout("(4,(2,8))"), "compact").str() == "(4,(2,8)):(1,(4,8))");
  Gen g(11);
  for (int n = 0; n < 500; ++n) {
    Layout l = g.layout(4, 4, 1 << 20);
    auto p = parseLayout(l.str());
    INFO(l.str() << ": "
                 << (p ? std::string("ok") : llvm::toString(p.takeError())));
    REQUIRE(bool(p));
    REQUIRE(p->layout == l);
    REQUIRE(!p->swizzle);
  }
}

TEST_CASE("parse errors give the column and what was expected", "[parse]") {
  CHECK(errorOf(parseLayout("(4,2:(2,1)")) ==
        "column 5: expected ',' or ')' in a tuple, found ':'");
  CHECK(errorOf(parseLayout("(4,2):(2,(1,3))")) ==
        "column 7: the stride (2,(1,3)) is not congruent with the shape (4,2)");
  CHECK(errorOf(parseLayout("")) ==
        "column 1: expected a layout SHAPE:STRIDE such as (4,2):(2,1), found "
        "the end of the input");
  CHECK(errorOf(parseLayout("(0,2):(1,1)")) ==
        "column 1: expected a shape of positive integers, found '('");
  CHECK(errorOf(parseLayout("Sw<3,4,3> (8,64):(64,1)")) ==
        "column 11: expected 'o' (composition) after the swizzle, found '('");
  CHECK_THAT(errorOf(parseLayout("Sw<3,4,2> o 8:1")),
             Catch::Contains("|S| must be >= B"));
  CHECK(errorOf(parseLayout("8:1 x")) ==
        "column 5: expected the end of the layout, found 'x'");
  CHECK_THAT(errorOf(parseLayout("99999999999999999999:1")),
             Catch::Contains("at most 2^48"));
}
