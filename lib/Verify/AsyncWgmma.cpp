//===- AsyncWgmma.cpp - results of asynchronous wgmma read when ready
//------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// An argus.mma_async result is pending until a wgmma_wait retires its
// group: until then only another mma_async (as its accumulator, which the
// hardware chains in order), a wgmma_wait or a loop carrying it may use it.
// `wgmma-ready` checks every other use: proved when the value comes out of a
// `wgmma_wait 0`, or from a `wgmma_wait N` with at least N + 1 commits
// between the mma and the wait in one block (its group is then not among
// the N most recent); violated when it comes straight from an mma_async
// (or a loop carrying one) or from a wait that leaves its group pending;
// unknown otherwise.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {
enum class Readiness { Ready, Pending, Unknown };

/// Whether `wgmma_wait N` (N > 0) retires the group of mma_async result
/// `in`: its group is committed by the first commit after the mma; the
/// wait retires all but the N most recent groups, so it retires this one
/// when at least N + 1 commits lie between the mma and the wait. Counted
/// on straight-line code of one block (the same warpgroup's program
/// order); anything else is unknown.
Readiness waitRetires(Value in, WgmmaWaitOp w) {
  auto m = in.getDefiningOp<MmaAsyncOp>();
  if (!m || m->getBlock() != w->getBlock() || !m->isBeforeInBlock(w))
    return Readiness::Unknown;
  int64_t commits = 0;
  for (Operation *o = m->getNextNode(); o && o != w.getOperation();
       o = o->getNextNode()) {
    if (isa<WgmmaCommitOp>(o)) {
      ++commits;
      continue;
    }
    bool nested = false;
    for (Region &r : o->getRegions())
      r.walk([&](WgmmaCommitOp) { nested = true; });
    if (nested)
      return Readiness::Unknown;
  }
  return commits >= int64_t(w.getPending()) + 1 ? Readiness::Ready
                                                : Readiness::Pending;
}

/// Whether register value `v` is ready to read.
Readiness readiness(Value v, llvm::SmallPtrSetImpl<const void *> &seen) {
  if (!seen.insert(v.getAsOpaquePointer()).second)
    return Readiness::Ready; // a cycle adds nothing
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return Readiness::Ready;
    unsigned i = arg.getArgNumber() - 1;
    Readiness a = readiness(loop.getInitArgs()[i], seen);
    Readiness b = readiness(loop.getYieldedValues()[i], seen);
    return a == Readiness::Pending || b == Readiness::Pending
               ? Readiness::Pending
           : a == Readiness::Unknown || b == Readiness::Unknown
               ? Readiness::Unknown
               : Readiness::Ready;
  }
  Operation *def = v.getDefiningOp();
  if (isa<MmaAsyncOp>(def))
    return Readiness::Pending;
  if (auto w = dyn_cast<WgmmaWaitOp>(def)) {
    Value in = w.getValues()[cast<OpResult>(v).getResultNumber()];
    Readiness r = readiness(in, seen);
    if (r == Readiness::Ready || w.getPending() == 0)
      return Readiness::Ready;
    return waitRetires(in, w);
  }
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    Readiness a = readiness(loop.getInitArgs()[i], seen);
    Readiness b = readiness(loop.getYieldedValues()[i], seen);
    return a == Readiness::Pending || b == Readiness::Pending
               ? Readiness::Pending
           : a == Readiness::Unknown || b == Readiness::Unknown
               ? Readiness::Unknown
               : Readiness::Ready;
  }
  return Readiness::Ready; // other ops compute from ready operands
}

/// Uses that may hold a pending value.
bool chainsPending(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<WgmmaWaitOp, scf::YieldOp, scf::ForOp, TagAssertOp>(user))
    return true;
  if (auto m = dyn_cast<MmaAsyncOp>(user))
    return use.getOperandNumber() == 2;
  return false;
}
} // namespace

void KernelVerifier::checkWgmmaReady(std::vector<CheckResult> &out) {
  func.walk([&](Operation *op) {
    for (OpOperand &use : op->getOpOperands()) {
      auto t = dyn_cast<TileType>(use.get().getType());
      if (!t || t.isMemory() || chainsPending(use))
        continue;
      llvm::SmallPtrSet<const void *, 16> seen;
      bool fromAsync = false;
      // Only values that an mma_async may reach are checked.
      llvm::SmallPtrSet<const void *, 16> seen2;
      std::function<bool(Value)> reaches = [&](Value v) -> bool {
        if (!seen2.insert(v.getAsOpaquePointer()).second)
          return false;
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
          if (!loop || arg.getArgNumber() == 0)
            return false;
          unsigned i = arg.getArgNumber() - 1;
          return reaches(loop.getInitArgs()[i]) ||
                 reaches(loop.getYieldedValues()[i]);
        }
        Operation *d = v.getDefiningOp();
        if (isa<MmaAsyncOp>(d))
          return true;
        if (auto w = dyn_cast<WgmmaWaitOp>(d))
          return reaches(w.getValues()[cast<OpResult>(v).getResultNumber()]);
        if (auto loop = dyn_cast<scf::ForOp>(d)) {
          unsigned i = cast<OpResult>(v).getResultNumber();
          return reaches(loop.getInitArgs()[i]) ||
                 reaches(loop.getYieldedValues()[i]);
        }
        return false;
      };
      fromAsync = reaches(use.get());
      if (!fromAsync)
        continue;
      CheckResult res = newCheck("wgmma-ready", op, op);
      res.predicate = "operand #" + std::to_string(use.getOperandNumber()) +
                      " (an mma_async result) is read after a wgmma_wait "
                      "retired its group";
      Readiness r = readiness(use.get(), seen);
      runCheck({&res}, [&](Query &Q) {
        if (r == Readiness::Unknown)
          unsupported("the value passes a wgmma_wait with a depth above 0 "
                      "whose retirement the verifier cannot count (the mma "
                      "in another block, or commits inside nested regions; "
                      "use argus.wgmma_wait 0 before reading the "
                      "accumulator)");
        Inst in = freshInst(op);
        std::optional<z3::model> m =
            findWitness(res, {ctx.bool_val(r == Readiness::Pending)}, in);
        if (!m)
          return;
        Counterexample cx;
        fillCommon(cx, *m, in);
        cx.notes.push_back(opDesc(op) +
                           " reads the accumulator of an asynchronous wgmma "
                           "whose group no wgmma_wait has retired: the "
                           "registers may still be written; hint: "
                           "argus.wgmma_wait 0 first");
        res.counterexamples.push_back(cx);
      });
      out.push_back(res);
    }
  });
}

} // namespace argus::verify::detail
