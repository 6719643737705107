//===- LinearLayout.cpp - F2-linear layouts -------------------------------===//
#include "argus/Layout/LinearLayout.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace argus::layout;
using llvm::Expected;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

namespace {
int totalBits(llvm::ArrayRef<LinearLayout::Dim> d) {
  int n = 0;
  for (auto &x : d)
    n += x.log2Size;
  return n;
}

/// Rank over GF(2) of a set of vectors.
int gf2Rank(std::vector<uint64_t> v) {
  int r = 0;
  for (int bit = 63; bit >= 0; --bit) {
    uint64_t m = uint64_t(1) << bit;
    auto it =
        std::find_if(v.begin() + r, v.end(), [&](uint64_t x) { return x & m; });
    if (it == v.end())
      continue;
    std::swap(*it, v[r]);
    for (size_t j = 0; j < v.size(); ++j)
      if (j != size_t(r) && (v[j] & m))
        v[j] ^= v[r];
    ++r;
  }
  return r;
}

int log2Ceil(int64_t x) {
  int k = 0;
  while ((int64_t(1) << k) < x)
    ++k;
  return k;
}
} // namespace

int LinearLayout::numOutBits() const { return totalBits(outs); }

Expected<LinearLayout> LinearLayout::get(std::vector<InDim> inDims,
                                         std::vector<Dim> outDims) {
  LinearLayout r;
  r.outs = outDims;
  for (auto &o : outDims)
    if (o.log2Size < 0)
      return fail("linear layout: output dimension '" + o.name +
                  "' has a negative log2 size");
  if (totalBits(outDims) > 62)
    return fail("linear layout: more than 62 output bits");
  int inBits = 0;
  for (auto &in : inDims)
    inBits += int(in.bases.size());
  if (inBits > 62)
    return fail("linear layout: more than 62 input bits");
  for (auto &in : inDims) {
    r.ins.push_back({in.name, int(in.bases.size())});
    for (size_t b = 0; b < in.bases.size(); ++b) {
      const auto &base = in.bases[b];
      if (base.size() != outDims.size())
        return fail("linear layout: basis " + llvm::Twine(b) + " of '" +
                    in.name + "' has " + llvm::Twine(base.size()) +
                    " values but there are " + llvm::Twine(outDims.size()) +
                    " output dimensions");
      uint64_t col = 0;
      int off = 0;
      for (size_t o = 0; o < outDims.size(); ++o) {
        int64_t v = base[o];
        if (v < 0 || v >= (int64_t(1) << outDims[o].log2Size))
          return fail("linear layout: basis value " + llvm::Twine(v) + " of '" +
                      in.name + "' does not fit output '" + outDims[o].name +
                      "' of size 2^" + llvm::Twine(outDims[o].log2Size));
        col |= uint64_t(v) << off;
        off += outDims[o].log2Size;
      }
      r.cols.push_back(col);
    }
  }
  return r;
}

LinearLayout LinearLayout::identity(llvm::StringRef name, int log2Size) {
  LinearLayout r;
  r.ins.push_back({name.str(), log2Size});
  r.outs.push_back({name.str(), log2Size});
  for (int i = 0; i < log2Size; ++i)
    r.cols.push_back(uint64_t(1) << i);
  return r;
}

Expected<LinearLayout>
LinearLayout::fromLayout(const Layout &l, llvm::ArrayRef<std::string> inNames,
                         llvm::StringRef outName) {
  std::vector<Layout> groups;
  std::vector<std::string> names;
  if (inNames.empty()) {
    groups.push_back(l);
    names.push_back("index");
  } else {
    if (inNames.size() != l.rank())
      return fail("linear layout: " + llvm::Twine(inNames.size()) +
                  " input names for a layout of rank " + llvm::Twine(l.rank()));
    groups = l.modes();
    names.assign(inNames.begin(), inNames.end());
  }
  int64_t cosize = l.cosize();
  int outBits = log2Ceil(cosize);
  if (outBits > 62)
    return fail("linear layout: cosize too large");
  LinearLayout r;
  r.outs.push_back({outName.str(), outBits});
  uint64_t used = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    int dimBits = 0;
    for (auto [s, d] : groups[g].flatModes()) {
      if (!llvm::isPowerOf2_64(uint64_t(s)))
        return fail("linear layout: shape " + llvm::Twine(s) +
                    " is not a power of two");
      if (d != 0 && (d < 0 || !llvm::isPowerOf2_64(uint64_t(d))))
        return fail("linear layout: stride " + llvm::Twine(d) +
                    " is neither 0 nor a power of two");
      int k = llvm::Log2_64(uint64_t(s));
      for (int j = 0; j < k; ++j) {
        uint64_t col = d == 0 ? 0 : uint64_t(d) << j;
        if (col & used)
          return fail("linear layout: two input bits map to offset " +
                      llvm::Twine(col) +
                      ", so the layout is not F2-linear (their sum carries)");
        used |= col;
        r.cols.push_back(col);
      }
      dimBits += k;
    }
    r.ins.push_back({names[g], dimBits});
  }
  if (r.cols.size() > 62)
    return fail("linear layout: more than 62 input bits");
  return r;
}

