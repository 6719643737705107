//===- SiteRegions.cpp - regions made around measurement sites ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// argus-insert-probes measures a site by giving it a region of its own: a
// synchronization site is wrapped as it is; an asynchronous site is wrapped
// from its first issue to a forced completion wait (completion probes), or
// its issue and its completing op are wrapped separately (the reference
// trace the completion intervals are joined to). The forced wait runs only
// in the selected iterations of the innermost loop; for a TMA copy it waits
// for the barrier phase that copy completes, after the other copies of that
// phase (their bytes complete it together).
//
//===----------------------------------------------------------------------===//

#include "SiteRegions.h"

#include "argus/Analysis/MeasurementSites.h"
#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// The next free region ID of each kernel.
class RegionIds {
public:
  FailureOr<int64_t> take(Operation *at, StringRef name) {
    Operation *fn = at->getParentOfType<FunctionOpInterface>();
    auto [it, fresh] = next.try_emplace(fn, 0);
    if (fresh)
      fn->walk([&](RegionBeginOp b) {
        it->second = std::max<int64_t>(it->second, b.getId() + 1);
      });
    if (it->second > 0xFFFFFFFFll)
      return at->emitError() << "argus-insert-probes: no free region ID "
                                "below 2^32 for '"
                             << name << "'";
    return it->second++;
  }

private:
  llvm::DenseMap<Operation *, int64_t> next;
};

/// `region.begin name` before `first`, `region.end` after `last`.
LogicalResult wrap(Operation *first, Operation *last, StringRef name,
                   RegionIds &ids, llvm::StringSet<> &made) {
  if (first->getBlock() != last->getBlock() || last->isBeforeInBlock(first))
    return first->emitError()
           << "argus-insert-probes: '" << name
           << "' would span two blocks (its issue starts and ends in "
              "different blocks); hint: keep a group's copies and its commit "
              "in one block";
  FailureOr<int64_t> id = ids.take(first, name);
  if (failed(id))
    return failure();
  OpBuilder b(first);
  RegionBeginOp::create(b, first->getLoc(), name, *id);
  b.setInsertionPointAfter(last);
  RegionEndOp::create(b, last->getLoc(), *id);
  made.insert(name);
  return success();
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The parity of the barrier phase that `tma` completes, from a stage index
/// `x mod S` on a ring of S stages: the copy is the (x / S)-th use of its
/// slot, so its phase has parity (x / S) mod 2.
FailureOr<Value> phaseParity(OpBuilder &b, TmaLoadOp tma, StringRef site) {
  int64_t stages = cast<MBarrierType>(tma.getBarrier().getType()).getStages();
  auto rem = tma.getStage().getDefiningOp<arith::RemUIOp>();
  APInt divisor;
  if (!rem || !matchPattern(rem.getRhs(), m_ConstantInt(&divisor)) ||
      divisor.getSExtValue() != stages)
    return tma->emitError()
           << "argus-insert-probes: cannot force the completion of '" << site
           << "': its barrier phase is known only for a stage index `x mod "
           << stages << "` (the ring's stages); hint: index the ring with "
           << "`counter % " << stages << "`";
  Location loc = tma.getLoc();
  Value use = arith::DivUIOp::create(b, loc, rem.getLhs(),
                                     indexConstant(b, loc, stages));
  return Value(arith::RemUIOp::create(b, loc, use, indexConstant(b, loc, 2)));
}

/// The wait that forces `site`'s completion, built at `b`.
LogicalResult forceCompletion(OpBuilder &b, const MeasurementSite &site) {
  Location loc = site.issueEnd->getLoc();
  if (site.kind == "cp.async-group") {
    WaitGroupOp::create(b, loc, b.getI64IntegerAttr(0));
    return success();
  }
  if (site.kind == "wgmma-group") {
    WgmmaWaitOp::create(b, loc, TypeRange{}, b.getI64IntegerAttr(0),
                        ValueRange{});
    return success();
  }
  auto tma = cast<TmaLoadOp>(site.op);
  FailureOr<Value> parity = phaseParity(b, tma, site.site);
  if (failed(parity))
    return failure();
  MBarrierWaitOp::create(b, loc, tma.getBarrier(), tma.getStage(), *parity);
  return success();
}

/// Where the forced wait goes: after the issue, or for a TMA copy after the
/// last copy of its block that completes on the same barrier slot (the
/// phase completes only when all of their bytes have arrived: a wait
/// between them would never return).
Operation *forcedWaitPoint(const MeasurementSite &site) {
  auto tma = dyn_cast<TmaLoadOp>(site.issueEnd);
  if (!tma)
    return site.issueEnd;
  Operation *last = tma;
  for (Operation *op = tma->getNextNode(); op; op = op->getNextNode()) {
    if (auto next = dyn_cast<TmaLoadOp>(op))
      if (next.getBarrier() == tma.getBarrier() &&
          next.getStage() == tma.getStage())
        last = op;
    // The slot's next phase starts with its next expect_tx.
    if (auto tx = dyn_cast<MBarrierArriveExpectTxOp>(op))
      if (tx.getBarrier() == tma.getBarrier())
        break;
  }
  return last;
}

/// Region `completion:<site>` from the issue to a forced completion wait in
/// `iterations` of the innermost loop.
LogicalResult insertCompletion(const MeasurementSite &site,
                               ArrayRef<int64_t> iterations, RegionIds &ids,
                               llvm::StringSet<> &made) {
  Operation *end = forcedWaitPoint(site);
  OpBuilder b(end->getContext());
  b.setInsertionPointAfter(end);
  Location loc = end->getLoc();
  // The loop whose iteration the probe records count (ProbeEmission.cpp).
  auto loop = site.op->getParentOfType<scf::ForOp>();
  Operation *last;
  if (!loop) {
    if (llvm::any_of(iterations, [](int64_t i) { return i != 0; }))
      return site.op->emitError()
             << "argus-insert-probes: '" << site.site
             << "' is not in a loop: its only iteration is 0";
    if (failed(forceCompletion(b, site)))
      return failure();
    last = &*std::prev(b.getInsertionPoint());
  } else {
    // iv == lb + i * step for one of the iterations.
    Value cond;
    for (int64_t i : iterations) {
      Value offset = arith::MulIOp::create(b, loc, loop.getStep(),
                                           indexConstant(b, loc, i));
      Value target =
          arith::AddIOp::create(b, loc, loop.getLowerBound(), offset);
      Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       loop.getInductionVar(), target);
      cond = cond ? Value(arith::OrIOp::create(b, loc, cond, eq)) : eq;
    }
    auto forced = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder inner = forced.getThenBodyBuilder();
    if (failed(forceCompletion(inner, site)))
      return failure();
    last = forced;
  }
  return wrap(site.op, last, "completion:" + site.site, ids, made);
}

} // namespace

