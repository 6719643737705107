//===- Layout.cpp - Shape:stride layouts and their algebra ---------------===//
//
// Part of Argus. Algorithms follow the CuTe semantics (column-major
// coordinates); the implementation is written from the mathematical
// definitions (see docs/Layout.md).
//
//===----------------------------------------------------------------------===//
#include "argus/Layout/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cassert>

using namespace argus::layout;
using llvm::Error;
using llvm::Expected;

namespace {
using Mode = std::pair<int64_t, int64_t>; // (shape, stride)

Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

bool mulOk(int64_t a, int64_t b, int64_t &r) {
  if (__builtin_mul_overflow(a, b, &r))
    return false;
  return r <= kMaxExtent && r >= -kMaxExtent;
}

/// Layout from a list of flat modes: 1:0 when empty, s:d for one mode, a
/// tuple otherwise.
Layout fromModes(llvm::ArrayRef<Mode> modes) {
  if (modes.empty())
    return Layout(1, 0);
  if (modes.size() == 1)
    return Layout(modes[0].first, modes[0].second);
  std::vector<IntTuple> s, d;
  s.reserve(modes.size());
  d.reserve(modes.size());
  for (auto [a, b] : modes) {
    s.push_back(a);
    d.push_back(b);
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

void flatModesInto(const IntTuple &s, const IntTuple &d,
                   std::vector<Mode> &out) {
  if (s.isInt()) {
    out.push_back({s.value(), d.value()});
    return;
  }
  for (size_t i = 0; i < s.rank(); ++i)
    flatModesInto(s[i], d[i], out);
}

int64_t eval1D(const IntTuple &s, const IntTuple &d, int64_t idx) {
  if (s.isInt())
    return idx * d.value();
  int64_t r = 0;
  size_t n = s.rank();
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 == n)
      return r + eval1D(s[i], d[i], idx);
    int64_t si = s[i].product();
    r += eval1D(s[i], d[i], idx % si);
    idx /= si;
  }
  return r;
}

int64_t evalCoord(const IntTuple &s, const IntTuple &d, const IntTuple &c) {
  if (c.isInt())
    return eval1D(s, d, c.value());
  if (s.isInt()) {
    assert(c.rank() == 1 && "coordinate not congruent with the shape");
    return evalCoord(s, d, c[0]);
  }
  assert(c.rank() == s.rank() && "coordinate rank differs from shape rank");
  int64_t r = 0;
  for (size_t i = 0; i < s.rank(); ++i)
    r += evalCoord(s[i], d[i], c[i]);
  return r;
}

void strTo(const IntTuple &t, std::string &out) {
  if (t.isInt()) {
    out += std::to_string(t.value());
    return;
  }
  out += '(';
  for (size_t i = 0; i < t.rank(); ++i) {
    if (i)
      out += ',';
    strTo(t[i], out);
  }
  out += ')';
}

IntTuple compactStrides(const IntTuple &s, int64_t &cur) {
  if (s.isInt()) {
    IntTuple r(cur);
    cur *= s.value();
    return r;
  }
  std::vector<IntTuple> e;
  for (const IntTuple &x : s.elements())
    e.push_back(compactStrides(x, cur));
  return IntTuple::tuple(std::move(e));
}

IntTuple compactStridesRev(const IntTuple &s, int64_t &cur) {
  if (s.isInt()) {
    IntTuple r(cur);
    cur *= s.value();
    return r;
  }
  std::vector<IntTuple> e(s.rank());
  for (size_t i = s.rank(); i-- > 0;)
    e[i] = compactStridesRev(s[i], cur);
  return IntTuple::tuple(std::move(e));
}
} // namespace

//===----------------------------------------------------------------------===//
// IntTuple
//===----------------------------------------------------------------------===//

IntTuple IntTuple::tuple(std::vector<IntTuple> elems) {
  IntTuple t;
  t.isLeaf = false;
  t.elems = std::move(elems);
  return t;
}

