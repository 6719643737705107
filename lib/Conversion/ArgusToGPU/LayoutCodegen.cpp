//===- LayoutCodegen.cpp - layout algebra to index arithmetic ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LayoutCodegen.h"

#include "argus/Dialect/TileLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

Value mlir::argus::cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
static Value addi(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
static Value muli(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 1)
    return x;
  return b.createOrFold<arith::MulIOp>(loc, x, cidx(b, loc, y));
}
static Value divi(OpBuilder &b, Location loc, Value x, int64_t y) {
  if (y == 1)
    return x;
  return b.createOrFold<arith::DivUIOp>(loc, x, cidx(b, loc, y));
}
static Value remi(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::RemUIOp>(loc, x, cidx(b, loc, y));
}

SmallVector<int64_t> mlir::argus::splitColex(int64_t linear,
                                             ArrayRef<int64_t> shape) {
  SmallVector<int64_t> r;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d + 1 == shape.size()) {
      r.push_back(linear);
    } else {
      r.push_back(linear % shape[d]);
      linear /= shape[d];
    }
  }
  return r;
}

ThreadCoords::ThreadCoords(OpBuilder &b, Location loc, const L::Layout &tv,
                           ArrayRef<int64_t> shapeIn, Value threadId)
    : threadMode(tv.mode(0)),
      slotMode(tv.rank() > 1 ? tv.mode(1) : L::Layout()), shape(shapeIn) {
  // Per-leaf thread coordinates.
  SmallVector<std::pair<Value, int64_t>> leaves; // (coordinate, stride)
  std::vector<std::pair<int64_t, int64_t>> flat = threadMode.flatModes();
  int64_t prefix = 1;
  for (auto [s, d] : flat) {
    if (s != 1 && d != 0) {
      Value c = remi(b, loc, divi(b, loc, threadId, prefix), s);
      leaves.push_back({c, d});
    }
    prefix *= s;
  }
  size_t rank = shape.size();
  // Decide whether each dimension can be computed separately.
  carryFree = true;
  SmallVector<int64_t> maxDigits(rank, 0);
  for (auto [s, d] : flat) {
    if (d < 0) {
      carryFree = false;
      break;
    }
    SmallVector<int64_t> dig = splitColex(d, shape);
    for (size_t k = 0; k < rank; ++k)
      maxDigits[k] += (s - 1) * dig[k];
  }
  if (carryFree) {
    SmallVector<int64_t> maxSlot(rank, 0);
    for (int64_t v = 0; v < slotMode.size(); ++v) {
      int64_t cv = slotMode(v);
      if (cv < 0) {
        carryFree = false;
        break;
      }
      SmallVector<int64_t> dig = splitColex(cv, shape);
      for (size_t k = 0; k < rank; ++k)
        maxSlot[k] = std::max(maxSlot[k], dig[k]);
    }
    for (size_t k = 0; k + 1 < rank && carryFree; ++k)
      if (maxDigits[k] + maxSlot[k] >= shape[k])
        carryFree = false;
  }
  if (carryFree) {
    for (size_t k = 0; k < rank; ++k) {
      Value sum = cidx(b, loc, 0);
      for (auto [c, d] : leaves) {
        int64_t dig = splitColex(d, shape)[k];
        if (dig != 0)
          sum = addi(b, loc, sum, muli(b, loc, c, dig));
      }
      threadDims.push_back(sum);
    }
  } else {
    Value sum = cidx(b, loc, 0);
    for (auto [c, d] : leaves)
      sum = addi(b, loc, sum, muli(b, loc, c, d));
    threadLinear = sum;
  }
}

SmallVector<Value> ThreadCoords::coord(OpBuilder &b, Location loc,
                                       int64_t slot) const {
  int64_t cv = slotMode(slot);
  SmallVector<Value> r;
  if (carryFree) {
    SmallVector<int64_t> dig = splitColex(cv, shape);
    for (size_t k = 0; k < shape.size(); ++k)
      r.push_back(dig[k] ? addi(b, loc, threadDims[k], cidx(b, loc, dig[k]))
                         : threadDims[k]);
    return r;
  }
  Value lin = addi(b, loc, threadLinear, cidx(b, loc, cv));
  int64_t prefix = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    Value x = divi(b, loc, lin, prefix);
    r.push_back(k + 1 == shape.size() ? x : remi(b, loc, x, shape[k]));
    prefix *= shape[k];
  }
  return r;
}

SmallVector<int64_t> ThreadCoords::staticCoord(int64_t thread,
                                               int64_t slot) const {
  int64_t t = threadMode(thread % threadMode.size());
  return splitColex(t + slotMode(slot), shape);
}

/// Offset of coordinate `x` along one (possibly hierarchical) mode.
static Value emitMode(OpBuilder &b, Location loc, const L::Layout &mode,
                      Value x) {
  std::vector<std::pair<int64_t, int64_t>> flat = mode.flatModes();
  Value off = cidx(b, loc, 0);
  int64_t prefix = 1;
  for (size_t i = 0; i < flat.size(); ++i) {
    auto [s, d] = flat[i];
    if (s != 1 && d != 0) {
      Value c = divi(b, loc, x, prefix);
      if (i + 1 != flat.size())
        c = remi(b, loc, c, s);
      off = addi(b, loc, off, muli(b, loc, c, d));
    }
    prefix *= s;
  }
  return off;
}

Value mlir::argus::emitMemOffset(OpBuilder &b, Location loc,
                                 const L::SwizzledLayout &layout,
                                 ArrayRef<int64_t> shape, ValueRange coord) {
  Value off;
  if (layout.layout.rank() == shape.size() && shape.size() > 1) {
    off = cidx(b, loc, 0);
    for (size_t k = 0; k < shape.size(); ++k)
      off =
          addi(b, loc, off, emitMode(b, loc, layout.layout.mode(k), coord[k]));
  } else {
    Value lin = cidx(b, loc, 0);
    int64_t prefix = 1;
    for (size_t k = 0; k < shape.size(); ++k) {
      lin = addi(b, loc, lin, muli(b, loc, coord[k], prefix));
      prefix *= shape[k];
    }
    off = emitMode(b, loc, layout.layout, lin);
  }
  if (layout.swizzle) {
    const L::Swizzle &sw = *layout.swizzle;
    if (sw.bits() > 0) {
      Value y = b.createOrFold<arith::AndIOp>(
          loc, off, cidx(b, loc, int64_t(sw.yyyMask())));
      Value shifted =
          sw.shift() >= 0
              ? b.createOrFold<arith::ShRUIOp>(loc, y, cidx(b, loc, sw.shift()))
              : b.createOrFold<arith::ShLIOp>(loc, y,
                                              cidx(b, loc, -sw.shift()));
      off = b.createOrFold<arith::XOrIOp>(loc, off, shifted);
    }
  }
  return off;
}

int64_t mlir::argus::staticMemOffset(const L::SwizzledLayout &layout,
                                     ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> coord) {
  return memoryTileOffset(layout, shape, coord);
}
