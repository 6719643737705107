//===- TileAccess.cpp - per-thread accesses of memory tiles ---------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "TileAccess.h"

#include <functional>

using namespace mlir;
using namespace mlir::argus;

UnrealizedConversionCastOp mlir::argus::gatherOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kGatherAttr) && c.getInputs().size() == 3)
    return c;
  return {};
}

LogicalResult mlir::argus::eraseGatherMarkers(ModuleOp top) {
  SmallVector<UnrealizedConversionCastOp> gathers;
  top.walk([&](UnrealizedConversionCastOp c) {
    if (c->hasAttr(kGatherAttr))
      gathers.push_back(c);
  });
  for (UnrealizedConversionCastOp c : gathers) {
    if (!c->use_empty())
      return c.emitError("a gathered view is used by an op that "
                         "cannot read it (copy, load, store only)");
    c.erase();
  }
  return success();
}

SmallVector<Value> mlir::argus::memIndices(OpBuilder &b, Location loc,
                                           Value &mem, TileType t,
                                           ValueRange coord) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    if (auto g = gatherOf(mem)) {
      mem = g.getInputs()[0];
      Value id = vector::ExtractOp::create(b, loc, g.getInputs()[1],
                                           ArrayRef<OpFoldResult>{coord[0]});
      Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
      Value col = arith::AddIOp::create(b, loc, g.getInputs()[2], coord[1]);
      return {row, col};
    }
    return SmallVector<Value>(coord.begin(), coord.end());
  }
  return {emitMemOffset(b, loc, memLayout(t), t.getShape(), coord)};
}

Value mlir::argus::loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                             ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, mem, t, coord);
  return loadRun(b, loc, mem, idx, t.getElementType(), n);
}

void mlir::argus::storeElems(OpBuilder &b, Location loc, Value val, Value mem,
                             TileType t, ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, mem, t, coord);
  storeRun(b, loc, val, mem, idx, t.getElementType(), n);
}

int64_t mlir::argus::contiguousWidth(
    const ThreadCoords &tc, int64_t threads, Type elem,
    ArrayRef<function_ref<int64_t(ArrayRef<int64_t>)>> offsets) {
  int64_t maxN = std::max<int64_t>(1, 16 / elemBytes(elem));
  for (int64_t n = maxN; n > 1; n /= 2) {
    if (tc.numSlots() % n != 0)
      continue;
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t)
      for (int64_t v0 = 0; v0 < tc.numSlots() && ok; v0 += n) {
        SmallVector<int64_t> c0 = tc.staticCoord(t, v0);
        for (auto offset : offsets) {
          int64_t base = offset(c0);
          if (base % n != 0) {
            ok = false;
            break;
          }
          for (int64_t k = 1; k < n && ok; ++k)
            if (offset(tc.staticCoord(t, v0 + k)) != base + k)
              ok = false;
        }
      }
    if (ok)
      return n;
  }
  return 1;
}

/// Compile-time offset of a memory tile element for the contiguity analysis:
/// global tiles are row-major with a large (unknown) row pitch.
static int64_t analysisOffset(TileType t, ArrayRef<int64_t> coord) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    int64_t off = 0;
    for (size_t k = 0; k < coord.size(); ++k)
      off = off * (int64_t(1) << 24) + coord[k];
    return off;
  }
  return staticMemOffset(memLayout(t), t.getShape(), coord);
}

int64_t mlir::argus::vectorWidth(const ThreadCoords &tc, int64_t threads,
                                 ArrayRef<TileType> mems, Type elem) {
  SmallVector<std::function<int64_t(ArrayRef<int64_t>)>> fns;
  for (TileType m : mems)
    fns.push_back([m](ArrayRef<int64_t> c) { return analysisOffset(m, c); });
  SmallVector<function_ref<int64_t(ArrayRef<int64_t>)>> refs(fns.begin(),
                                                             fns.end());
  return contiguousWidth(tc, threads, elem, refs);
}
