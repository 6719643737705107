//===- RoleLowering.cpp - argus.role to a warp-uniform branch -------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Before the conversion, every warp role becomes
//   if (warp in [first_warp, end_warp)) { [setmaxnreg] body }
// with the role's thread range on the scf.if (kRoleAttr), so that the tile
// lowerings inside see role-local thread ids (getKernelInfo /
// linearThreadId). Consecutive roles form one if / else-if chain: ptxas
// honours setmaxnreg only when each warpgroup's role is one branch of a
// single if/else (HOPPER.md), and then needs a register cap at entry
// (.maxntid and .minnctapersm).
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

using namespace mlir;
using namespace mlir::argus;

/// 32-bit registers per thread a kernel of `threads` threads starts with when
/// `blocks` blocks must fit an SM (64 Ki registers, allocated in units of 8).
static int64_t entryRegisterBudget(int64_t threads, int64_t blocks) {
  int64_t perThread = 65536 / (threads * std::max<int64_t>(blocks, 1));
  return std::min<int64_t>(perThread / 8 * 8, 255);
}

LogicalResult mlir::argus::lowerRoles(gpu::GPUFuncOp gfn) {
  SmallVector<RoleOp> roles;
  gfn.walk([&](RoleOp r) { roles.push_back(r); });
  if (roles.empty())
    return success();
  KernelInfo k = getKernelInfo(gfn);
  MLIRContext *ctx = gfn.getContext();
  bool setsRegs = llvm::any_of(roles, [](RoleOp r) { return r.getRegs(); });
  int64_t blocks = 1;
  if (auto m = gfn->getAttrOfType<IntegerAttr>("nvvm.minctasm"))
    blocks = std::max<int64_t>(m.getInt(), 1);
  if (setsRegs) {
    if (!k.target->hasSetMaxNReg())
      return roles.front().emitOpError()
             << "sets a register budget, which only sm_90a has (setmaxnreg); "
                "hint: drop `regs` when lowering for "
             << k.chip;
    // The register cap at entry that makes ptxas honour setmaxnreg.
    gfn->setAttr(
        "nvvm.maxntid",
        DenseI32ArrayAttr::get(ctx, {int32_t(k.block[0]), int32_t(k.block[1]),
                                     int32_t(k.block[2])}));
    gfn->setAttr("nvvm.minctasm",
                 IntegerAttr::get(IntegerType::get(ctx, 32), blocks));
  }
  int64_t entry = entryRegisterBudget(k.blockThreads(), blocks);
  // The warp index, computed once and made warp-uniform for ptxas (a
  // shuffle from lane 0), at the first role.
  OpBuilder b(roles.front());
  Location loc = roles.front().getLoc();
  Value tid = blockThreadId(b, loc, k);
  Value warp = arith::DivUIOp::create(b, loc, tid, cidx(b, loc, k.warpSize));
  Value warp32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), warp);
  warp32 = k.target->makeWarpUniform(b, loc, warp32);
  // Adjacent roles form one if / else-if chain.
  SmallVector<SmallVector<RoleOp>> chains;
  for (RoleOp r : roles) {
    if (!chains.empty() &&
        chains.back().back()->getNextNode() == r.getOperation())
      chains.back().push_back(r);
    else
      chains.push_back({r});
  }
  for (MutableArrayRef<RoleOp> chain : chains) {
    b.setInsertionPoint(chain.front());
    for (size_t i = 0; i < chain.size(); ++i) {
      RoleOp role = chain[i];
      loc = role.getLoc();
      int64_t first = role.getFirstWarp(), end = role.getEndWarp();
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       warp32, constI32(b, loc, end));
      if (first > 0)
        in = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp32,
                                  constI32(b, loc, first)),
            in);
      bool more = i + 1 < chain.size();
      auto ifOp = scf::IfOp::create(b, loc, in, /*withElseRegion=*/more);
      // Named barrier 0 is the block's; role i synchronises on 1 + i.
      int64_t barrierId = 1 + llvm::find(roles, role) - roles.begin();
      ifOp->setAttr(kRoleAttr, b.getDenseI64ArrayAttr(
                                   {first * k.warpSize,
                                    (end - first) * k.warpSize, barrierId}));
      Block &then = ifOp.getThenRegion().front();
      OpBuilder tb = OpBuilder::atBlockTerminator(&then);
      if (std::optional<int64_t> regs = role.getRegs())
        inlinePtx(tb, loc, {}, {},
                  (Twine("setmaxnreg.") + (*regs > entry ? "inc" : "dec") +
                   ".sync.aligned.u32 " + Twine(*regs) + ";")
                      .str(),
                  "");
      Block &body = role.getBody().front();
      then.getOperations().splice(Block::iterator(then.getTerminator()),
                                  body.getOperations());
      if (more)
        b.setInsertionPoint(ifOp.getElseRegion().front().getTerminator());
    }
    for (RoleOp role : chain)
      role.erase();
  }
  return success();
}
