//===- AlgebraTest.cpp - Shape:stride layout algebra tests ----------------===//
//
// Worked examples are the documented results of the CuTe layout algebra
// tutorial: NVIDIA CUTLASS documentation, "CuTe Layout Algebra"
// (https://docs.nvidia.com/cutlass/media/docs/cpp/cute/02_layout_algebra.html),
// sections "Coalesce", "Composition", "Complement", "Division (Tiling)" and
// "Product (Tiling)". Property tests enumerate whole domains of generated
// layouts.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace argus::layout;
using namespace argus::layout::test;

TEST_CASE("IntTuple basics", "[layout]") {
  IntTuple t = ok(parseIntTuple("(4,(2,8))"), "parse");
  CHECK(t.rank() == 2);
  CHECK(t.depth() == 2);
  CHECK(t.product() == 64);
  CHECK(t.flatten() == std::vector<int64_t>{4, 2, 8});
  CHECK(t.str() == "(4,(2,8))");
  CHECK(IntTuple(5).rank() == 1);
  CHECK(IntTuple(5).depth() == 0);
}

TEST_CASE("Layout evaluation", "[layout]") {
  Layout l = L("(4,(2,8)):(2,(1,8))");
  CHECK(l.size() == 64);
  CHECK(l.cosize() == 64);
  CHECK(l.rank() == 2);
  CHECK(l.depth() == 2);
  CHECK(l.mode(1).str() == "(2,8):(1,8)");
  CHECK(l(0) == 0);
  CHECK(l(1) == 2);
  CHECK(l(4) == 1);
  CHECK(l(8) == 8);
  // Hierarchical and weakly congruent coordinates.
  CHECK(l(IntTuple::tuple({3, IntTuple::tuple({1, 2})})) == 6 + 1 + 16);
  CHECK(l(IntTuple::tuple({3, 5})) == 6 + 1 + 16);
  CHECK(L("(8,64):(64,1)")(IntTuple::tuple({2, 3})) == 131);
  // Hierarchical coordinates agree with 1-D indices on generated layouts.
  Gen g(7);
  for (int n = 0; n < 200; ++n) {
    Layout x = g.layout(3, 3, 256);
    for (int64_t i = 0; i < x.size(); ++i) {
      // Split i colexicographically into per-mode coordinates.
      std::vector<IntTuple> c;
      int64_t rem = i;
      for (size_t m = 0; m < x.rank(); ++m) {
        int64_t sm = x.mode(m).size();
        c.push_back(m + 1 == x.rank() ? rem : rem % sm);
        rem /= sm;
      }
      IntTuple coord = x.shape().isInt() ? c[0] : IntTuple::tuple(c);
      REQUIRE(x(coord) == x(i));
    }
  }
}

