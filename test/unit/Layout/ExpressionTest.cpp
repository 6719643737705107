//===- ExpressionTest.cpp - layout expression evaluator tests -------------===//
//
// Each operation of the expression language against what it must compute:
// the worked examples of the CuTe layout algebra documentation where there is
// one, otherwise the algebra function it stands for, called directly. Error
// cases must come back as messages.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "argus/Layout/Expression.h"
#include "argus/Layout/Instructions.h"

using namespace argus::layout;
using namespace argus::layout::test;
using Kind = ExpressionValue::Kind;

namespace {

/// The evaluated value, or a test failure with the message.
ExpressionValue eval(const std::string &text) {
  return ok(evaluateExpression(text), text);
}

/// The printed result of a successful evaluation.
std::string show(const std::string &text) { return eval(text).str(); }

/// The error message of an evaluation that must fail.
std::string failure(const std::string &text) {
  std::string msg = errorOf(evaluateExpression(text));
  INFO(text);
  CHECK(!msg.empty());
  return msg;
}

} // namespace

TEST_CASE("expression literals", "[expression]") {
  ExpressionValue i = eval("42");
  CHECK(i.kind == Kind::Integer);
  CHECK(i.integer == 42);
  CHECK(eval("-3").integer == -3);

  ExpressionValue t = eval("(4,(2,8))");
  CHECK(t.kind == Kind::Tuple);
  CHECK(t.tuple.str() == "(4,(2,8))");

  ExpressionValue l = eval(" ( 4 , ( 2 , 8 ) ) : ( 2 , ( 1 , 8 ) ) ");
  CHECK(l.kind == Kind::Layout);
  CHECK(l.layout.layout == L("(4,(2,8)):(2,(1,8))"));
  CHECK(!l.layout.swizzle);
  CHECK(l.kindName() == std::string("a layout"));

  ExpressionValue s = eval("Sw<3,4,3> o (8,64):(64,1)");
  CHECK(s.kind == Kind::Layout);
  CHECK(s.str() == "Sw<3,4,3> o (8,64):(64,1)");
  CHECK(s.kindName() == std::string("a swizzled layout"));

  // A tiler element may be an integer (N:1) or a shape (compact).
  ExpressionValue tl = eval("[3:4, 8, (2,4)]");
  CHECK(tl.kind == Kind::Tiler);
  REQUIRE(tl.tiler.size() == 3);
  CHECK(tl.tiler[0] == L("3:4"));
  CHECK(tl.tiler[1] == L("8:1"));
  CHECK(tl.tiler[2] == L("(2,4):(1,2)"));
  CHECK(tl.str() == "[3:4, 8:1, (2,4):(1,2)]");
}

TEST_CASE("expression composition and complement", "[expression]") {
  CHECK(show("composition((6,2):(8,2), (4,3):(3,1))") ==
        "((2,2),3):((24,2),8)");
  CHECK(show("composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])") ==
        "(3,(2,4)):(236,(26,1))");
  CHECK(show("composition(Sw<3,3,3> o (8,64):(64,1), (8,8):(1,8))") ==
        "Sw<3,3,3> o (8,8):(64,1)");
  // Integers and shapes stand for their layouts.
  CHECK(show("composition(8, 4:2)") ==
        ok(composition(L("8:1"), L("4:2")), "c").str());
  CHECK(show("complement(4:2, 24)") == "(2,3):(1,8)");
  CHECK(show("complement((2,2):(1,6), 24)") == "(3,2):(2,12)");
  CHECK(show("complement((4,2):(2,16))") ==
        ok(complement(L("(4,2):(2,16)")), "c").str());
}

