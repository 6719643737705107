//===- TileLayouts.h - the layout-algebra function of a tile ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// One definition of what a tile's layout means, shared by the tag verifier
// and the lowering: every register tile (an #argus.layout or an #argus.frag)
// becomes a plain CuTe "TV" layout (thread, slot) -> linear logical
// coordinate (colexicographic: d0 + D0 * d1).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_TILELAYOUTS_H
#define ARGUS_DIALECT_TILELAYOUTS_H

#include "argus/Dialect/ArgusDialect.h"

#include <vector>

namespace mlir::argus {

/// The (thread, slot) -> linear coordinate layout of a register tile. Mode 0
/// is the thread, mode 1 the slot. For a fragment, the thread index is
/// `lane + warpSize * (wr + WM * wc)` and the slot `reg + regs * (rr + RR *
/// rc)`: warp (wr, wc) and repetition (rr, rc) place the instruction tile at
/// rows `(rr * WR + wr) * opRows` and columns `(rc * WC + wc) * opCols`,
/// where A ignores wc and B ignores wr (they are replicated there).
FailureOr<::argus::layout::Layout>
getRegisterLayout(TileType type,
                  function_ref<InFlightDiagnostic()> emitError = nullptr);

/// The same for a fragment attribute applied to a tile of `shape`.
FailureOr<::argus::layout::Layout>
getFragmentLayout(FragmentAttr frag, ArrayRef<int64_t> shape,
                  function_ref<InFlightDiagnostic()> emitError = nullptr);

/// The element offset a memory tile's layout gives logical coordinate
/// `coord` of a tile of `shape` (one mode per dimension, or a rank-1 layout
/// over the colexicographic index).
int64_t memoryTileOffset(const ::argus::layout::SwizzledLayout &layout,
                         ArrayRef<int64_t> shape, ArrayRef<int64_t> coord);

/// Steps `coord` to the next coordinate of `shape` in row-major order (the
/// last dimension fastest); false, with `coord` back at zero, after the last.
bool nextRowMajor(MutableArrayRef<int64_t> coord, ArrayRef<int64_t> shape);

/// memoryTileOffset of every element of a tile of `shape`, in row-major
/// order of the coordinates: one table lookup per mode instead of a layout
/// evaluation per element (TMA placement and address comparisons enumerate
/// whole tiles).
std::vector<int64_t>
memoryTileOffsets(const ::argus::layout::SwizzledLayout &layout,
                  ArrayRef<int64_t> shape);

/// Fails with a diagnostic unless `dest`'s layout is exactly where a TMA copy
/// with `map` puts each element (tmaSharedByteOffset): the shape a multiple
/// of the box, the element type the map's.
LogicalResult verifyTmaPlacement(TileType dest, TensorMapType map,
                                 function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_TILELAYOUTS_H
