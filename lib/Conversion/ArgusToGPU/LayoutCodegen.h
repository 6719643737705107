//===- LayoutCodegen.h - layout algebra to index arithmetic ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Emits arith ops that evaluate layout-algebra functions for the lowering:
// register tiles map (thread, slot) -> logical coordinate, memory tiles map
// logical coordinate -> (swizzled) element offset.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_CONVERSION_ARGUSTOGPU_LAYOUTCODEGEN_H
#define ARGUS_LIB_CONVERSION_ARGUSTOGPU_LAYOUTCODEGEN_H

#include "argus/Layout/Swizzle.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::argus {

/// An index constant.
Value cidx(OpBuilder &b, Location loc, int64_t v);

/// The logical coordinates a thread holds in a register (or copy) TV layout
/// (thread, slot) -> colexicographic linear coordinate of a tile of `shape`.
/// The thread-dependent part is computed once at run time; the slot part is
/// a compile-time constant (slots are unrolled).
class ThreadCoords {
public:
  ThreadCoords(OpBuilder &b, Location loc, const ::argus::layout::Layout &tv,
               ArrayRef<int64_t> shape, Value threadId);
  /// Coordinates (one index per tile dimension) of slot `slot`.
  SmallVector<Value> coord(OpBuilder &b, Location loc, int64_t slot) const;
  /// Compile-time coordinate of (thread, slot).
  SmallVector<int64_t> staticCoord(int64_t thread, int64_t slot) const;
  int64_t numSlots() const { return slotMode.size(); }
  int64_t numThreads() const { return threadMode.size(); }

private:
  ::argus::layout::Layout threadMode, slotMode;
  SmallVector<int64_t> shape;
  bool carryFree = false;
  /// carryFree: per-dimension thread contribution; else the linear one.
  SmallVector<Value> threadDims;
  Value threadLinear;
};

/// Element offset of logical coordinate `coord` in a memory tile with
/// layout `layout` (the tile's logical shape is `shape`), swizzle included.
Value emitMemOffset(OpBuilder &b, Location loc,
                    const ::argus::layout::SwizzledLayout &layout,
                    ArrayRef<int64_t> shape, ValueRange coord);
/// The same at compile time.
int64_t staticMemOffset(const ::argus::layout::SwizzledLayout &layout,
                        ArrayRef<int64_t> shape, ArrayRef<int64_t> coord);

/// Colexicographic split of a linear index over `shape`.
SmallVector<int64_t> splitColex(int64_t linear, ArrayRef<int64_t> shape);

} // namespace mlir::argus

#endif // ARGUS_LIB_CONVERSION_ARGUSTOGPU_LAYOUTCODEGEN_H
