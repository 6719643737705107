//===- TileLayouts.cpp - the layout-algebra function of a tile ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/TileLayouts.h"
#include "argus/Dialect/Instructions.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

static InFlightDiagnostic fallbackError(Location loc) {
  return emitError(loc);
}

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
  L::Layout reindex =
      role == MmaOperand::B
          ? L::Layout(L::IntTuple::tuple({opCols, opRows}),
                      L::IntTuple::tuple({rows, 1}))
          : L::Layout(L::IntTuple::tuple({opRows, opCols}),
                      L::IntTuple::tuple({1, rows}));
  llvm::Expected<L::Layout> inTile = L::composition(reindex, tv);
  if (!inTile)
    return emit() << "cannot place " << frag.getInstr() << " operand "
                  << stringifyMmaOperand(role) << " in a tile: "
                  << llvm::toString(inTile.takeError());
  ArrayRef<int64_t> warps = frag.getWarps();
  bool usesWarpRows = role != MmaOperand::B;
  bool usesWarpCols = role != MmaOperand::A;
  int64_t wr = usesWarpRows ? warps[0] : 1, wc = usesWarpCols ? warps[1] : 1;
  int64_t reps[2] = {shape[0] / (opRows * wr), shape[1] / (opCols * wc)};
  int64_t rowStep = opRows, colStep = rows * opCols;
  L::Layout threads = L::Layout::concat(
      {inTile->mode(0), L::Layout(warps[0], usesWarpRows ? rowStep : 0),
       L::Layout(warps[1], usesWarpCols ? colStep : 0)});
  L::Layout slots = L::Layout::concat(
      {inTile->mode(1), L::Layout(reps[0], rowStep * wr),
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
