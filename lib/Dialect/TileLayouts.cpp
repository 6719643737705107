//===- TileLayouts.cpp - the layout-algebra function of a tile ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/TileLayouts.h"
#include "argus/Dialect/Instructions.h"

#include <mutex>
#include <set>

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

static InFlightDiagnostic fallbackError(Location loc) { return emitError(loc); }

FailureOr<L::Layout>
mlir::argus::getFragmentLayout(FragmentAttr frag, ArrayRef<int64_t> shape,
                               function_ref<InFlightDiagnostic()> emitError) {
  MLIRContext *ctx = frag.getContext();
  auto emit = [&]() {
    return emitError ? emitError() : fallbackError(UnknownLoc::get(ctx));
  };
  FailureOr<L::MmaInstr> instr = lookupInstruction(frag.getInstr(), emit);
  if (failed(instr))
    return failure();
  MmaOperand role = frag.getOperand();
  const L::Layout &tv = role == MmaOperand::A   ? instr->A.tv
                        : role == MmaOperand::B ? instr->B.tv
                                                : instr->C.tv;
  std::array<int64_t, 2> op = getOperandShape(*instr, role);
  int64_t rows = shape[0];
  int64_t opRows = op[0], opCols = op[1];
  // The descriptor's flat index is m + M*k (A), n + N*k (B), m + M*n (C);
  // re-index it into the tile's colexicographic coordinate row + rows*col.
  L::Layout reindex = role == MmaOperand::B
                          ? L::Layout(L::IntTuple::tuple({opCols, opRows}),
                                      L::IntTuple::tuple({rows, 1}))
                          : L::Layout(L::IntTuple::tuple({opRows, opCols}),
                                      L::IntTuple::tuple({1, rows}));
  llvm::Expected<L::Layout> inTile = L::composition(reindex, tv);
  if (!inTile)
    return emit() << "cannot place " << frag.getInstr() << " operand "
                  << stringifyMmaOperand(role)
                  << " in a tile: " << llvm::toString(inTile.takeError());
  ArrayRef<int64_t> warps = frag.getWarps();
  bool usesWarpRows = role != MmaOperand::B;
  bool usesWarpCols = role != MmaOperand::A;
  int64_t wr = usesWarpRows ? warps[0] : 1, wc = usesWarpCols ? warps[1] : 1;
  int64_t reps[2] = {shape[0] / (opRows * wr), shape[1] / (opCols * wc)};
  int64_t rowStep = opRows, colStep = rows * opCols;
  L::Layout threads = L::Layout::concat(
      {inTile->mode(0), L::Layout(warps[0], usesWarpRows ? rowStep : 0),
       L::Layout(warps[1], usesWarpCols ? colStep : 0)});
  L::Layout slots =
      L::Layout::concat({inTile->mode(1), L::Layout(reps[0], rowStep * wr),
                         L::Layout(reps[1], colStep * wc)});
  return L::Layout::concat({threads, slots});
}

FailureOr<L::Layout>
mlir::argus::getRegisterLayout(TileType type,
                               function_ref<InFlightDiagnostic()> emitError) {
  Attribute layout = type.getLayout();
  if (auto frag = dyn_cast_or_null<FragmentAttr>(layout))
    return getFragmentLayout(frag, type.getShape(), emitError);
  if (auto l = dyn_cast_or_null<LayoutAttr>(layout)) {
    L::SwizzledLayout s = l.getLayout();
    if (!s.swizzle)
      return s.layout;
    if (emitError)
      return emitError() << "register layouts cannot be swizzled";
    return failure();
  }
  if (emitError)
    return emitError() << "tile " << type << " has no register layout";
  return failure();
}

/// Whether a memory tile's layout has one mode per dimension (taken at the
/// coordinate itself), rather than one mode over the colexicographic index.
static bool modePerDimension(const L::Layout &l, ArrayRef<int64_t> shape) {
  return l.rank() == shape.size() && shape.size() > 1;
}

/// The colexicographic index of `coord` in `shape`.
static int64_t colexIndex(ArrayRef<int64_t> coord, ArrayRef<int64_t> shape) {
  int64_t lin = 0, prefix = 1;
  for (size_t k = 0; k < shape.size(); ++k) {
    lin += coord[k] * prefix;
    prefix *= shape[k];
  }
  return lin;
}