Expected<LinearLayout> LinearLayout::fromSwizzle(const Swizzle &sw, int numBits,
                                                 llvm::StringRef inName,
                                                 llvm::StringRef outName) {
  if (numBits < 0 || numBits > 62)
    return fail("linear layout: swizzle width out of range");
  int n = std::max(numBits, sw.topBit());
  LinearLayout r;
  r.ins.push_back({inName.str(), n});
  r.outs.push_back({outName.str(), n});
  for (int j = 0; j < n; ++j)
    r.cols.push_back(uint64_t(sw(int64_t(1) << j)));
  return r;
}

Expected<LinearLayout>
LinearLayout::fromSwizzledLayout(const SwizzledLayout &l,
                                 llvm::ArrayRef<std::string> inNames,
                                 llvm::StringRef outName) {
  auto inner = fromLayout(l.layout, inNames, outName);
  if (!inner || !l.swizzle)
    return inner;
  auto sw = fromSwizzle(*l.swizzle, inner->numOutBits(), outName, outName);
  if (!sw)
    return sw.takeError();
  return sw->compose(*inner);
}

std::vector<std::vector<int64_t>> LinearLayout::bases(size_t inDim) const {
  int first = 0;
  for (size_t i = 0; i < inDim; ++i)
    first += ins[i].log2Size;
  std::vector<std::vector<int64_t>> r;
  for (int b = 0; b < ins[inDim].log2Size; ++b) {
    uint64_t col = cols[first + b];
    std::vector<int64_t> v;
    for (auto &o : outs) {
      v.push_back(int64_t(col & ((uint64_t(1) << o.log2Size) - 1)));
      col >>= o.log2Size;
    }
    r.push_back(std::move(v));
  }
  return r;
}

uint64_t LinearLayout::applyFlat(uint64_t x) const {
  uint64_t y = 0;
  for (size_t k = 0; k < cols.size(); ++k)
    if ((x >> k) & 1)
      y ^= cols[k];
  return y;
}

llvm::SmallVector<int64_t, 4>
LinearLayout::apply(llvm::ArrayRef<int64_t> in) const {
  uint64_t x = 0;
  int off = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    uint64_t v = i < in.size() ? uint64_t(in[i]) : 0;
    x |= (v & ((uint64_t(1) << ins[i].log2Size) - 1)) << off;
    off += ins[i].log2Size;
  }
  uint64_t y = applyFlat(x);
  llvm::SmallVector<int64_t, 4> r;
  for (auto &o : outs) {
    r.push_back(int64_t(y & ((uint64_t(1) << o.log2Size) - 1)));
    y >>= o.log2Size;
  }
  return r;
}

int LinearLayout::rank() const { return gf2Rank(cols); }

Expected<LinearLayout> LinearLayout::compose(const LinearLayout &inner) const {
  // Position of each of inner's output bits among this layout's input bits.
  std::vector<int> pos;
  for (auto &o : inner.outs) {
    int off = 0;
    bool found = false;
    for (auto &i : ins) {
      if (i.name == o.name) {
        if (o.log2Size > i.log2Size)
          return fail("linear layout compose: dimension '" + o.name +
                      "' has 2^" + llvm::Twine(o.log2Size) +
                      " values but the outer layout takes only 2^" +
                      llvm::Twine(i.log2Size));
        for (int b = 0; b < o.log2Size; ++b)
          pos.push_back(off + b);
        found = true;
        break;
      }
      off += i.log2Size;
    }
    if (!found)
      return fail("linear layout compose: output dimension '" + o.name +
                  "' of the inner layout is not an input of the outer one");
  }
  LinearLayout r;
  r.ins = inner.ins;
  r.outs = outs;
  for (uint64_t c : inner.cols) {
    uint64_t y = 0;
    for (size_t b = 0; b < pos.size(); ++b)
      if ((c >> b) & 1)
        y ^= cols[pos[b]];
    r.cols.push_back(y);
  }
  return r;
}

