//===- TileAccess.h - per-thread accesses of memory tiles -------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// How a thread addresses the elements of a memory tile (gathered rows
// included), and the widest vector access the tile's layouts allow.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_CONVERSION_ARGUSTOGPU_TILEACCESS_H
#define ARGUS_LIB_CONVERSION_ARGUSTOGPU_TILEACCESS_H

#include "LoweringSupport.h"

namespace mlir::argus {

/// argus.gather_view lowers to an unrealized cast of (tensor, row indices,
/// column) carrying this marker; accesses through it read row indices[r].
constexpr StringLiteral kGatherAttr = "argus.gather";

/// The gather marker `mem` is, or null.
UnrealizedConversionCastOp gatherOf(Value mem);

/// A clipped argus.view lowers to an unrealized cast of (window, extent_0,
/// ..., extent_{r-1}) carrying this marker: the window's elements at a
/// coordinate k >= extent_k (outside the tensor) do not exist.
constexpr StringLiteral kClipAttr = "argus.clip";

/// The clip marker `mem` is, or null.
UnrealizedConversionCastOp clipOf(Value mem);

/// argus.im2col_view lowers to an unrealized cast of (tensor, row, column)
/// carrying this marker and the view's geometry (kIm2colGeometry: window,
/// stride, pad and dilation, one after the other): the tile's element
/// (i, j) is element (row + i, column + j) of the im2col matrix.
constexpr StringLiteral kIm2colAttr = "argus.im2col";
constexpr StringLiteral kIm2colGeometry = "argus.im2col_geometry";

/// The im2col marker `mem` is, or null.
UnrealizedConversionCastOp im2colOf(Value mem);

/// argus.transpose of a global tile lowers to an unrealized cast of the
/// input's converted value (a memref or a clip marker) carrying this marker:
/// element (i, j) of the result is element (j, i) of the input.
constexpr StringLiteral kTransposeAttr = "argus.transposed";

/// The transpose marker `mem` is, or null.
UnrealizedConversionCastOp transposeOf(Value mem);

/// The global tile that `tile` (an argus.transpose of one, possibly
/// tagged) transposes: its value and type; null when `tile` is no such
/// transpose.
std::pair<Value, TileType> transposedGlobal(Value tile);

/// Erase the gather, clip and transpose markers once their accesses are
/// lowered; fails (with a diagnostic) when an op that cannot read one still
/// uses it.
LogicalResult eraseAccessMarkers(ModuleOp top);

/// Indices into the converted memref of a memory tile at `coord`; `mem` is
/// replaced by the memref to access (the whole tensor for gathered rows).
/// A gathered row's index is element `rowSlot` of the thread's index
/// registers when given (gatherRowSlot), else the element at the row
/// coordinate of a replicated index tile.
SmallVector<Value> memIndices(OpBuilder &b, Location loc, Value &mem,
                              TileType t, ValueRange coord,
                              std::optional<int64_t> rowSlot = std::nullopt);

/// n elements of memory tile `t` from `coord` (see loadRun / storeRun).
/// Through a clipped view, elements outside the tensor read as `fill` (zero
/// when null) and are not stored; so do an im2col view's elements in the
/// padding or past its matrix.
Value loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                ValueRange coord, int64_t n, TypedAttr fill = {},
                std::optional<int64_t> rowSlot = std::nullopt);
void storeElems(OpBuilder &b, Location loc, Value val, Value mem, TileType t,
                ValueRange coord, int64_t n,
                std::optional<int64_t> rowSlot = std::nullopt);

/// Where a run of n elements of a clipped or im2col global view at `coord`
/// lies, for a copy that reads only what exists (cp.async's zero fill):
/// when `exact` holds (or is null), the first `count` elements of the run exist
/// (a prefix, from `idx` of `mem`) and the rest read as zero; otherwise the run
/// must be read element by element (an im2col run that crosses a window tap or
/// is misaligned). `idx` is meaningful only when count > 0.
struct BoundedRun {
  Value mem;
  SmallVector<Value> idx;
  Value count; // index
  Value exact; // i1; null when the run is always a prefix (clipped views)
};
std::optional<BoundedRun> boundedRun(OpBuilder &b, Location loc, Value mem,
                                     ValueRange coord, int64_t n);

/// For slot `slot` of an access by `tc` (threads [0, threads)) of the
/// gathered tile `tile` (an argus value, through tags, of an
/// argus.gather_view): the slot of the index tile's registers that holds,
/// in every thread, the index of the row that slot accesses. None when the
/// tile is not gathered or no one slot does (then the row coordinate
/// selects the index of a replicated index tile at run time, from memory).
std::optional<int64_t> gatherRowSlot(Value tile, const ThreadCoords &tc,
                                     int64_t threads, int64_t slot);

/// One atomic read-modify-write `kind` of the scalar `val` into the element
/// of global tile `t` at `coord` (memref.atomic_rmw: LLVM atomicrmw on the
/// global pointer). Through a clipped view, an element outside the tensor
/// is skipped.
void atomicElem(OpBuilder &b, Location loc, AtomicKind kind, Value val,
                Value mem, TileType t, ValueRange coord);

/// Largest vector width n (elements, at most 16 bytes) such that for every
/// thread, every group of n consecutive slots covers n consecutive, n-aligned
/// offsets under each of `offsets` (compile-time offset of a coordinate).
int64_t
contiguousWidth(const ThreadCoords &tc, int64_t threads, Type elem,
                ArrayRef<function_ref<int64_t(ArrayRef<int64_t>)>> offsets);

/// contiguousWidth over the elements of the memory tiles `mems`.
int64_t vectorWidth(const ThreadCoords &tc, int64_t threads,
                    ArrayRef<TileType> mems, Type elem);

/// The widest vector of a load or store through a transposed global tile
/// whose input is `input`: consecutive slots along the result's dimension 0
/// (the input's contiguous rows).
int64_t transposedVectorWidth(const ThreadCoords &tc, int64_t threads,
                              TileType input, Type elem);

} // namespace mlir::argus

#endif // ARGUS_LIB_CONVERSION_ARGUSTOGPU_TILEACCESS_H
