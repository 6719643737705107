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
// `wgmma-register-operand`: a register A operand is read by the hardware
// until the wgmma's group retires, and the registers must not change until
// then. SSA values never change, but their registers are reused: a value
// defined in a loop is written by the same instruction in the next
// iteration, and a loop-carried value may share its registers with the
// value yielded for the next iteration. The lowering keeps the registers
// live up to the wait that retires the group when that wait is in the
// mma's block (AsyncWgmmaLowering.cpp), which makes every such reuse come
// after it. The check proves that wait exists; without one (a group left
// in flight into the next iteration, or never retired) the registers can
// be overwritten while the wgmma reads them: violated.
//
//===----------------------------------------------------------------------===//

#include "KernelVerifier.h"
#include "OpNames.h"

#include "argus/Dialect/WgmmaGroups.h"

using namespace mlir;
using namespace mlir::argus;

namespace argus::verify::detail {

namespace {
enum class Readiness { Ready, Pending, Unknown };

/// Whether `wgmma_wait N` retires the group of mma_async result `in`
/// (WgmmaGroups.h: counted on the straight-line code of one block, the
/// same warpgroup's program order); anything else is unknown.
Readiness waitRetires(Value in, WgmmaWaitOp w) {
  auto m = in.getDefiningOp<MmaAsyncOp>();
  if (!m)
    return Readiness::Unknown;
  switch (retirementAt(m, w)) {
  case Retirement::Retired:
    return Readiness::Ready;
  case Retirement::Pending:
    return Readiness::Pending;
  case Retirement::Uncounted:
    break;
  }
  return Readiness::Unknown;
}

/// The mma_async ops whose results `v` may carry (through loops and
/// waits).
void mmaSources(Value v, llvm::SmallPtrSetImpl<const void *> &seen,
                SmallVectorImpl<MmaAsyncOp> &out) {
  if (!seen.insert(v.getAsOpaquePointer()).second)
    return;
  auto fromLoop = [&](scf::ForOp loop, unsigned i) {
    mmaSources(loop.getInitArgs()[i], seen, out);
    mmaSources(loop.getYieldedValues()[i], seen, out);
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg.getArgNumber() > 0)
      fromLoop(loop, arg.getArgNumber() - 1);
    return;
  }
  Operation *def = v.getDefiningOp();
  if (auto m = dyn_cast<MmaAsyncOp>(def))
    out.push_back(m);
  else if (auto w = dyn_cast<WgmmaWaitOp>(def))
    mmaSources(w.getValues()[cast<OpResult>(v).getResultNumber()], seen, out);
  else if (auto loop = dyn_cast<scf::ForOp>(def))
    fromLoop(loop, cast<OpResult>(v).getResultNumber());
}

/// Whether register value `v` is ready to read; `kernelCommits`: whether
/// the kernel has a wgmma_commit at all.
Readiness readiness(Value v, bool kernelCommits,
                    llvm::SmallPtrSetImpl<const void *> &seen) {
  if (!seen.insert(v.getAsOpaquePointer()).second)
    return Readiness::Ready; // a cycle adds nothing
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return Readiness::Ready;
    unsigned i = arg.getArgNumber() - 1;
    Readiness a = readiness(loop.getInitArgs()[i], kernelCommits, seen);
    Readiness b = readiness(loop.getYieldedValues()[i], kernelCommits, seen);
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
    Readiness r = readiness(in, kernelCommits, seen);
    if (r == Readiness::Ready)
      return Readiness::Ready;
    // An mma of this block is counted; one from elsewhere (a loop's
    // result) is retired by a wait 0 once every mma it may come from has
    // been committed (uncommitted wgmmas belong to no group).
    Readiness counted = waitRetires(in, w);
    if (counted != Readiness::Unknown || w.getPending() != 0)
      return counted;
    SmallVector<MmaAsyncOp> sources;
    llvm::SmallPtrSet<const void *, 16> visited;
    mmaSources(in, visited, sources);
    if (!kernelCommits)
      return Readiness::Pending;
    return llvm::all_of(sources,
                        [&](MmaAsyncOp m) { return committedBefore(m, w); })
               ? Readiness::Ready
               : Readiness::Unknown;
  }
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    Readiness a = readiness(loop.getInitArgs()[i], kernelCommits, seen);
    Readiness b = readiness(loop.getYieldedValues()[i], kernelCommits, seen);
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
  bool kernelCommits = false;
  func.walk([&](WgmmaCommitOp) { kernelCommits = true; });
  func.walk([&](Operation *op) {
    for (OpOperand &use : op->getOpOperands()) {
      auto t = dyn_cast<TileType>(use.get().getType());
      if (!t || t.isMemory() || chainsPending(use))
        continue;
      // Only values that an mma_async may reach are checked.
      SmallVector<MmaAsyncOp> sources;
      llvm::SmallPtrSet<const void *, 16> visited;
      mmaSources(use.get(), visited, sources);
      if (sources.empty())
        continue;
      llvm::SmallPtrSet<const void *, 16> seen;
      CheckResult res = newCheck("wgmma-ready", op, op);
      res.predicate = "operand #" + std::to_string(use.getOperandNumber()) +
                      " (an mma_async result) is read after a wgmma_wait "
                      "retired its group";
      Readiness r = readiness(use.get(), kernelCommits, seen);
      runCheck({&res}, [&](Query &Q) {
        if (r == Readiness::Unknown)
          unsupported("the value passes a wgmma_wait whose retirement the "
                      "verifier cannot count (a depth above 0 with the mma "
                      "in another block or commits inside nested regions, "
                      "or a wait 0 with no wgmma_commit shown to follow "
                      "every mma it may come from; hint: commit right "
                      "after the mma and use argus.wgmma_wait 0 before "
                      "reading the accumulator)");
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

void KernelVerifier::checkWgmmaRegisterOperands(std::vector<CheckResult> &out) {
  func.walk([&](MmaAsyncOp m) {
    if (m.getA().getType().isMemory())
      return;
    CheckResult res = newCheck("wgmma-register-operand", m, m);
    res.predicate = "a wgmma_wait in the mma's block retires its group, so "
                    "the registers of A (read until then) stay intact";
    bool uncounted = false;
    WgmmaWaitOp wait = retiringWait(m, uncounted);
    runCheck({&res}, [&](Query &Q) {
      if (!wait && uncounted)
        unsupported("a wgmma_wait after the mma follows commits inside "
                    "nested regions, which the verifier does not count; "
                    "hint: commit in the mma's block");
      Inst in = freshInst(m);
      std::optional<z3::model> mdl =
          findWitness(res, {ctx.bool_val(!wait)}, in);
      if (!mdl)
        return;
      Counterexample cx;
      fillCommon(cx, *mdl, in);
      cx.notes.push_back(
          opDesc(m) +
          " reads A from registers until its group retires, but no "
          "wgmma_wait after it in its block retires the group (wait N "
          "needs N + 1 commits after the mma): the next iteration's "
          "fragment, or another value, may take those registers while the "
          "wgmma still reads them; hint: retire the group in the same "
          "iteration (argus.wgmma_wait after its commit), or read A from "
          "shared memory");
      res.counterexamples.push_back(cx);
    });
    out.push_back(res);
  });
}

} // namespace argus::verify::detail