const IntTuple &IntTuple::operator[](size_t i) const {
  if (isLeaf) {
    assert(i == 0 && "mode index out of range");
    return *this;
  }
  assert(i < elems.size() && "mode index out of range");
  return elems[i];
}

int IntTuple::depth() const {
  if (isLeaf)
    return 0;
  int d = 0;
  for (const IntTuple &e : elems)
    d = std::max(d, e.depth());
  return d + 1;
}

int64_t IntTuple::product() const {
  if (isLeaf)
    return val;
  // Saturates at INT64_MAX instead of overflowing.
  int64_t p = 1;
  for (const IntTuple &e : elems)
    if (__builtin_mul_overflow(p, e.product(), &p))
      return INT64_MAX;
  return p;
}

void IntTuple::flattenInto(std::vector<int64_t> &out) const {
  if (isLeaf) {
    out.push_back(val);
    return;
  }
  for (const IntTuple &e : elems)
    e.flattenInto(out);
}

std::vector<int64_t> IntTuple::flatten() const {
  std::vector<int64_t> r;
  flattenInto(r);
  return r;
}

bool IntTuple::congruent(const IntTuple &o) const {
  if (isLeaf || o.isLeaf)
    return isLeaf == o.isLeaf;
  if (elems.size() != o.elems.size())
    return false;
  for (size_t i = 0; i < elems.size(); ++i)
    if (!elems[i].congruent(o.elems[i]))
      return false;
  return true;
}

std::string IntTuple::str() const {
  std::string s;
  strTo(*this, s);
  return s;
}

