//===- Swizzle.cpp - XOR swizzles and swizzled layouts --------------------===//
#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace argus::layout;
using llvm::Expected;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

Expected<Swizzle> Swizzle::get(int bits, int base, int shift) {
  if (bits < 0 || base < 0)
    return fail("swizzle: B and M must be non-negative (got Sw<" +
                llvm::Twine(bits) + "," + llvm::Twine(base) + "," +
                llvm::Twine(shift) + ">)");
  if ((shift < 0 ? -shift : shift) < bits)
    return fail("swizzle: |S| must be >= B so that the source and "
                "destination bits do not overlap (got Sw<" +
                llvm::Twine(bits) + "," + llvm::Twine(base) + "," +
                llvm::Twine(shift) + ">)");
  if (bits + base + (shift < 0 ? -shift : shift) > 48)
    return fail("swizzle: B + M + |S| must be <= 48");
  return Swizzle(bits, base, shift);
}

uint64_t Swizzle::yyyMask() const {
  return ((uint64_t(1) << b) - 1) << (m + std::max(0, s));
}

uint64_t Swizzle::zzzMask() const {
  return ((uint64_t(1) << b) - 1) << (m - std::min(0, s));
}

int64_t Swizzle::operator()(int64_t x) const {
  uint64_t u = uint64_t(x);
  uint64_t y = u & yyyMask();
  y = s >= 0 ? (y >> s) : (y << -s);
  return int64_t(u ^ y);
}

std::string Swizzle::str() const {
  return "Sw<" + std::to_string(b) + "," + std::to_string(m) + "," +
         std::to_string(s) + ">";
}

int64_t SwizzledLayout::cosize() const {
  if (!swizzle)
    return layout.cosize();
  int64_t n = layout.size();
  if (n <= (int64_t(1) << 22)) {
    int64_t mx = 0;
    for (int64_t i = 0; i < n; ++i)
      mx = std::max(mx, (*this)(i));
    return mx + 1;
  }
  int64_t blk = int64_t(1) << swizzle->topBit();
  int64_t c = layout.cosize();
  return (c + blk - 1) / blk * blk;
}

int64_t SwizzledLayout::operator()(int64_t idx) const {
  int64_t v = layout(idx);
  return swizzle ? (*swizzle)(v) : v;
}

int64_t SwizzledLayout::operator()(const IntTuple &coord) const {
  int64_t v = layout(coord);
  return swizzle ? (*swizzle)(v) : v;
}

std::string SwizzledLayout::str() const {
  if (!swizzle)
    return layout.str();
  return swizzle->str() + " o " + layout.str();
}

std::string SwizzledInverse::str() const {
  if (!swizzle)
    return inverse.str();
  return inverse.str() + " o " + swizzle->str();
}

Expected<SwizzledLayout> argus::layout::composition(const SwizzledLayout &a,
                                                    const Layout &r) {
  auto c = composition(a.layout, r);
  if (!c)
    return c.takeError();
  return SwizzledLayout(a.swizzle, std::move(*c));
}

Expected<SwizzledInverse> argus::layout::inverse(const SwizzledLayout &l) {
  if (!isBijective(l.layout))
    return fail("inverse: the layout " + l.layout.str() +
                " is not a bijection onto [0, cosize)");
  if (l.swizzle) {
    int64_t blk = int64_t(1) << l.swizzle->topBit();
    if (l.layout.cosize() % blk != 0)
      return fail("inverse: cosize " + llvm::Twine(l.layout.cosize()) +
                  " is not a multiple of " + llvm::Twine(blk) +
                  ", the block the swizzle " + l.swizzle->str() +
                  " permutes, so the swizzled layout is not a bijection");
  }
  auto ri = rightInverse(l.layout);
  if (!ri)
    return ri.takeError();
  return SwizzledInverse{l.swizzle, std::move(*ri)};
}
