//===- RegisterBudget.cpp - register tiles against a thread's registers ---===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Before code generation: the 32-bit registers per thread that the register
// tiles live at each op need, against what a thread has on the target (255
// on NVIDIA; 512 on gfx942, 256 VGPRs and 256 AGPRs). Over it the backend
// spills to local (scratch) memory, which compiles but runs far slower, so
// this is a warning at the op where the most is live, with the live tiles as
// notes. A lower bound: temporaries of the lowering come on top. A tag is
// the same registers as the tile it tags; constant tiles (iotas, fills and
// what is computed from them alone) are folded into their uses and hold
// none; inside a warp role with `regs` the role's setmaxnreg budget is the
// limit.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::argus {

/// 32-bit registers per thread that a register tile holds (0 for others).
static int64_t tileRegisters(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  if (!t || t.isMemory())
    return 0;
  FailureOr<::argus::layout::Layout> l = getRegisterLayout(t);
  if (failed(l) || l->rank() != 2)
    return 0;
  int64_t bytes = l->mode(1).size() * elemBytes(t.getElementType());
  return (bytes + 3) / 4;
}

/// The tile whose registers `v` are: through tags, which only name them,
/// through mma_async and wgmma_wait, whose results are their accumulators'
/// registers (tied through the asm), through loop results, which are
/// their loop-carried values' registers, and through broadcasts, whose
/// elements are copies of their source's registers that the backend folds
/// into their uses.
static Value registerRoot(Value v) {
  while (true) {
    if (auto tag = v.getDefiningOp<TagOp>())
      v = tag.getInput();
    else if (auto b = v.getDefiningOp<BroadcastOp>())
      v = b.getInput();
    else if (auto mma = v.getDefiningOp<MmaAsyncOp>())
      v = mma.getAcc();
    else if (auto wait = v.getDefiningOp<WgmmaWaitOp>())
      v = wait.getValues()[cast<OpResult>(v).getResultNumber()];
    else if (auto loop = v.getDefiningOp<scf::ForOp>())
      v = loop.getInitArgs()[cast<OpResult>(v).getResultNumber()];
    else
      return v;
  }
}

/// Whether `v` is the same constants in every execution (an iota, a fill,
/// or a side-effect-free op of such tiles, like the causal mask's compare
/// of two iotas): the backend folds them into their uses or rematerializes
/// them there, so they hold no registers while live.
static bool isConstantTile(Value v, int depth = 4) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return false;
  if (isa<IotaOp, FillOp>(d))
    return true;
  if (depth == 0 || d->getNumOperands() == 0 || d->getNumRegions() ||
      !isMemoryEffectFree(d))
    return false;
  return llvm::all_of(d->getOperands(),
                      [&](Value o) { return isConstantTile(o, depth - 1); });
}

void warnRegisterBudget(func::FuncOp fn, StringRef chip) {
  Liveness liveness(fn);
  int64_t chipLimit = TargetInfo::get(chip).getThreadRegisterLimit();
  int64_t worst = 0, worstLimit = chipLimit, worstExcess = 0;
  bool worstInRole = false;
  Operation *at = nullptr;
  SmallVector<Value> worstLive;
  fn.walk([&](Operation *op) {
    if (op == fn.getOperation())
      return;
    // The tiles live into the op (its operands among them) and those live
    // out of it (its results, and what outlives it): an op computes its
    // result element by element, so an operand dying here frees its
    // registers as the result takes them; the need is the larger side.
    SmallVector<Value> liveIn, liveOut;
    llvm::SmallPtrSet<Value, 8> rootsIn, rootsOut;
    int64_t regsIn = 0, regsOut = 0;
    for (Value v :
         liveness.getLiveness(op->getBlock())->currentlyLiveValues(op)) {
      if (!tileRegisters(v) || isConstantTile(v))
        continue;
      Value root = registerRoot(v);
      bool result = v.getDefiningOp() == op;
      if (!result && rootsIn.insert(root).second) {
        regsIn += tileRegisters(root);
        liveIn.push_back(v);
      }
      if ((result || !liveness.isDeadAfter(v, op)) &&
          rootsOut.insert(root).second) {
        regsOut += tileRegisters(root);
        liveOut.push_back(v);
      }
    }
    int64_t regs = std::max(regsIn, regsOut);
    SmallVector<Value> &live = regsIn >= regsOut ? liveIn : liveOut;
    int64_t limit = chipLimit;
    auto role = op->getParentOfType<RoleOp>();
    if (role && role.getRegs())
      limit = std::min<int64_t>(limit, *role.getRegs());
    if (regs - limit > worstExcess) {
      worstExcess = regs - limit;
      worst = regs;
      worstLimit = limit;
      worstInRole = role && role.getRegs();
      at = op;
      worstLive = live;
    }
  });
  if (!at)
    return;
  InFlightDiagnostic d =
      at->emitWarning()
      << "the register tiles live here need at least " << worst
      << " 32-bit registers per thread, more than the " << worstLimit
      << (worstInRole ? " that the warp role's setmaxnreg gives a thread on "
                      : " a thread has on ")
      << chip
      << ": the kernel will spill to local memory; hint: smaller tiles, more "
         "threads per block or fewer tiles live at once";
  llvm::stable_sort(worstLive, [](Value a, Value b) {
    return tileRegisters(a) > tileRegisters(b);
  });
  for (Value v : llvm::ArrayRef(worstLive).take_front(4))
    d.attachNote(v.getLoc())
        << tileRegisters(v) << " registers per thread for this tile";
}

} // namespace mlir::argus
