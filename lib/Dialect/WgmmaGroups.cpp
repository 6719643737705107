//===- WgmmaGroups.cpp - which wgmma_wait retires an mma_async ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/WgmmaGroups.h"

using namespace mlir;
using namespace mlir::argus;

/// Whether `op` holds a wgmma_commit in one of its regions.
static bool commitsInside(Operation *op) {
  bool found = false;
  for (Region &r : op->getRegions())
    r.walk([&](WgmmaCommitOp) { found = true; });
  return found;
}

Retirement mlir::argus::retirementAt(MmaAsyncOp mma, WgmmaWaitOp wait) {
  if (mma->getBlock() != wait->getBlock() || !mma->isBeforeInBlock(wait))
    return Retirement::Uncounted;
  int64_t commits = 0;
  for (Operation *o = mma->getNextNode(); o != wait.getOperation();
       o = o->getNextNode()) {
    if (isa<WgmmaCommitOp>(o))
      ++commits;
    else if (commitsInside(o))
      return Retirement::Uncounted;
  }
  // Uncommitted wgmmas belong to no group: even `wgmma_wait 0` leaves them
  // running.
  return commits >= int64_t(wait.getPending()) + 1 ? Retirement::Retired
                                                   : Retirement::Pending;
}

WgmmaWaitOp mlir::argus::retiringWait(MmaAsyncOp mma, bool &uncounted) {
  uncounted = false;
  for (Operation *o = mma->getNextNode(); o; o = o->getNextNode()) {
    auto wait = dyn_cast<WgmmaWaitOp>(o);
    if (!wait)
      continue;
    switch (retirementAt(mma, wait)) {
    case Retirement::Retired:
      return wait;
    case Retirement::Uncounted:
      uncounted = true;
      return nullptr;
    case Retirement::Pending:
      break;
    }
  }
  return nullptr;
}

/// Whether a wgmma_commit lies in the straight-line code of `from`'s block
/// after `from` and before `to` (the block's end when null).
static bool commitBetween(Operation *from, Operation *to) {
  for (Operation *o = from->getNextNode(); o && o != to; o = o->getNextNode())
    if (isa<WgmmaCommitOp>(o))
      return true;
  return false;
}

bool mlir::argus::committedBefore(MmaAsyncOp mma, WgmmaWaitOp wait) {
  for (Operation *op = mma; op; op = op->getParentOp()) {
    Block *block = op->getBlock();
    if (!block)
      return false;
    // The wait in this block, or nested in an op of it, after `op`: the
    // commit must come first.
    Operation *at = block->findAncestorOpInBlock(*wait);
    if (at == op)
      return false; // in another region of the op that holds the mma
    if (at && op->isBeforeInBlock(at))
      return commitBetween(op, at);
    // The wait after this block, or before `op` in it (a loop body: it
    // waits for an earlier iteration's mma, which the rest of that
    // iteration followed): a commit later in the block runs whenever `op`
    // did, before control leaves the block.
    if (commitBetween(op, nullptr))
      return true;
    if (at)
      return false;
  }
  return false;
}
