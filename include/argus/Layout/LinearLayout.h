//===- LinearLayout.h - F2-linear layouts (Triton style) -------*- C++ -*-===//
//
// Part of Argus. A linear layout maps named input dimensions (each of size
// 2^k, e.g. "lane", "reg", "warp") to named output dimensions (each of size
// 2^k) by a matrix over GF(2): every input bit has a basis vector (one value
// per output dimension) and the image of an input is the XOR of the basis
// vectors of its set bits. At most 62 input and 62 output bits in total.
//
// Flattened form: input dimensions are concatenated with the first dimension
// in the lowest bits (likewise for outputs), so a linear layout is also a
// function from [0, 2^inBits) to [0, 2^outBits).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_LAYOUT_LINEARLAYOUT_H
#define ARGUS_LAYOUT_LINEARLAYOUT_H

#include "argus/Layout/Swizzle.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace argus::layout {

class LinearLayout {
public:
  struct Dim {
    std::string name;
    int log2Size = 0;
  };
  /// bases[i] = the basis vectors of input dimension i (one per bit), each a
  /// vector with one value per output dimension.
  struct InDim {
    std::string name;
    std::vector<std::vector<int64_t>> bases;
  };

  LinearLayout() = default;
  /// Validates the dimensions and that each basis value fits its output
  /// dimension.
  static llvm::Expected<LinearLayout> get(std::vector<InDim> ins,
                                          std::vector<Dim> outs);
  /// The identity on one dimension of 2^log2Size.
  static LinearLayout identity(llvm::StringRef name, int log2Size);

  /// Converts a shape:stride layout whose shapes are powers of two and whose
  /// strides are powers of two or 0 (and whose modes do not hit the same
  /// offset bit). With inNames empty there is one input dimension "index";
  /// otherwise one name per top-level mode.
  static llvm::Expected<LinearLayout>
  fromLayout(const Layout &l, llvm::ArrayRef<std::string> inNames = {},
             llvm::StringRef outName = "offset");
  /// A swizzle on numBits-bit offsets (widened to swizzle.topBit() bits).
  static llvm::Expected<LinearLayout> fromSwizzle(const Swizzle &sw,
                                                  int numBits,
                                                  llvm::StringRef inName,
                                                  llvm::StringRef outName);
  static llvm::Expected<LinearLayout>
  fromSwizzledLayout(const SwizzledLayout &l,
                     llvm::ArrayRef<std::string> inNames = {},
                     llvm::StringRef outName = "offset");

  llvm::ArrayRef<Dim> inDims() const { return ins; }
  llvm::ArrayRef<Dim> outDims() const { return outs; }
  int numInBits() const { return int(cols.size()); }
  int numOutBits() const;
  /// Basis vectors of input dimension i (one vector per bit, one value per
  /// output dimension).
  std::vector<std::vector<int64_t>> bases(size_t inDim) const;
  /// Column of the GF(2) matrix for flattened input bit k.
  uint64_t column(int k) const { return cols[k]; }

  /// Image of one value per input dimension: one value per output dimension.
  llvm::SmallVector<int64_t, 4> apply(llvm::ArrayRef<int64_t> in) const;
  /// Flattened image.
  uint64_t applyFlat(uint64_t x) const;

  int rank() const;
  bool isInjective() const { return rank() == numInBits(); }
  bool isSurjective() const { return rank() == numOutBits(); }

  /// this o inner: inner's output dimensions must be (by name) input
  /// dimensions of this, no larger.
  llvm::Expected<LinearLayout> compose(const LinearLayout &inner) const;
  /// Inverse of a bijective (square, full-rank) layout.
  llvm::Expected<LinearLayout> invert() const;
  /// A left inverse (P o this == identity) of an injective layout.
  llvm::Expected<LinearLayout> pseudoInvert() const;

  /// Multi-line description: one line per input dimension with its bases.
  std::string str() const;
  bool operator==(const LinearLayout &o) const;

private:
  std::vector<Dim> ins, outs;
  std::vector<uint64_t> cols; // per flattened input bit
};

} // namespace argus::layout

#endif // ARGUS_LAYOUT_LINEARLAYOUT_H
