//===- InsertProbes.cpp - select argus regions to measure -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Marks the region markers of the selected regions with `argus_probe` and
// records the probe plan on the kernel as `argus_probes`. The markers stay
// where they are (they have side effects, so no pass moves, merges or drops
// them); argus-to-gpu turns each probed marker into a timer read and a probe
// record, and erases the others. Sites asked for by name (`sync-sites`,
// `completion-site`, `site-trace`) first get regions of their own
// (SiteRegions.cpp).
//
//===----------------------------------------------------------------------===//

#include "SiteRegions.h"

#include "argus/Conversion/ArgusToGPU/TargetInfo.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSINSERTPROBES
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

struct ArgusInsertProbesPass
    : public ::mlir::argus::impl::ArgusInsertProbesBase<ArgusInsertProbesPass> {
  using ArgusInsertProbesBase::ArgusInsertProbesBase;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    // Bad options: the pass fails with one error on the module.
    auto fail = [&] {
      signalPassFailure();
      return top.emitError() << "argus-insert-probes: ";
    };
    bool duration = signals.empty(), timeline = signals.empty();
    for (const std::string &s : signals) {
      if (s == "duration")
        duration = true;
      else if (s == "timeline")
        timeline = true;
      else
        return (void)(fail() << "unknown signal '" << s
                             << "' (expected duration or timeline)");
    }
    int64_t lo = 0, hi = -1;
    if (!iterationWindow.empty()) {
      auto [a, b] = StringRef(iterationWindow).split(':');
      if (a.trim().getAsInteger(10, lo) || b.trim().getAsInteger(10, hi) ||
          lo < 0 || hi < lo)
        return (void)(fail() << "iteration-window must be 'lo:hi' with 0 <= "
                                "lo <= hi, got '"
                             << iterationWindow << "'");
    }
    static const char *clocks[] = {"default", "globaltimer", "clock64",
                                   "memtime", "memrealtime"};
    if (!llvm::is_contained(clocks, StringRef(clock)))
      return (void)(fail() << "unknown clock '" << clock
                           << "' (globaltimer, clock64, memtime, memrealtime)");
    if (capacity <= 0 || capacity > 0xFFFFFFFFll)
      return (void)(fail() << "capacity must be positive");
    llvm::StringSet<> wanted;
    for (const std::string &r : regions)
      wanted.insert(r);
    llvm::StringSet<> seen;
    if (completionSites.size() != completionIterations.size())
      return (void)(fail() << "completion-site and completion-iteration are "
                              "paired lists: "
                           << completionSites.size() << " site(s), "
                           << completionIterations.size() << " iteration(s)");
    SiteRegionRequest request;
    request.syncSites.assign(syncSites.begin(), syncSites.end());
    request.traceSites.assign(traceSites.begin(), traceSites.end());
    for (auto [site, iteration] :
         llvm::zip(completionSites, completionIterations)) {
      if (iteration < 0)
        return (void)(fail() << "completion-iteration must be >= 0, got "
                             << iteration);
      request.completions.emplace_back(site, iteration);
    }
    llvm::StringSet<> forced; // the regions made for sites
    if (!request.empty() && failed(insertSiteRegions(top, request, forced)))
      return signalPassFailure();
    // No selection means every region; sites alone select only theirs.
    bool all = regions.empty() && request.empty();
    for (auto &f : forced)
      wanted.insert(f.getKey());
    // The plan is this run's selection: markers a previous run probed and
    // this one does not select are not probed (the lowering pipeline re-runs
    // the pass with its own options).
    // With keep-plans, a kernel planned before (argus-insert-probes with
    // scope, window or site options, then a lowering pipeline) keeps its
    // plan and markers as they are.
    auto planned = [&](func::FuncOp fn) {
      return keepPlans && fn->hasAttr("argus_probes");
    };
    top.walk([&](Operation *op) {
      auto fn = op->getParentOfType<func::FuncOp>();
      if (isa<RegionBeginOp, RegionEndOp>(op) && !(fn && planned(fn)))
        op->removeAttr("argus_probe");
    });

    Builder b(&getContext());
    top.walk([&](func::FuncOp fn) {
      auto kernel = fn->getAttrOfType<KernelAttr>("argus.kernel");
      if (!kernel || planned(fn))
        return;
      StringRef target = kernel.getTarget();
      const TargetInfo &ti = TargetInfo::get(target);
      std::string clk = clock;
      if (clk == "default")
        clk = ti.getDefaultProbeClock().str();
      SmallVector<NamedAttribute> names;
      fn.walk([&](RegionBeginOp begin) {
        std::string id = std::to_string(begin.getId());
        bool selected =
            all || wanted.contains(begin.getName()) || wanted.contains(id);
        if (wanted.contains(begin.getName()))
          seen.insert(begin.getName());
        if (wanted.contains(id))
          seen.insert(id);
        bool inLoop = false;
        for (Operation *p = begin->getParentOp(); p && p != fn;
             p = p->getParentOp())
          if (isa<LoopLikeOpInterface>(p))
            inLoop = true;
        if (!selected || !(forced.contains(begin.getName()) ||
                           (inLoop ? timeline : duration)))
          return;
        begin->setAttr("argus_probe", b.getUnitAttr());
        names.push_back(b.getNamedAttr(id, begin.getNameAttr()));
        // The matching end: later in the same block (the verifier checks).
        SmallVector<int64_t> open;
        for (Operation *op = begin->getNextNode(); op; op = op->getNextNode()) {
          if (auto inner = dyn_cast<RegionBeginOp>(op)) {
            open.push_back(inner.getId());
          } else if (auto end = dyn_cast<RegionEndOp>(op)) {
            if (!open.empty() && open.back() == end.getId()) {
              open.pop_back();
            } else if (end.getId() == begin.getId()) {
              end->setAttr("argus_probe", b.getUnitAttr());
              break;
            }
          }
        }
      });
      int64_t warpSize = ti.getWarpSize();
      auto plan = ProbePlanAttr::get(
          b.getContext(), capacity, clk, b.getDictionaryAttr(names),
          b.getDenseI64ArrayAttr(scopeWarps),
          b.getDenseI64ArrayAttr(scopeBlocks), lo, hi, warpSize,
          kernel.getNumThreads() / warpSize);
      fn->setAttr("argus_probes", plan);
    });
    for (const std::string &r : regions)
      if (!seen.contains(r) && !forced.contains(r))
        return (void)(fail() << "no region named or numbered '" << r
                             << "' in any kernel");
  }
};

} // namespace