int64_t mlir::argus::memoryTileOffset(const L::SwizzledLayout &layout,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> coord) {
  if (modePerDimension(layout.layout, shape)) {
    std::vector<L::IntTuple> c(coord.begin(), coord.end());
    return layout(L::IntTuple::tuple(c));
  }
  return layout(colexIndex(coord, shape));
}

bool mlir::argus::nextRowMajor(MutableArrayRef<int64_t> coord,
                               ArrayRef<int64_t> shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++coord[d] < shape[d])
      return true;
    coord[d] = 0;
  }
  return false;
}

std::vector<int64_t>
mlir::argus::memoryTileOffsets(const L::SwizzledLayout &layout,
                               ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> out(static_cast<size_t>(n));
  const L::Layout &l = layout.layout;
  // One mode per dimension: the offset is the sum of the modes' values,
  // one table per mode. Otherwise a rank-1 layout over the colexicographic
  // index, as a table when it covers the tile.
  bool perMode = modePerDimension(l, shape);
  std::vector<std::vector<int64_t>> table(perMode ? shape.size() : 0);
  for (size_t d = 0; d < table.size(); ++d) {
    L::Layout mode = l.mode(d);
    for (int64_t i = 0; i < shape[d]; ++i)
      table[d].push_back(mode(i));
  }
  std::vector<int64_t> colex =
      !perMode && l.size() >= n ? l.values() : std::vector<int64_t>();
  std::vector<int64_t> coord(shape.size(), 0);
  for (int64_t &o : out) {
    if (perMode) {
      o = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        o += table[d][coord[d]];
    } else {
      int64_t lin = colexIndex(coord, shape);
      o = colex.empty() ? l(lin) : colex[lin];
    }
    if (layout.swizzle)
      o = (*layout.swizzle)(o);
    nextRowMajor(coord, shape);
  }
  return out;
}

LogicalResult
mlir::argus::verifyTmaPlacement(TileType dest, TensorMapType map,
                                function_ref<InFlightDiagnostic()> emitError) {
  ArrayRef<int64_t> shape = dest.getShape();
  ArrayRef<int64_t> box = map.getBox();
  if (dest.getElementType() != map.getElementType())
    return emitError() << "the tensor map moves " << map.getElementType()
                       << " elements but the tile holds "
                       << dest.getElementType();
  bool fits = shape.size() == box.size();
  for (size_t d = 0; fits && d < shape.size(); ++d)
    fits = shape[d] % box[d] == 0;
  if (!fits)
    return emitError() << "the " << formatShape(shape)
                       << " tile is not a grid of " << formatShape(box)
                       << " tensor-map boxes";
  auto layoutAttr = dyn_cast_or_null<LayoutAttr>(dest.getLayout());
  if (!layoutAttr)
    return emitError() << "the shared tile needs an explicit layout for a "
                          "TMA copy";
  L::SwizzledLayout layout = layoutAttr.getLayout();
  int64_t eb = dest.getElementType().getIntOrFloatBitWidth() / 8;
  // Op verifiers (and the tag-field inference, which verifies the ops it
  // looks through) check the same few placements again and again: remember
  // the ones that hold, by value.
  std::string key = layout.str() + "|" + formatShape(shape) + "|" +
                    formatShape(box) + "|" + std::to_string(eb) + "|" +
                    std::to_string(map.getSwizzle());
  static std::mutex mutex;
  static std::set<std::string> verified;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (verified.count(key))
      return success();
  }
  std::vector<int64_t> tile(shape.begin(), shape.end()),
      boxv(box.begin(), box.end()), coord(shape.size(), 0);
  std::vector<int64_t> offsets = memoryTileOffsets(layout, shape);
  for (size_t i = 0; i < offsets.size(); ++i, nextRowMajor(coord, shape)) {
    int64_t want =
        L::tmaSharedByteOffset(tile, boxv, eb, map.getSwizzle(), coord);
    int64_t got = offsets[i] * eb;
    if (want != got) {
      InFlightDiagnostic diag = emitError();
      diag << "the shared tile's layout \"" << layout.str()
           << "\" puts element (";
      llvm::interleaveComma(coord, diag);
      diag << ") at byte " << got << " but the TMA copy (box "
           << formatShape(box) << ", swizzle " << map.getSwizzle()
           << ") writes it at byte " << want
           << "; hint: boxes land one after another in row-major order, "
              "each row-major with the Sw<B,4,3> byte swizzle (B = 3, 2, 1 "
              "for 128, 64, 32 bytes)";
      return diag;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  verified.insert(std::move(key));
  return success();
}