TEST_CASE("expression unary layout operations", "[expression]") {
  CHECK(show("coalesce((2,(1,6)):(1,(6,2)))") == "12:1");
  CHECK(show("coalesce_modes((2,(1,6)):(1,(6,2)))") == "(2,6):(1,2)");
  // coalesce(L, profile) coalesces by mode.
  CHECK(show("coalesce((2,(1,6)):(1,(6,2)), (1,1))") == "(2,6):(1,2)");
  CHECK(show("filter((4,2,3):(0,1,2))") == "6:1");
  CHECK(show("right_inverse((4,2):(2,1))") == "(2,4):(4,1)");
  CHECK(show("left_inverse(4:2)") == "(2,4):(4,1)");
  CHECK(show("with_shape((8,64):(64,1), ((4,2),64))") ==
        "((4,2),64):((64,256),1)");
}

TEST_CASE("expression divides and products", "[expression]") {
  CHECK(show("logical_divide((4,2,3):(2,1,8), 4:2)") ==
        "((2,2),(2,3)):((4,1),(2,8))");
  const std::string layout = "(9,(4,8)):(59,(13,1))";
  const std::string tiler = "[3:3, (2,4):(1,8)]";
  CHECK(show("logical_divide(" + layout + ", " + tiler + ")") ==
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  CHECK(show("zipped_divide(" + layout + ", " + tiler + ")") ==
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  CHECK(show("tiled_divide(" + layout + ", " + tiler + ")") ==
        "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  CHECK(show("flat_divide(" + layout + ", " + tiler + ")") ==
        "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  CHECK(show("logical_product((2,2):(4,1), 6:1)") ==
        "((2,2),(2,3)):((4,1),(2,8))");
  CHECK(show("blocked_product((2,5):(5,1), (3,4):(1,3))") ==
        "((2,3),(5,4)):((5,10),(1,30))");
  CHECK(show("raked_product((2,5):(5,1), (3,4):(1,3))") ==
        "((3,2),(4,5)):((10,5),(30,1))");
  // The remaining forms against the algebra functions themselves.
  Layout a = L("(4,6):(1,4)"), b = L("2:1");
  CHECK(show("zipped_divide((4,6):(1,4), 2:1)") ==
        ok(zippedDivide(a, b), "z").str());
  CHECK(show("tiled_divide((4,6):(1,4), 2:1)") ==
        ok(tiledDivide(a, b), "t").str());
  CHECK(show("flat_divide((4,6):(1,4), 2:1)") ==
        ok(flatDivide(a, b), "f").str());
  CHECK(show("zipped_product((4,6):(1,4), 2:1)") ==
        ok(zippedProduct(a, b), "zp").str());
  CHECK(show("tiled_product((4,6):(1,4), 2:1)") ==
        ok(tiledProduct(a, b), "tp").str());
  Tiler t = {L("2:1"), L("3:1")};
  CHECK(show("logical_product((4,6):(1,4), [2:1, 3:1])") ==
        ok(logicalProduct(a, t), "lpt").str());
  CHECK(show("zipped_product((4,6):(1,4), [2:1, 3:1])") ==
        ok(zippedProduct(a, t), "zpt").str());
  CHECK(show("tiled_product((4,6):(1,4), [2:1, 3:1])") ==
        ok(tiledProduct(a, t), "tpt").str());
}

TEST_CASE("expression queries", "[expression]") {
  CHECK(eval("size((4,(2,8)):(2,(1,8)))").integer == 64);
  CHECK(eval("cosize(4:2)").integer == 7);
  CHECK(eval("rank((4,(2,8)):(2,(1,8)))").integer == 2);
  CHECK(eval("depth((4,(2,8)):(2,(1,8)))").integer == 2);
  CHECK(eval("size(Sw<3,4,3> o (8,64):(64,1))").integer == 512);

  ExpressionValue bij = eval("is_bijective((4,(2,8)):(2,(1,8)))");
  CHECK(bij.kind == Kind::Boolean);
  CHECK(bij.str() == "true");
  CHECK(show("is_injective((2,2):(1,1))") == "false");
  // (2,2):(1,1) hits 0, 1, 1, 2: all of [0, 3), not injective.
  CHECK(show("is_surjective((2,2):(1,1))") == "true");
  // 4:2 hits 0, 2, 4, 6 of [0, 7).
  CHECK(show("is_surjective(4:2)") == "false");

  // eval by index and by coordinate: 3*2 + 1*1 + 2*8.
  CHECK(eval("eval((4,(2,8)):(2,(1,8)), (3,(1,2)))").integer == 23);
  Layout l = L("(4,(2,8)):(2,(1,8))");
  CHECK(eval("eval((4,(2,8)):(2,(1,8)), 13)").integer == l(13));
  SwizzledLayout sw = ok(parseLayout("Sw<1,0,-2> o 4:1"), "sw");
  CHECK(eval("eval(Sw<1,0,-2> o 4:1, 1)").integer == sw(1));
}

TEST_CASE("expression make_layout", "[expression]") {
  CHECK(show("make_layout((4,(2,8)))") == "(4,(2,8)):(1,(4,8))");
  CHECK(show("make_layout((4,2), (2,1))") == "(4,2):(2,1)");
  CHECK(show("make_layout(8, 2)") == "8:2");
  // More than one layout: one mode each.
  CHECK(show("make_layout(4:2, (2,3):(1,8))") == "(4,(2,3)):(2,(1,8))");
}

TEST_CASE("expression linear layouts, inverses and swizzle atoms",
          "[expression]") {
  ExpressionValue lin = eval("linear(Sw<1,1,1> o 8:1)");
  CHECK(lin.kind == Kind::LinearLayout);
  auto expected = ok(LinearLayout::fromSwizzledLayout(
                         ok(parseLayout("Sw<1,1,1> o 8:1"), "sw")),
                     "linear");
  CHECK(lin.str() == expected.str());
  for (uint64_t i = 0; i < 8; ++i)
    CHECK(lin.linear.applyFlat(i) == expected.applyFlat(i));

  ExpressionValue inv = eval("inverse(Sw<1,1,1> o (2,4):(4,1))");
  CHECK(inv.kind == Kind::Inverse);
  SwizzledLayout fwd = ok(parseLayout("Sw<1,1,1> o (2,4):(4,1)"), "fwd");
  REQUIRE(inv.inverse.size() == 8);
  for (int64_t i = 0; i < 8; ++i)
    CHECK(inv.inverse(fwd(i)) == i);

  CHECK(show("smem_swizzle_atom(128)") == "Sw<3,3,3> o (8,64):(64,1)");
  CHECK(show("smem_swizzle_atom(32, 8)") == "Sw<1,4,3> o (8,32):(32,1)");
  CHECK(show("smem_swizzle_atom(64)") ==
        ok(smemSwizzleAtom(SmemSwizzle::B64, 16), "atom").atom.str());
}

TEST_CASE("expression errors are messages with a column", "[expression]") {
  CHECK(failure("frobnicate(8:1)") ==
        "column 1: unknown operation 'frobnicate'");
  CHECK(failure("(4,2:(2,1)") ==
        "column 5: expected ',' or ')' in a tuple, found ':'");
  CHECK(failure("(4,2):(2,(1,3))") ==
        "column 7: the stride (2,(1,3)) is not congruent with the shape (4,2)");
  CHECK(failure("size(8:1") ==
        "column 9: expected ',' or ')' in the arguments of size, found the "
        "end of the input");
  CHECK_THAT(failure("8:1 8:1"), Catch::Contains("expected the end of the "
                                                 "expression"));
  CHECK_THAT(failure("size"), Catch::Contains("'(' after the operation name"));
  CHECK_THAT(failure(""), Catch::Contains("column 1: expected a layout"));
  CHECK(failure("[]") == "an empty tiler [] is not allowed");
  CHECK_THAT(failure("[3:1 4:1]"), Catch::Contains("',' or ']' in a tiler"));
}

TEST_CASE("expression argument errors name the operation and the argument",
          "[expression]") {
  CHECK(failure("size(8:1, 4:1)") ==
        "column 1: size takes 1 argument(s), got 2");
  CHECK(failure("complement()") ==
        "column 1: complement takes 1 to 2 argument(s), got 0");
  CHECK(failure("make_layout()") ==
        "column 1: make_layout takes at least one argument");
  CHECK(failure("complement(4:2, 8:1)") ==
        "column 17: expected an integer, found a layout");
  CHECK(failure("filter(0)") ==
        "column 8: expected a positive integer as a layout");
  CHECK(failure("filter((2,0))") ==
        "column 8: expected a shape of positive integers");
  CHECK(failure("filter(is_injective(4:1))") ==
        "column 8: expected a layout, found a boolean");
  CHECK(failure("filter(Sw<1,1,1> o 8:1)") ==
        "column 8: expected a layout without a swizzle here");
  CHECK(failure("blocked_product(4:1, [2:1])") ==
        "column 22: blocked_product takes a layout, not a tiler");
  CHECK(failure("composition(Sw<1,1,1> o 8:1, [2:1])") ==
        "column 13: a swizzled layout composes only with a layout, not with "
        "a tiler");
  CHECK(failure("with_shape(8:1, 4:1)") ==
        "column 17: expected a shape, found a layout");
  CHECK(failure("smem_swizzle_atom(48)") ==
        "column 19: expected a swizzle width 0, 32, 64 or 128");
}

TEST_CASE("expression evaluation errors", "[expression]") {
  CHECK(failure("eval(8:1, 8)") == "column 11: index 8 is outside [0, 8)");
  CHECK(failure("eval((4,2):(1,4), (1,2))") ==
        "column 19: coordinate 2 is outside the mode of size 2");
  CHECK(failure("eval((4,2):(1,4), (1,1,1))") ==
        "column 19: coordinate (1,1,1) has a different rank from the shape "
        "(4,2)");
  CHECK(failure("eval(8:1, 4:1)") ==
        "column 11: expected an index or a coordinate");
  // The algebra's own messages pass through.
  CHECK_THAT(failure("composition((4,6):(1,5), 4:3)"),
             Catch::StartsWith("composition: stride 3 of the right-hand "
                               "layout does not divide shape 4 of the "
                               "left-hand layout's mode 0"));
  CHECK(failure("left_inverse((2,2):(0,1))") ==
        "left_inverse: the layout (2,2):(0,1) is not injective");
  // Results that would overflow int64 arithmetic are refused.
  // 2^24 * 2^25 elements: each argument is fine, the result is not.
  CHECK(failure("make_layout(16777216:1, 33554432:1)") ==
        "the result size exceeds 2^48");
}

TEST_CASE("expression nesting is bounded", "[expression]") {
  std::string ok8 = "8:1";
  for (int k = 0; k < 30; ++k)
    ok8 = "coalesce(" + ok8 + ")";
  CHECK(show(ok8) == "8:1");
  std::string deep = "8:1";
  for (int k = 0; k < 40; ++k)
    deep = "coalesce(" + deep + ")";
  CHECK_THAT(failure(deep), Catch::Contains("at most 32 nested calls"));
}

TEST_CASE("expression prefixes and mutations fail cleanly", "[expression]") {
  // Every prefix of a valid expression either evaluates or is a message.
  const std::string text =
      "composition(Sw<3,3,3> o (8,64):(64,1), make_layout((8,8), (1,8)))";
  for (size_t n = 0; n <= text.size(); ++n) {
    auto r = evaluateExpression(text.substr(0, n));
    if (!r)
      CHECK(!llvm::toString(r.takeError()).empty());
  }
  // Single-character substitutions with the language's punctuation.
  for (size_t n = 0; n < text.size(); ++n)
    for (char c : std::string("(),:[]<o-0 x")) {
      std::string t = text;
      t[n] = c;
      auto r = evaluateExpression(t);
      if (!r)
        CHECK(!llvm::toString(r.takeError()).empty());
    }
}