TEST_CASE("CuTe documentation examples", "[layout][docs]") {
  // Coalesce.
  CHECK(coalesce(L("(2,(1,6)):(1,(6,2))")).str() == "12:1");
  CHECK(coalesceModes(L("(2,(1,6)):(1,(6,2))")).str() == "(2,6):(1,2)");
  // Composition.
  CHECK(ok(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)")), "comp").str() ==
        "((2,2),3):((24,2),8)");
  CHECK(ok(composition(L("(12,(4,8)):(59,(13,1))"), Tiler{L("3:4"), L("8:2")}),
           "comp tiler")
            .str() == "(3,(2,4)):(236,(26,1))");
  CHECK(ok(composition(L("20:2"), L("(5,4):(4,1)")), "c").str() ==
        "(5,4):(8,2)");
  CHECK(ok(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)")), "c").str() ==
        "(5,(2,2)):(16,(80,4))");
  // Complement.
  CHECK(ok(complement(L("4:1"), 24), "c").str() == "6:4");
  CHECK(ok(complement(L("6:4"), 24), "c").str() == "4:1");
  CHECK(ok(complement(L("4:2"), 24), "c").str() == "(2,3):(1,8)");
  CHECK(ok(complement(L("(2,4):(1,6)"), 24), "c").str() == "3:2");
  CHECK(ok(complement(L("(2,2):(1,6)"), 24), "c").str() == "(3,2):(2,12)");
  // (4,6):(1,4) is already complete: the documented 1:24 and our 1:0 are the
  // same function on the one-point domain.
  CHECK(ok(complement(L("(4,6):(1,4)"), 24), "c").size() == 1);
  // Division.
  CHECK(ok(logicalDivide(L("(4,2,3):(2,1,8)"), L("4:2")), "ld").str() ==
        "((2,2),(2,3)):((4,1),(2,8))");
  Layout a = L("(9,(4,8)):(59,(13,1))");
  Tiler t{L("3:3"), L("(2,4):(1,8)")};
  CHECK(ok(logicalDivide(a, t), "ld").str() ==
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  CHECK(ok(zippedDivide(a, t), "zd").str() ==
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  CHECK(ok(tiledDivide(a, t), "td").str() ==
        "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  CHECK(ok(flatDivide(a, t), "fd").str() ==
        "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  // Product.
  CHECK(ok(logicalProduct(L("(2,2):(4,1)"), L("6:1")), "lp").str() ==
        "((2,2),(2,3)):((4,1),(2,8))");
  CHECK(ok(blockedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)")), "bp").str() ==
        "((2,3),(5,4)):((5,10),(1,30))");
  CHECK(ok(rakedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)")), "rp").str() ==
        "((3,2),(4,5)):((10,5),(30,1))");
}

TEST_CASE("Failed conditions are errors, never wrong layouts",
          "[layout][errors]") {
  CHECK(errorOf(composition(L("(4,6):(1,5)"), L("4:3"))) ==
        "composition: stride 3 of the right-hand layout does not divide "
        "shape 4 of the left-hand layout's mode 0 (nor is divisible by it)");
  CHECK_THAT(errorOf(composition(L("(4,6):(1,5)"), L("3:1"))),
             Catch::Contains("shape 3 of the right-hand layout does not "
                             "divide shape 4"));
  CHECK_THAT(errorOf(complement(L("(2,2):(1,1)"), 8)),
             Catch::Contains("not a multiple of 2"));
  CHECK_THAT(errorOf(complement(L("4:-1"), 8)),
             Catch::Contains("negative stride"));
  CHECK_THAT(errorOf(leftInverse(L("(2,2):(0,1)"))),
             Catch::Contains("not injective"));
  CHECK_THAT(errorOf(withShape(L("8:1"), IntTuple::tuple({2, 2}))),
             Catch::Contains("has size 4 but the layout has size 8"));
  CHECK_THAT(errorOf(logicalDivide(L("(4,4):(1,4)"),
                                   Tiler{L("2:1"), L("2:1"), L("2:1")})),
             Catch::Contains("tiler has 3 modes but the layout has rank 2"));
}

TEST_CASE("values() is the function over the whole domain", "[layout][prop]") {
  Gen g(7);
  for (int n = 0; n < 400; ++n) {
    Layout l = g.layout(3, 3, 512);
    std::vector<int64_t> v = l.values();
    REQUIRE(static_cast<int64_t>(v.size()) == l.size());
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(v[i] == l(i));
  }
  CHECK(L("1:0").values() == std::vector<int64_t>{0});
  CHECK(L("(2,(2,2)):(4,(1,2))").values() ==
        std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7});
}

TEST_CASE("coalesce and filter preserve the function", "[layout][prop]") {
  Gen g(1);
  for (int n = 0; n < 400; ++n) {
    Layout l = g.layout(3, 3, 512);
    Layout c = coalesce(l);
    REQUIRE(c.size() == l.size());
    REQUIRE(c.depth() <= 1);
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(c(i) == l(i));
    Layout m = coalesceModes(l);
    REQUIRE(m.rank() == l.rank());
    for (int64_t i = 0; i < l.size(); ++i)
      REQUIRE(m(i) == l(i));
    Layout f = filter(l);
    REQUIRE(image(f) == image(l));
    for (auto [s, d] : f.flatModes())
      REQUIRE((d != 0 || f.size() == 1));
  }
}

TEST_CASE("composition computes A(B(i))", "[layout][prop]") {
  Gen g(2);
  int okCount = 0;
  for (int n = 0; n < 3000; ++n) {
    Layout a = g.coin() ? g.injective(3, 3, 256) : g.layout(3, 3, 256);
    Layout b = g.layout(2, 3, 64);
    auto r = composition(a, b);
    if (!r) {
      llvm::consumeError(r.takeError());
      continue;
    }
    ++okCount;
    REQUIRE(r->size() == b.size());
    if (b.shape().isTuple())
      REQUIRE(r->rank() == b.rank());
    for (int64_t i = 0; i < b.size(); ++i) {
      INFO(a.str() << " o " << b.str() << " = " << r->str() << " at " << i);
      REQUIRE((*r)(i) == a(b(i)));
    }
  }
  CHECK(okCount > 300);
}

TEST_CASE("complement is ordered, disjoint and completes", "[layout][prop]") {
  Gen g(3);
  for (int n = 0; n < 500; ++n) {
    Layout l = g.injective(3, 3, 128);
    int64_t hi = l.cosize() * g.pick({1, 2, 3, 4});
    Layout c = ok(complement(l, hi), "complement of " + l.str());
    INFO(l.str() << " complement to " << hi << " = " << c.str());
    // Ordered: strides strictly increasing.
    auto cm = c.flatModes();
    for (size_t i = 1; i < cm.size(); ++i)
      REQUIRE(cm[i - 1].second < cm[i].second);
    // Disjoint images (only 0 shared) and together a bijection onto a
    // contiguous range covering [0, hi).
    Layout both = Layout::concat({l, c});
    REQUIRE(isInjective(both));
    REQUIRE(isBijective(both));
    REQUIRE(both.size() >= hi);
    auto li = image(l);
    for (int64_t i = 1; i < c.size(); ++i)
      REQUIRE(li.count(c(i)) == 0);
  }
}

TEST_CASE("divide and product are compositions of the right pieces",
          "[layout][prop]") {
  Gen g(4);
  int divOk = 0, prodOk = 0;
  for (int n = 0; n < 1500; ++n) {
    Layout a = g.layout(2, 3, 256);
    Layout b = g.coin(0.8) ? divisorTile(g, a.size()) : g.injective(2, 2, 16);
    auto d = logicalDivide(a, b);
    if (d) {
      ++divOk;
      Layout c = ok(complement(b, a.size()), "complement");
      Layout expect = ok(composition(a, Layout::concat({b, c})), "composition");
      REQUIRE(*d == expect);
      for (int64_t i = 0; i < b.size(); ++i)
        REQUIRE(d->mode(0)(i) == a(b(i)));
      auto z = ok(zippedDivide(a, b), "zipped");
      REQUIRE(z == *d);
    } else {
      llvm::consumeError(d.takeError());
    }
    Layout pa = g.injective(2, 2, 16);
    Layout pb = g.layout(2, 2, 12);
    auto p = logicalProduct(pa, pb);
    if (p) {
      ++prodOk;
      REQUIRE(p->mode(0) == pa);
      Layout c = ok(complement(pa, pa.size() * pb.cosize()), "complement");
      for (int64_t j = 0; j < pb.size(); ++j)
        for (int64_t i = 0; i < pa.size(); ++i)
          REQUIRE((*p)(i + pa.size() * j) == pa(i) + c(pb(j)));
      // Blocked and raked products are rearrangements of the same points.
      auto bp = ok(blockedProduct(pa, pb), "blocked");
      auto rp = ok(rakedProduct(pa, pb), "raked");
      auto lpImage = image(*p);
      REQUIRE(image(bp) == lpImage);
      REQUIRE(image(rp) == lpImage);
      REQUIRE(bp.size() == p->size());
    } else {
      llvm::consumeError(p.takeError());
    }
  }
  CHECK(divOk > 200);
  CHECK(prodOk > 200);
}

TEST_CASE("divide by tiler is the per-mode divide", "[layout][prop]") {
  Gen g(5);
  int okCount = 0;
  for (int n = 0; n < 600; ++n) {
    Layout a = g.layout(2, 3, 256);
    if (a.rank() < 2)
      continue;
    Tiler t{divisorTile(g, a.mode(0).size()), divisorTile(g, a.mode(1).size())};
    auto d = logicalDivide(a, t);
    if (!d) {
      llvm::consumeError(d.takeError());
      continue;
    }
    ++okCount;
    for (size_t i = 0; i < 2; ++i)
      REQUIRE(d->mode(i) == ok(logicalDivide(a.mode(i), t[i]), "mode"));
    auto z = ok(zippedDivide(a, t), "zipped");
    auto f = ok(flatDivide(a, t), "flat");
    REQUIRE(z.size() == a.size());
    REQUIRE(image(z) == image(a));
    REQUIRE(f.size() == a.size());
    REQUIRE(image(f) == image(a));
  }
  CHECK(okCount > 100);
}

TEST_CASE("inverses invert", "[layout][prop]") {
  Gen g(6);
  int leftOk = 0;
  for (int n = 0; n < 600; ++n) {
    Layout l = g.coin() ? g.injective(3, 3, 256) : g.layout(3, 3, 256);
    Layout r = ok(rightInverse(l), "right_inverse " + l.str());
    for (int64_t i = 0; i < r.size(); ++i)
      REQUIRE(l(r(i)) == i);
    if (isInjective(l)) {
      auto li = leftInverse(l);
      if (!li) {
        llvm::consumeError(li.takeError());
        continue;
      }
      ++leftOk;
      for (int64_t i = 0; i < l.size(); ++i)
        REQUIRE((*li)(l(i)) == i);
    }
  }
  CHECK(leftOk > 200);
  // A bijection's right inverse is its inverse.
  Layout b = L("(4,(2,8)):(2,(1,8))");
  Layout rb = ok(rightInverse(b), "ri");
  CHECK(rb.size() == 64);
  for (int64_t i = 0; i < 64; ++i)
    CHECK(rb(b(i)) == i);
}

TEST_CASE("with_shape reshapes without changing the function",
          "[layout][prop]") {
  Layout l = L("(8,64):(64,1)");
  Layout r = ok(withShape(l, IntTuple::tuple({IntTuple::tuple({4, 2}), 64})),
                "with_shape");
  CHECK(r.str() == "((4,2),64):((64,256),1)");
  Gen g(8);
  for (int n = 0; n < 200; ++n) {
    Layout x = g.injective(2, 3, 256, false);
    // Reshape to a flat shape of the same size.
    auto w = withShape(x, IntTuple(x.size()));
    if (!w) {
      llvm::consumeError(w.takeError());
      continue;
    }
    for (int64_t i = 0; i < x.size(); ++i)
      REQUIRE((*w)(i) == x(i));
  }
}

TEST_CASE("predicates agree with enumeration", "[layout][prop]") {
  CHECK(isBijective(L("(4,(2,8)):(2,(1,8))")));
  CHECK_FALSE(isInjective(L("(2,2):(1,1)")));
  CHECK(isSurjective(L("(2,2):(1,1)")));
  CHECK_FALSE(isSurjective(L("4:2")));
  CHECK(isInjective(L("(3,2):(2,3)")));
  Gen g(9);
  for (int n = 0; n < 300; ++n) {
    Layout l = g.layout(3, 3, 128);
    std::set<int64_t> im = image(l);
    REQUIRE(isInjective(l) == (int64_t(im.size()) == l.size()));
    bool onto = int64_t(im.size()) == l.cosize() && *im.begin() == 0 &&
                *im.rbegin() == l.cosize() - 1;
    REQUIRE(isSurjective(l) == onto);
  }
}
