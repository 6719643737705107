//===- WgmmaGroups.h - which wgmma_wait retires an mma_async ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// An argus.mma_async joins the wgmma group that the next argus.wgmma_commit
// closes; `argus.wgmma_wait N` retires every committed group but the N most
// recent. The verifier (which results may be read, how long a register
// operand must stay intact) and the lowering (which registers a wait keeps
// alive) ask the same question, counted the same way: on the straight-line
// code of the mma's block.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_WGMMAGROUPS_H
#define ARGUS_DIALECT_WGMMAGROUPS_H

#include "argus/Dialect/ArgusDialect.h"

namespace mlir::argus {

/// Whether `wait` retires the group of `mma`.
enum class Retirement {
  Retired,   // at least pending + 1 commits lie between them
  Pending,   // fewer: the mma's group is among the most recent (or not
             // committed at all)
  Uncounted, // not one block's straight-line code, or commits in nested
             // regions that may or may not run
};

/// Counts the commits between `mma` and `wait`, both in one block with the
/// mma first; anything else is Uncounted.
Retirement retirementAt(MmaAsyncOp mma, WgmmaWaitOp wait);

/// The first wgmma_wait after `mma` in its block that retires its group, or
/// null when none does. `uncounted` is set when a wait in between could not
/// be counted (the answer may then be a later wait than the real one, or
/// null although one retires it).
WgmmaWaitOp retiringWait(MmaAsyncOp mma, bool &uncounted);

/// Whether a wgmma_commit runs after every execution of `mma` before
/// `wait` runs: a commit follows the mma (or the op holding it) in
/// straight-line code of its block before the op holding the wait, or
/// before the block's end when the wait lies outside it or before the mma
/// (an earlier iteration's). False when that cannot be shown.
bool committedBefore(MmaAsyncOp mma, WgmmaWaitOp wait);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_WGMMAGROUPS_H