LogicalResult mlir::argus::insertSiteRegions(ModuleOp module,
                                             const SiteRegionRequest &req,
                                             llvm::StringSet<> &made) {
  FailureOr<MeasurementSites> sites = MeasurementSites::compute(module);
  if (failed(sites))
    return failure();
  llvm::StringMap<MeasurementSite> sync, async;
  for (const MeasuredRegion &r : sites->regions()) {
    for (const MeasurementSite &s : sites->syncSites(r.name))
      sync.try_emplace(s.site, s);
    for (const MeasurementSite &s : sites->asyncSites(r.name))
      async.try_emplace(s.site, s);
  }
  auto lookup = [&](llvm::StringMap<MeasurementSite> &table, StringRef name,
                    StringRef what) -> const MeasurementSite * {
    auto it = table.find(name);
    if (it != table.end())
      return &it->second;
    module.emitError() << "argus-insert-probes: no " << what << " site named '"
                       << name
                       << "'; hint: argus-opt --argus-print-sites lists them";
    return nullptr;
  };

  RegionIds ids;
  for (const std::string &name : req.syncSites) {
    const MeasurementSite *s = lookup(sync, name, "synchronization");
    if (!s)
      return failure();
    if (!made.contains(name) && failed(wrap(s->op, s->op, name, ids, made)))
      return failure();
  }
  // One forced wait per site, taken in each of its iterations.
  llvm::MapVector<StringRef, SmallVector<int64_t>> completions;
  for (const auto &[name, iteration] : req.completions)
    completions[name].push_back(iteration);
  for (auto &[name, iterations] : completions) {
    const MeasurementSite *s = lookup(async, name, "asynchronous");
    if (!s || failed(insertCompletion(*s, iterations, ids, made)))
      return failure();
  }
  for (const std::string &name : req.traceSites) {
    const MeasurementSite *s = lookup(async, name, "asynchronous");
    if (!s)
      return failure();
    if (made.contains("issue:" + name))
      continue;
    if (failed(wrap(s->op, s->issueEnd, "issue:" + name, ids, made)) ||
        (s->completion &&
         failed(wrap(s->completion, s->completion, "wait:" + name, ids, made))))
      return failure();
  }
  // The new markers must nest with each other and with the kernel's own.
  return success(succeeded(MeasurementSites::compute(module)));
}
