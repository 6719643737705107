//===- MemoryModel.cpp - memory ops and synchronisation terms -------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "MemoryModel.h"
#include "SymbolicTerms.h"

#include "argus/Dialect/TagFields.h"

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace argus::verify::detail {

bool isWriteOp(Operation *op) { return isa<CopyOp, CopyAsyncOp, StoreOp>(op); }

Value writeDest(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getDest();
  if (auto c = dyn_cast<CopyAsyncOp>(op))
    return c.getDest();
  return cast<StoreOp>(op).getDest();
}

bool isSharedTile(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.getMemorySpace() == MemorySpace::Shared;
}

bool isGlobalTile(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.isMemory() && !isSharedTile(v);
}

Operation *globalViewOf(Value tile) {
  for (Operation *d = tile.getDefiningOp(); d;
       d = d->getOperand(0).getDefiningOp()) {
    if (isa<ViewOp, GatherViewOp>(d))
      return d;
    if (!isa<TagOp, TransposeOp>(d))
      return nullptr;
  }
  return nullptr;
}

Value viewedTensor(Operation *view) {
  if (auto v = dyn_cast<ViewOp>(view))
    return v.getTensor();
  return cast<GatherViewOp>(view).getTensor();
}

bool readsRoot(Operation *p, Value root) {
  if (isa<LoadOp, CopyOp, CopyAsyncOp>(p))
    return isSharedTile(p->getOperand(0)) &&
           getMemoryRoot(p->getOperand(0)) == root;
  if (isa<MmaOp, MmaAsyncOp>(p))
    for (Value v : {p->getOperand(0), p->getOperand(1)})
      if (isSharedTile(v) && getMemoryRoot(v) == root)
        return true;
  return false;
}

std::optional<L::Layout> accessLayout(Operation *op) {
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getThreads().getLayout().layout;
  if (auto c = dyn_cast<CopyAsyncOp>(op))
    return c.getThreads().getLayout().layout;
  if (auto ld = dyn_cast<LoadOp>(op))
    return registerLayout(cast<TileType>(ld.getResult().getType()));
  if (auto st = dyn_cast<StoreOp>(op))
    return registerLayout(cast<TileType>(st.getValue().getType()));
  if (auto t = dyn_cast<TmaLoadOp>(op)) {
    // One elected thread issues the copy of the whole tile: its "slots"
    // are the tile's elements.
    int64_t n = cast<TileType>(t.getDest().getType()).getNumElements();
    return L::Layout(L::IntTuple::tuple({1, n}), L::IntTuple::tuple({0, 1}));
  }
  return std::nullopt;
}

z3::expr anyBarrier(z3::context &ctx, ArrayRef<SyncEvent> events, size_t from) {
  z3::expr b = ctx.bool_val(false);
  for (size_t j = from; j < events.size(); ++j)
    if (events[j].kind == SyncEvent::Barrier)
      b = b || events[j].guard;
  return b;
}

z3::expr unsynchronised(z3::context &ctx, const Candidate &cd,
                        const z3::expr &wt, const z3::expr &tr) {
  auto bv = [&](int64_t v) { return ctx.bv_val(v, kWidth); };
  // Asynchronous accesses last until their group retires: cp.async groups
  // for copy_async, wgmma groups for the shared operands of mma_async.
  SyncEvent::Kind commitKind, waitKind;
  if (isa<CopyAsyncOp>(cd.op)) {
    commitKind = SyncEvent::Commit;
    waitKind = SyncEvent::Wait;
  } else if (isa<MmaAsyncOp>(cd.op)) {
    commitKind = SyncEvent::WgmmaCommit;
    waitKind = SyncEvent::WgmmaWait;
  } else {
    return wt != tr && !anyBarrier(ctx, cd.events);
  }
  // The first commit after the access closes its group; a later wait N
  // retires it once N more groups were committed after it.
  size_t i0 = cd.events.size();
  for (size_t j = 0; j < cd.events.size(); ++j)
    if (cd.events[j].kind == commitKind) {
      i0 = j;
      break;
    }
  z3::expr retired = ctx.bool_val(false), visible = ctx.bool_val(false);
  if (i0 < cd.events.size()) {
    z3::expr closed = z3::implies(cd.inst.guard, cd.events[i0].guard);
    z3::expr count = bv(0);
    for (size_t j = i0 + 1; j < cd.events.size(); ++j) {
      const SyncEvent &e = cd.events[j];
      if (e.kind == commitKind)
        count = count + z3::ite(e.guard, bv(1), bv(0));
      else if (e.kind == waitKind) {
        z3::expr r = closed && e.guard && z3::uge(count, bv(e.n));
        retired = retired || r;
        visible = visible || (r && anyBarrier(ctx, cd.events, j + 1));
      }
    }
  }
  return !retired || (wt != tr && !visible);
}

} // namespace argus::verify::detail