namespace {
/// Inverse of a square GF(2) matrix given by columns; empty on failure.
/// Column j of the result is the preimage of unit vector e_j.
bool gf2Inverse(const std::vector<uint64_t> &colsIn,
                std::vector<uint64_t> &inv) {
  int n = int(colsIn.size());
  // Track, for each reduced vector, which original columns were XOR'ed.
  std::vector<uint64_t> v = colsIn, comb(n);
  for (int j = 0; j < n; ++j)
    comb[j] = uint64_t(1) << j;
  // Gauss-Jordan: make v[r] have pivot bit r... pivot on output bits.
  std::vector<int> pivotOf(n, -1);
  int r = 0;
  for (int bit = 0; bit < n; ++bit) {
    uint64_t m = uint64_t(1) << bit;
    int p = -1;
    for (int j = r; j < n; ++j)
      if (v[j] & m) {
        p = j;
        break;
      }
    if (p < 0)
      return false;
    std::swap(v[p], v[r]);
    std::swap(comb[p], comb[r]);
    for (int j = 0; j < n; ++j)
      if (j != r && (v[j] & m)) {
        v[j] ^= v[r];
        comb[j] ^= comb[r];
      }
    ++r;
  }
  // Now v[k] == e_k and comb[k] says which inputs produce e_k.
  inv = comb;
  return true;
}
} // namespace

Expected<LinearLayout> LinearLayout::invert() const {
  if (numInBits() != numOutBits())
    return fail("linear layout invert: " + llvm::Twine(numInBits()) +
                " input bits but " + llvm::Twine(numOutBits()) +
                " output bits (not square)");
  LinearLayout r;
  r.ins = outs;
  r.outs = ins;
  if (!gf2Inverse(cols, r.cols))
    return fail("linear layout invert: the layout is not bijective (rank " +
                llvm::Twine(rank()) + " < " + llvm::Twine(numInBits()) + ")");
  return r;
}

Expected<LinearLayout> LinearLayout::pseudoInvert() const {
  if (!isInjective())
    return fail("linear layout pseudo-invert: the layout is not injective "
                "(rank " +
                llvm::Twine(rank()) + " < " + llvm::Twine(numInBits()) +
                " input bits)");
  int nOut = numOutBits(), nIn = numInBits();
  // Extend the columns with unit vectors to a basis of GF(2)^nOut.
  std::vector<uint64_t> ext = cols;
  for (int b = 0; b < nOut && int(ext.size()) < nOut; ++b) {
    ext.push_back(uint64_t(1) << b);
    if (gf2Rank(ext) != int(ext.size()))
      ext.pop_back();
  }
  std::vector<uint64_t> inv;
  if (!gf2Inverse(ext, inv))
    return fail("linear layout pseudo-invert: internal rank error");
  // inv[k] = combination of ext columns giving e_k; keep the original ones.
  LinearLayout r;
  r.ins = outs;
  r.outs = ins;
  uint64_t keep = nIn >= 64 ? ~uint64_t(0) : ((uint64_t(1) << nIn) - 1);
  for (int k = 0; k < nOut; ++k)
    r.cols.push_back(inv[k] & keep);
  return r;
}

std::string LinearLayout::str() const {
  std::string s;
  for (size_t i = 0; i < ins.size(); ++i) {
    s += ins[i].name + "[" + std::to_string(int64_t(1) << ins[i].log2Size) +
         "]:";
    for (auto &b : bases(i)) {
      s += " (";
      for (size_t o = 0; o < b.size(); ++o)
        s += (o ? "," : "") + std::to_string(b[o]);
      s += ")";
    }
    s += "\n";
  }
  s += "->";
  for (auto &o : outs)
    s += " " + o.name + "[" + std::to_string(int64_t(1) << o.log2Size) + "]";
  return s;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  if (ins.size() != o.ins.size() || outs.size() != o.outs.size())
    return false;
  for (size_t i = 0; i < ins.size(); ++i)
    if (ins[i].name != o.ins[i].name || ins[i].log2Size != o.ins[i].log2Size)
      return false;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].name != o.outs[i].name ||
        outs[i].log2Size != o.outs[i].log2Size)
      return false;
  return cols == o.cols;
}
