//===- LayoutZ3.cpp - Layouts as Z3 bit-vector terms ----------------------===//
#include "argus/Verify/LayoutZ3.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

using namespace argus::layout;
using llvm::Expected;

namespace {
llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

unsigned bitsFor(uint64_t v) { // bits to represent [0, v]
  unsigned b = 1;
  while (b < 63 && (uint64_t(1) << b) <= v)
    ++b;
  return b;
}

z3::expr cst(z3::context &c, int64_t v, unsigned w) {
  return c.bv_val(uint64_t(v), w); // two's complement for v < 0
}

z3::expr encode1D(const IntTuple &s, const IntTuple &d, z3::expr idx) {
  z3::context &c = idx.ctx();
  unsigned w = idx.get_sort().bv_size();
  if (s.isInt()) {
    if (d.value() == 0)
      return cst(c, 0, w);
    if (d.value() == 1)
      return idx;
    if (d.value() > 0 && llvm::isPowerOf2_64(uint64_t(d.value())))
      return z3::shl(idx, cst(c, llvm::Log2_64(uint64_t(d.value())), w));
    return idx * cst(c, d.value(), w);
  }
  z3::expr r = cst(c, 0, w);
  size_t n = s.rank();
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 == n)
      return r + encode1D(s[i], d[i], idx);
    int64_t si = s[i].product();
    if (si == 1)
      continue;
    z3::expr sub = idx, next = idx;
    if (llvm::isPowerOf2_64(uint64_t(si))) {
      sub = idx & cst(c, si - 1, w);
      next = z3::lshr(idx, cst(c, llvm::Log2_64(uint64_t(si)), w));
    } else {
      sub = z3::urem(idx, cst(c, si, w));
      next = z3::udiv(idx, cst(c, si, w));
    }
    r = r + encode1D(s[i], d[i], sub);
    idx = next;
  }
  return r;
}

llvm::Error checkBV(const z3::expr &e, unsigned need) {
  if (!e.is_bv())
    return fail("layout encoding: the input is not a bit-vector");
  if (e.get_sort().bv_size() < need)
    return fail("layout encoding: bit-vector width " +
                llvm::Twine(e.get_sort().bv_size()) + " is below the minimum " +
                llvm::Twine(need) + " for this layout");
  if (e.get_sort().bv_size() > 64)
    return fail("layout encoding: bit-vector width above 64");
  return llvm::Error::success();
}

template <typename F> Expected<z3::expr> guarded(F f) {
  try {
    return f();
  } catch (const z3::exception &e) {
    return fail(llvm::Twine("z3: ") + e.msg());
  } catch (...) {
    return fail("z3: unknown exception");
  }
}
} // namespace

unsigned z3enc::minWidth(const Layout &l) {
  uint64_t m = uint64_t(std::max(l.size(), l.cosize()));
  bool neg = false;
  uint64_t absExt = 1;
  for (auto [s, d] : l.flatModes()) {
    if (d < 0)
      neg = true;
    absExt += uint64_t(s - 1) * uint64_t(d < 0 ? -d : d);
  }
  if (neg)
    return bitsFor(std::max(m, absExt)) + 1;
  return bitsFor(m);
}

unsigned z3enc::minWidth(const SwizzledLayout &l) {
  unsigned w = minWidth(l.layout);
  if (l.swizzle)
    w = std::max(w, unsigned(l.swizzle->topBit()));
  return w;
}

unsigned z3enc::minWidth(const LinearLayout &l) {
  return unsigned(std::max({l.numInBits(), l.numOutBits(), 1}));
}

unsigned z3enc::safeWidth(const Layout &l) {
  return std::min(64u, std::max(8u, minWidth(l) + 2));
}
unsigned z3enc::safeWidth(const SwizzledLayout &l) {
  return std::min(64u, std::max(8u, minWidth(l) + 2));
}
unsigned z3enc::safeWidth(const LinearLayout &l) {
  return std::min(64u, std::max(8u, minWidth(l) + 2));
}

Expected<z3::expr> z3enc::encode(const Layout &l, const z3::expr &idx) {
  return guarded([&]() -> Expected<z3::expr> {
    if (llvm::Error e = checkBV(idx, minWidth(l)))
      return std::move(e);
    return encode1D(l.shape(), l.stride(), idx);
  });
}

