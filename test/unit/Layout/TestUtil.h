//===- TestUtil.h - Helpers for the layout tests ----------------*- C++ -*-===//
#ifndef ARGUS_TEST_LAYOUT_TESTUTIL_H
#define ARGUS_TEST_LAYOUT_TESTUTIL_H

#include "argus/Layout/Layout.h"
#include "argus/Layout/Parse.h"

#include <catch2/catch.hpp>

#include <random>
#include <set>

namespace argus::layout::test {

/// Parses a layout or fails the test.
inline Layout L(const std::string &s) {
  auto r = parsePlainLayout(s);
  if (!r) {
    FAIL("cannot parse " << s << ": " << llvm::toString(r.takeError()));
  }
  return *r;
}

/// Unwraps an Expected or fails the test with its message.
template <typename T> T ok(llvm::Expected<T> e, const std::string &what) {
  if (!e) {
    FAIL(what << ": " << llvm::toString(e.takeError()));
  }
  return std::move(*e);
}

/// The error message of a failed Expected ("" on success).
template <typename T> std::string errorOf(llvm::Expected<T> e) {
  if (e)
    return "";
  return llvm::toString(e.takeError());
}

/// Random hierarchical layouts with small sizes (so whole domains can be
/// enumerated).
class Gen {
public:
  explicit Gen(unsigned seed) : rng(seed) {}
  int64_t pick(std::initializer_list<int64_t> xs) {
    std::vector<int64_t> v(xs);
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  }
  int uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  }
  bool coin(double p = 0.5) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
  }

  /// Shape/stride trees; strides from {0,1,2,3,4,6,8,...} or compact.
  Layout layout(int maxDepth, int maxRank, int64_t maxSize,
                bool powersOfTwo = false) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      IntTuple s, d;
      build(maxDepth, maxRank, powersOfTwo, s, d);
      __int128 size = 1;
      for (int64_t x : s.flatten())
        size = std::min<__int128>(size * x, __int128(1) << 62);
      if (size <= maxSize)
        return Layout(s, d);
    }
    return Layout(4, 1);
  }
  /// A compact layout (random mode order) of a random shape: injective.
  Layout injective(int maxDepth, int maxRank, int64_t maxSize,
                   bool gaps = true) {
    Layout l = layout(maxDepth, maxRank, maxSize);
    auto leaves = l.flatModes();
    std::vector<size_t> order(leaves.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> strides(leaves.size());
    int64_t cur = 1;
    for (size_t k : order) {
      if (gaps && coin(0.3))
        cur *= pick({2, 3});
      strides[k] = cur;
      cur *= leaves[k].first;
    }
    size_t pos = 0;
    IntTuple st = restride(l.shape(), strides, pos);
    return Layout(l.shape(), st);
  }

  std::mt19937 rng;

private:
  void build(int depth, int maxRank, bool p2, IntTuple &s, IntTuple &d) {
    if (depth == 0 || coin(0.35)) {
      s = p2 ? pick({1, 2, 4, 8}) : pick({1, 2, 3, 4, 5, 6, 8});
      d = p2 ? pick({0, 1, 2, 4, 8, 16, 32})
             : pick({0, 1, 2, 3, 4, 6, 8, 12, 16, 24});
      return;
    }
    int r = uniform(1, maxRank);
    std::vector<IntTuple> ss(r), dd(r);
    for (int i = 0; i < r; ++i)
      build(depth - 1, maxRank, p2, ss[i], dd[i]);
    s = IntTuple::tuple(ss);
    d = IntTuple::tuple(dd);
  }
  static IntTuple restride(const IntTuple &s, const std::vector<int64_t> &st,
                           size_t &pos) {
    if (s.isInt())
      return IntTuple(st[pos++]);
    std::vector<IntTuple> e;
    for (const IntTuple &x : s.elements())
      e.push_back(restride(x, st, pos));
    return IntTuple::tuple(e);
  }
};

/// A tile for divide tests: size dividing n, possibly with a gap.
inline Layout divisorTile(Gen &g, int64_t n) {
  std::vector<int64_t> divs;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      divs.push_back(d);
  int64_t t = divs[g.uniform(0, int(divs.size()) - 1)];
  int64_t rest = n / t;
  // Split t = t1 * t2 and leave a gap g between the parts when rest allows.
  int64_t t1 = 1;
  for (int64_t d = 1; d <= t; ++d)
    if (t % d == 0 && g.coin(0.4))
      t1 = d;
  int64_t t2 = t / t1, gap = 1;
  for (int64_t d = 2; d <= rest; ++d)
    if (rest % d == 0 && g.coin(0.3)) {
      gap = d;
      break;
    }
  if (t2 == 1 || t1 == 1)
    return g.coin() || gap == 1 ? Layout(t, 1) : Layout(t, gap);
  return Layout(IntTuple::tuple({t1, t2}), IntTuple::tuple({1, t1 * gap}));
}

inline std::set<int64_t> image(const Layout &l) {
  std::set<int64_t> r;
  for (int64_t i = 0; i < l.size(); ++i)
    r.insert(l(i));
  return r;
}

} // namespace argus::layout::test

#endif