bool IntTuple::operator==(const IntTuple &o) const {
  if (isLeaf != o.isLeaf)
    return false;
  if (isLeaf)
    return val == o.val;
  return elems == o.elems;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout::Layout(IntTuple shape, IntTuple stride)
    : shp(std::move(shape)), strd(std::move(stride)) {
  assert(shp.congruent(strd) && "shape and stride must be congruent");
}

Layout Layout::compact(const IntTuple &shape) {
  int64_t cur = 1;
  IntTuple st = compactStrides(shape, cur);
  return Layout(shape, st);
}

Layout Layout::compactRowMajor(const IntTuple &shape) {
  int64_t cur = 1;
  IntTuple st = compactStridesRev(shape, cur);
  return Layout(shape, st);
}

Layout Layout::concat(std::vector<Layout> modes) {
  std::vector<IntTuple> s, d;
  s.reserve(modes.size());
  d.reserve(modes.size());
  for (Layout &m : modes) {
    s.push_back(std::move(m.shp));
    d.push_back(std::move(m.strd));
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

std::vector<Layout> Layout::modes() const {
  std::vector<Layout> r;
  for (size_t i = 0; i < rank(); ++i)
    r.push_back(mode(i));
  return r;
}

std::vector<std::pair<int64_t, int64_t>> Layout::flatModes() const {
  std::vector<Mode> r;
  flatModesInto(shp, strd, r);
  return r;
}

int64_t Layout::cosize() const {
  int64_t c = 1;
  for (auto [s, d] : flatModes())
    if (d > 0)
      c += (s - 1) * d;
  return c;
}

int64_t Layout::operator()(int64_t idx) const { return eval1D(shp, strd, idx); }

int64_t Layout::operator()(const IntTuple &coord) const {
  return evalCoord(shp, strd, coord);
}

std::vector<int64_t> Layout::values() const {
  std::vector<Mode> modes = flatModes();
  std::vector<int64_t> out(static_cast<size_t>(size()));
  std::vector<int64_t> counter(modes.size(), 0);
  int64_t v = 0;
  for (int64_t &o : out) {
    o = v;
    // Colexicographic successor: the first mode that does not wrap steps.
    for (size_t k = 0; k < modes.size(); ++k) {
      auto [s, d] = modes[k];
      if (++counter[k] < s) {
        v += d;
        break;
      }
      v -= (s - 1) * d;
      counter[k] = 0;
    }
  }
  return out;
}

std::string Layout::str() const {
  std::string s;
  strTo(shp, s);
  s += ':';
  strTo(strd, s);
  return s;
}

//===----------------------------------------------------------------------===//
// Predicates
//===----------------------------------------------------------------------===//

namespace {
/// The sorted-stride criterion shared by complement and the large-layout
/// predicates: after dropping size-1 modes, sorting by stride, each stride is
/// a multiple of the extent of the modes before it.
bool sortedDivisible(const Layout &l, bool requireContiguous) {
  std::vector<Mode> m;
  for (auto [s, d] : l.flatModes()) {
    if (s == 1)
      continue;
    if (d <= 0)
      return false;
    m.push_back({s, d});
  }
  llvm::sort(m, [](Mode a, Mode b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  int64_t cur = 1;
  for (auto [s, d] : m) {
    if (requireContiguous ? d != cur : d % cur != 0)
      return false;
    if (!mulOk(s, d, cur))
      return false;
  }
  return true;
}
} // namespace

bool argus::layout::isInjective(const Layout &l) {
  int64_t n = l.size();
  if (n <= (int64_t(1) << 22)) {
    std::vector<int64_t> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = l(i);
    llvm::sort(v);
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  }
  return sortedDivisible(l, /*requireContiguous=*/false);
}

bool argus::layout::isSurjective(const Layout &l) {
  int64_t c = l.cosize(), n = l.size();
  if (c <= (int64_t(1) << 24) && n <= (int64_t(1) << 26)) {
    std::vector<bool> hit(c, false);
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = l(i);
      if (v >= 0 && v < c && !hit[v]) {
        hit[v] = true;
        ++count;
      }
    }
    return count == c;
  }
  // Drop stride-0 modes: they do not change the image.
  std::vector<Mode> m;
  for (auto [s, d] : l.flatModes())
    if (d != 0)
      m.push_back({s, d});
  return sortedDivisible(fromModes(m), /*requireContiguous=*/true);
}

bool argus::layout::isBijective(const Layout &l) {
  for (auto [s, d] : l.flatModes())
    if (d < 0 && s > 1)
      return false;
  return l.size() == l.cosize() && isInjective(l);
}

//===----------------------------------------------------------------------===//
// Coalesce / filter
//===----------------------------------------------------------------------===//

Layout argus::layout::coalesce(const Layout &l) {
  std::vector<Mode> out;
  for (auto [s, d] : l.flatModes()) {
    if (s == 1)
      continue;
    if (!out.empty() && out.back().first * out.back().second == d) {
      out.back().first *= s;
      continue;
    }
    out.push_back({s, d});
  }
  return fromModes(out);
}

Layout argus::layout::coalesceModes(const Layout &l) {
  if (l.shape().isInt())
    return coalesce(l);
  std::vector<Layout> m;
  for (size_t i = 0; i < l.rank(); ++i)
    m.push_back(coalesce(l.mode(i)));
  return Layout::concat(m);
}

Layout argus::layout::filter(const Layout &l) {
  std::vector<Mode> out;
  for (auto [s, d] : l.flatModes())
    if (s != 1 && d != 0)
      out.push_back({s, d});
  return coalesce(fromModes(out));
}

//===----------------------------------------------------------------------===//
// Composition
//===----------------------------------------------------------------------===//

namespace {
/// How much of each (non-last) mode of the left-hand layout the leaves of
/// the right-hand layout use: the largest digit value they add up to. The
/// by-mode result equals A(B(c)) exactly when no digit overflows its mode.
struct DigitUsage {
  std::vector<int64_t> maxDigit;
};

/// Flatten A for composition: drop size-1 modes (except the last, whose
/// stride extends A beyond its size) and merge contiguous modes.
std::vector<Mode> compositionModes(const Layout &a) {
  std::vector<Mode> flat = a.flatModes(), out;
  for (size_t i = 0; i < flat.size(); ++i) {
    auto [s, d] = flat[i];
    bool last = i + 1 == flat.size();
    if (s == 1 && !last)
      continue;
    if (!out.empty() && out.back().first * out.back().second == d) {
      out.back().first *= s;
      continue;
    }
    out.push_back({s, d});
  }
  return out;
}

/// A (flat composition modes) composed with the leaf s:d.
Expected<Layout> composeLeaf(const std::vector<Mode> &a, int64_t s, int64_t d,
                             DigitUsage &usage) {
  if (s == 1)
    return Layout(1, 0);
  if (d == 0)
    return Layout(s, 0);
  if (d < 0)
    return fail("composition: negative stride " + llvm::Twine(d) +
                " of the right-hand layout is not supported");
  llvm::SmallVector<Mode, 16> m(a.begin(), a.end());
  size_t n = m.size();
  llvm::SmallVector<int64_t, 16> mult(n, 1);
  // Step 1: divide out the stride d from A's modes, left to right.
  int64_t rest = d;
  for (size_t i = 0; i + 1 < n && rest > 1; ++i) {
    int64_t si = m[i].first;
    if (si % rest == 0) {
      int64_t nd;
      if (!mulOk(m[i].second, rest, nd))
        return fail("composition: stride overflow");
      m[i] = {si / rest, nd};
      mult[i] = rest;
      rest = 1;
    } else if (rest % si == 0) {
      rest /= si;
      m[i].first = 1;
    } else {
      std::string what = "stride " + std::to_string(d);
      if (rest != d)
        what += " (remaining factor " + std::to_string(rest) + ")";
      return fail("composition: " + what +
                  " of the right-hand layout does not divide shape " +
                  llvm::Twine(si) + " of the left-hand layout's mode " +
                  llvm::Twine(i) + " (nor is divisible by it)");
    }
  }
  if (rest > 1) {
    int64_t nd;
    if (!mulOk(m[n - 1].second, rest, nd))
      return fail("composition: stride overflow");
    m[n - 1].second = nd;
  }
  // Step 2: keep the first s points of what is left.
  llvm::SmallVector<Mode, 8> out;
  int64_t restS = s;
  auto use = [&](size_t i, int64_t t) {
    if (i + 1 < n)
      usage.maxDigit[i] += mult[i] * (t - 1);
  };
  for (size_t i = 0; i < n && restS > 1; ++i) {
    auto [si, di] = m[i];
    if (i + 1 == n) {
      out.push_back({restS, di});
      restS = 1;
      break;
    }
    if (si == 1)
      continue;
    if (restS % si == 0) {
      out.push_back({si, di});
      use(i, si);
      restS /= si;
    } else if (si % restS == 0) {
      out.push_back({restS, di});
      use(i, restS);
      restS = 1;
    } else {
      std::string what = "shape " + std::to_string(s);
      if (restS != s)
        what += " (remaining factor " + std::to_string(restS) + ")";
      return fail("composition: " + what +
                  " of the right-hand layout does not divide shape " +
                  llvm::Twine(si) + " of the left-hand layout's mode " +
                  llvm::Twine(i) +
                  " (after dividing by the stride), nor is divisible by it");
    }
  }
  return fromModes(out);
}

Expected<Layout> composeRec(const std::vector<Mode> &a, const IntTuple &s,
                            const IntTuple &d, DigitUsage &usage) {
  if (s.isInt())
    return composeLeaf(a, s.value(), d.value(), usage);
  std::vector<Layout> modes;
  for (size_t i = 0; i < s.rank(); ++i) {
    auto r = composeRec(a, s[i], d[i], usage);
    if (!r)
      return r.takeError();
    modes.push_back(std::move(*r));
  }
  return Layout::concat(std::move(modes));
}
} // namespace

Expected<Layout> argus::layout::composition(const Layout &a, const Layout &b) {
  std::vector<Mode> am = compositionModes(a);
  DigitUsage usage{std::vector<int64_t>(am.size(), 0)};
  auto r = composeRec(am, b.shape(), b.stride(), usage);
  if (!r)
    return r.takeError();
  for (size_t k = 0; k + 1 < am.size(); ++k)
    if (usage.maxDigit[k] >= am[k].first)
      return fail("composition: the modes of the right-hand layout overlap "
                  "in mode " +
                  llvm::Twine(k) + " (shape " + llvm::Twine(am[k].first) +
                  ") of the left-hand layout: their offsets add up past the "
                  "mode and carry, so A(B(c)) is not a layout");
  return r;
}

Expected<Layout> argus::layout::composition(const Layout &a, const Tiler &t) {
  if (t.size() > a.rank())
    return fail("composition: tiler has " + llvm::Twine(t.size()) +
                " modes but the layout has rank " + llvm::Twine(a.rank()));
  if (a.shape().isInt())
    return t.empty() ? a : composition(a, t[0]);
  std::vector<Layout> modes;
  for (size_t i = 0; i < a.rank(); ++i) {
    if (i >= t.size()) {
      modes.push_back(a.mode(i));
      continue;
    }
    auto r = composition(a.mode(i), t[i]);
    if (!r)
      return r.takeError();
    modes.push_back(std::move(*r));
  }
  return Layout::concat(std::move(modes));
}

//===----------------------------------------------------------------------===//
// Complement
//===----------------------------------------------------------------------===//

Expected<Layout> argus::layout::complement(const Layout &l, int64_t cosizeHi) {
  if (cosizeHi < 1 || cosizeHi > kMaxExtent)
    return fail("complement: cosize bound " + llvm::Twine(cosizeHi) +
                " is out of range [1, 2^48]");
  std::vector<Mode> m;
  for (auto [s, d] : l.flatModes()) {
    if (s == 1 || d == 0)
      continue;
    if (d < 0)
      return fail("complement: negative stride " + llvm::Twine(d) +
                  " is not supported");
    m.push_back({s, d});
  }
  llvm::sort(m, [](Mode a, Mode b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  std::vector<Mode> out;
  int64_t cur = 1;
  for (auto [s, d] : m) {
    if (d % cur != 0)
      return fail("complement: stride " + llvm::Twine(d) +
                  " is not a multiple of " + llvm::Twine(cur) +
                  ", the extent of the modes with smaller strides (the "
                  "layout is not injective or its modes interleave)");
    out.push_back({d / cur, cur});
    if (!mulOk(s, d, cur))
      return fail("complement: extent overflow");
  }
  out.push_back({(cosizeHi + cur - 1) / cur, cur});
  return coalesce(fromModes(out));
}

Expected<Layout> argus::layout::complement(const Layout &l) {
  return complement(l, l.cosize());
}

//===----------------------------------------------------------------------===//
// Divides
//===----------------------------------------------------------------------===//

Expected<Layout> argus::layout::logicalDivide(const Layout &a,
                                              const Layout &b) {
  auto c = complement(b, a.size());
  if (!c)
    return c.takeError();
  if (b.size() * c->size() != a.size())
    return fail("logical_divide: the tile " + b.str() + " (size " +
                llvm::Twine(b.size()) + ", cosize " + llvm::Twine(b.cosize()) +
                ") does not divide the layout's size " + llvm::Twine(a.size()));
  return composition(a, Layout::concat({b, *c}));
}

namespace {
/// Per-mode logical divides: the (tile, rest) pairs, plus A's extra modes.
Error divideModes(const Layout &a, const Tiler &t, std::vector<Layout> &tiles,
                  std::vector<Layout> &rests, std::vector<Layout> &extra) {
  if (t.empty() || t.size() > a.rank())
    return fail("divide: tiler has " + llvm::Twine(t.size()) +
                " modes but the layout has rank " + llvm::Twine(a.rank()));
  for (size_t i = 0; i < a.rank(); ++i) {
    if (i >= t.size()) {
      extra.push_back(a.mode(i));
      continue;
    }
    auto r = logicalDivide(a.mode(i), t[i]);
    if (!r)
      return r.takeError();
    tiles.push_back(r->mode(0));
    rests.push_back(r->mode(1));
  }
  return Error::success();
}
} // namespace

Expected<Layout> argus::layout::logicalDivide(const Layout &a, const Tiler &t) {
  std::vector<Layout> tiles, rests, extra;
  if (Error e = divideModes(a, t, tiles, rests, extra))
    return std::move(e);
  std::vector<Layout> modes;
  for (size_t i = 0; i < tiles.size(); ++i)
    modes.push_back(Layout::concat({tiles[i], rests[i]}));
  if (a.shape().isInt())
    return modes[0];
  llvm::append_range(modes, extra);
  return Layout::concat(std::move(modes));
}

Expected<Layout> argus::layout::zippedDivide(const Layout &a, const Tiler &t) {
  std::vector<Layout> tiles, rests, extra;
  if (Error e = divideModes(a, t, tiles, rests, extra))
    return std::move(e);
  llvm::append_range(rests, extra);
  return Layout::concat({Layout::concat(tiles), Layout::concat(rests)});
}

Expected<Layout> argus::layout::tiledDivide(const Layout &a, const Tiler &t) {
  std::vector<Layout> tiles, rests, extra;
  if (Error e = divideModes(a, t, tiles, rests, extra))
    return std::move(e);
  std::vector<Layout> modes{Layout::concat(tiles)};
  llvm::append_range(modes, rests);
  llvm::append_range(modes, extra);
  return Layout::concat(std::move(modes));
}

Expected<Layout> argus::layout::flatDivide(const Layout &a, const Tiler &t) {
  std::vector<Layout> tiles, rests, extra;
  if (Error e = divideModes(a, t, tiles, rests, extra))
    return std::move(e);
  std::vector<Layout> modes = tiles;
  llvm::append_range(modes, rests);
  llvm::append_range(modes, extra);
  return Layout::concat(std::move(modes));
}

Expected<Layout> argus::layout::zippedDivide(const Layout &a, const Layout &b) {
  return logicalDivide(a, b);
}

Expected<Layout> argus::layout::tiledDivide(const Layout &a, const Layout &b) {
  return logicalDivide(a, b);
}

Expected<Layout> argus::layout::flatDivide(const Layout &a, const Layout &b) {
  auto r = logicalDivide(a, b);
  if (!r)
    return r.takeError();
  std::vector<Layout> modes = r->mode(0).modes();
  llvm::append_range(modes, r->mode(1).modes());
  return Layout::concat(std::move(modes));
}

//===----------------------------------------------------------------------===//
// Products
//===----------------------------------------------------------------------===//

namespace {
/// complement(A, size(A)*cosize(B)) o B.
Expected<Layout> productRest(const Layout &a, const Layout &b) {
  int64_t hi;
  if (!mulOk(a.size(), b.cosize(), hi))
    return fail("product: size(A)*cosize(B) exceeds 2^48");
  auto c = complement(a, hi);
  if (!c)
    return c.takeError();
  return composition(*c, b);
}

Layout padTo(const Layout &l, size_t r) {
  if (l.rank() >= r)
    return l;
  std::vector<Layout> m = l.modes();
  while (m.size() < r)
    m.push_back(Layout(1, 0));
  return Layout::concat(m);
}

Expected<Layout> blockedOrRaked(const Layout &a, const Layout &b, bool raked) {
  size_t r = std::max(a.rank(), b.rank());
  Layout ap = padTo(a, r), bp = padTo(b, r);
  auto cb = productRest(ap, bp);
  if (!cb)
    return cb.takeError();
  std::vector<Layout> modes;
  for (size_t i = 0; i < r; ++i) {
    // A leaf of B may compose into several modes: keep them together.
    Layout cbi = bp.shape().isInt() ? *cb : cb->mode(i);
    Layout api = ap.shape().isInt() ? ap : ap.mode(i);
    modes.push_back(raked ? Layout::concat({cbi, api})
                          : Layout::concat({api, cbi}));
  }
  return Layout::concat(std::move(modes));
}

Error productModes(const Layout &a, const Tiler &t, std::vector<Layout> &as,
                   std::vector<Layout> &ts) {
  if (t.empty() || t.size() > a.rank())
    return fail("product: tiler has " + llvm::Twine(t.size()) +
                " modes but the layout has rank " + llvm::Twine(a.rank()));
  for (size_t i = 0; i < a.rank(); ++i) {
    if (i >= t.size()) {
      as.push_back(a.mode(i));
      continue;
    }
    auto r = productRest(a.mode(i), t[i]);
    if (!r)
      return r.takeError();
    as.push_back(a.mode(i));
    ts.push_back(std::move(*r));
  }
  return Error::success();
}
} // namespace

Expected<Layout> argus::layout::logicalProduct(const Layout &a,
                                               const Layout &b) {
  auto cb = productRest(a, b);
  if (!cb)
    return cb.takeError();
  return Layout::concat({a, *cb});
}

Expected<Layout> argus::layout::logicalProduct(const Layout &a,
                                               const Tiler &t) {
  std::vector<Layout> as, ts;
  if (Error e = productModes(a, t, as, ts))
    return std::move(e);
  std::vector<Layout> modes;
  for (size_t i = 0; i < as.size(); ++i)
    modes.push_back(i < ts.size() ? Layout::concat({as[i], ts[i]}) : as[i]);
  if (a.shape().isInt())
    return modes[0];
  return Layout::concat(std::move(modes));
}

Expected<Layout> argus::layout::blockedProduct(const Layout &a,
                                               const Layout &b) {
  return blockedOrRaked(a, b, /*raked=*/false);
}

Expected<Layout> argus::layout::rakedProduct(const Layout &a, const Layout &b) {
  return blockedOrRaked(a, b, /*raked=*/true);
}

Expected<Layout> argus::layout::zippedProduct(const Layout &a, const Tiler &t) {
  std::vector<Layout> as, ts;
  if (Error e = productModes(a, t, as, ts))
    return std::move(e);
  return Layout::concat({Layout::concat(as), Layout::concat(ts)});
}

Expected<Layout> argus::layout::tiledProduct(const Layout &a, const Tiler &t) {
  std::vector<Layout> as, ts;
  if (Error e = productModes(a, t, as, ts))
    return std::move(e);
  std::vector<Layout> modes{Layout::concat(as)};
  llvm::append_range(modes, ts);
  return Layout::concat(std::move(modes));
}

Expected<Layout> argus::layout::zippedProduct(const Layout &a,
                                              const Layout &b) {
  return logicalProduct(a, b);
}

Expected<Layout> argus::layout::tiledProduct(const Layout &a, const Layout &b) {
  return logicalProduct(a, b);
}

//===----------------------------------------------------------------------===//
// Inverses and reshape
//===----------------------------------------------------------------------===//

Expected<Layout> argus::layout::rightInverse(const Layout &l) {
  std::vector<Mode> m = coalesce(l).flatModes();
  struct Entry {
    int64_t shape, stride, indexStride;
  };
  std::vector<Entry> e;
  int64_t p = 1;
  for (auto [s, d] : m) {
    if (d < 0)
      return fail("right_inverse: negative stride " + llvm::Twine(d) +
                  " is not supported");
    if (d > 0 && s > 1)
      e.push_back({s, d, p});
    p *= s;
  }
  llvm::stable_sort(
      e, [](const Entry &a, const Entry &b) { return a.stride < b.stride; });
  std::vector<Mode> out;
  int64_t cur = 1;
  for (const Entry &x : e) {
    if (x.stride != cur)
      break;
    out.push_back({x.shape, x.indexStride});
    cur *= x.shape;
  }
  return coalesce(fromModes(out));
}

Expected<Layout> argus::layout::leftInverse(const Layout &l) {
  if (!isInjective(l))
    return fail("left_inverse: the layout " + l.str() + " is not injective");
  auto c = complement(l);
  if (!c)
    return fail("left_inverse: no complement: " + toString(c.takeError()));
  return rightInverse(Layout::concat({l, *c}));
}

Expected<Layout> argus::layout::withShape(const Layout &l,
                                          const IntTuple &shape) {
  if (shape.product() != l.size())
    return fail("with_shape: new shape " + shape.str() + " has size " +
                llvm::Twine(shape.product()) + " but the layout has size " +
                llvm::Twine(l.size()));
  return composition(l, Layout::compact(shape));
}