Expected<z3::expr> z3enc::encodeCoords(const Layout &l,
                                       llvm::ArrayRef<z3::expr> coords) {
  return guarded([&]() -> Expected<z3::expr> {
    if (coords.size() != l.rank())
      return fail("layout encoding: " + llvm::Twine(coords.size()) +
                  " coordinates for a layout of rank " + llvm::Twine(l.rank()));
    if (llvm::Error e = checkBV(coords[0], minWidth(l)))
      return std::move(e);
    unsigned w = coords[0].get_sort().bv_size();
    z3::expr r = cst(coords[0].ctx(), 0, w);
    for (size_t i = 0; i < coords.size(); ++i) {
      if (!coords[i].is_bv() || coords[i].get_sort().bv_size() != w)
        return fail("layout encoding: coordinate " + llvm::Twine(i) +
                    " has a different sort from coordinate 0");
      Layout m = l.mode(i);
      r = r + encode1D(m.shape(), m.stride(), coords[i]);
    }
    return r;
  });
}

Expected<z3::expr> z3enc::encode(const Swizzle &sw, const z3::expr &x) {
  return guarded([&]() -> Expected<z3::expr> {
    if (llvm::Error e = checkBV(x, unsigned(std::max(1, sw.topBit()))))
      return std::move(e);
    if (sw.bits() == 0)
      return x;
    unsigned w = x.get_sort().bv_size();
    z3::context &c = x.ctx();
    z3::expr y = x & c.bv_val(sw.yyyMask(), w);
    int s = sw.shift();
    y = s >= 0 ? z3::lshr(y, cst(c, s, w)) : z3::shl(y, cst(c, -s, w));
    return x ^ y;
  });
}

Expected<z3::expr> z3enc::encode(const SwizzledLayout &l, const z3::expr &idx) {
  auto v = encode(l.layout, idx);
  if (!v || !l.swizzle)
    return v;
  return encode(*l.swizzle, *v);
}

Expected<z3::expr> z3enc::encodeCoords(const SwizzledLayout &l,
                                       llvm::ArrayRef<z3::expr> coords) {
  auto v = encodeCoords(l.layout, coords);
  if (!v || !l.swizzle)
    return v;
  return encode(*l.swizzle, *v);
}

Expected<z3::expr> z3enc::encode(const LinearLayout &l, const z3::expr &idx) {
  return guarded([&]() -> Expected<z3::expr> {
    if (llvm::Error e = checkBV(idx, minWidth(l)))
      return std::move(e);
    unsigned w = idx.get_sort().bv_size();
    z3::context &c = idx.ctx();
    z3::expr r = c.bv_val(0, w);
    for (int k = 0; k < l.numInBits(); ++k) {
      uint64_t col = l.column(k);
      if (col == 0)
        continue;
      // Broadcast bit k to all bits, then mask with the column.
      z3::expr bit = idx.extract(k, k);
      z3::expr all = w == 1 ? bit : z3::sext(bit, w - 1);
      r = r ^ (all & c.bv_val(col, w));
    }
    return r;
  });
}

Expected<std::vector<z3::expr>>
z3enc::encodeDims(const LinearLayout &l, llvm::ArrayRef<z3::expr> inputs) {
  try {
    if (inputs.size() != l.inDims().size())
      return fail("layout encoding: " + llvm::Twine(inputs.size()) +
                  " inputs for " + llvm::Twine(l.inDims().size()) +
                  " input dimensions");
    if (llvm::Error e = checkBV(inputs[0], minWidth(l)))
      return std::move(e);
    unsigned w = inputs[0].get_sort().bv_size();
    z3::context &c = inputs[0].ctx();
    // Assemble the flattened input.
    z3::expr flat = c.bv_val(0, w);
    int off = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].is_bv() || inputs[i].get_sort().bv_size() != w)
        return fail("layout encoding: input " + llvm::Twine(i) +
                    " has a different sort from input 0");
      int b = l.inDims()[i].log2Size;
      if (b == 0)
        continue;
      z3::expr part = inputs[i] & c.bv_val((uint64_t(1) << b) - 1, w);
      flat = flat | z3::shl(part, c.bv_val(off, w));
      off += b;
    }
    auto y = encode(l, flat);
    if (!y)
      return y.takeError();
    std::vector<z3::expr> outs;
    off = 0;
    for (auto &o : l.outDims()) {
      z3::expr v = z3::lshr(*y, c.bv_val(off, w)) &
                   c.bv_val((uint64_t(1) << o.log2Size) - 1, w);
      outs.push_back(v);
      off += o.log2Size;
    }
    return outs;
  } catch (const z3::exception &e) {
    return fail(llvm::Twine("z3: ") + e.msg());
  } catch (...) {
    return fail("z3: unknown exception");
  }
}

z3::expr z3enc::inRange(const z3::expr &x, int64_t size) {
  unsigned w = x.get_sort().bv_size();
  if (w < 63 && uint64_t(size) >= (uint64_t(1) << w))
    return x.ctx().bool_val(true);
  return z3::ult(x, x.ctx().bv_val(uint64_t(size), w));
}
