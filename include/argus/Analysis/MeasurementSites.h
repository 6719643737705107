//===- MeasurementSites.h - what a measurement can target -----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// What the region measurement planner (python/argus/measure, issue 16)
// needs from a program version: its measured regions (name, ID, whether the
// region lies in a loop, its enclosing region and warp role) and, per
// region, the asynchronous sites issued there with the op that completes
// them (cp.async groups up to their commit and the wait_group after it,
// wgmma groups likewise, each TMA copy and the mbarrier.wait on its ring)
// and the synchronization sites (barriers and waits). Read-only; printed
// as JSON by --argus-print-sites and returned to Python by the bindings.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_ANALYSIS_MEASUREMENTSITES_H
#define ARGUS_ANALYSIS_MEASUREMENTSITES_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::argus {

/// One measured region (`argus.region.begin` ... `argus.region.end`).
struct MeasuredRegion {
  std::string name;
  int64_t id = 0;
  /// The markers lie in the body of a loop (such regions are timed per
  /// iteration).
  bool inLoop = false;
  /// The innermost region open at the begin marker ("" at the top).
  std::string parent;
  /// The innermost enclosing warp role ("" without one) and its warps.
  std::string role;
  std::optional<std::pair<int64_t, int64_t>> roleWarps;
  Operation *begin = nullptr, *end = nullptr;
};

/// One site of a region: an asynchronous issue or a synchronization.
struct MeasurementSite {
  /// `kind@region#n`: the n-th site of its kind in the region, in program
  /// order (stable across edits elsewhere).
  std::string site;
  /// cp.async-group | wgmma-group | tma | barrier | wait_group | wgmma_wait
  /// | mbarrier.wait
  std::string kind;
  std::string region;
  /// The first op of the site (the group's first issue).
  Operation *op = nullptr;
  /// The last op of the issue: the group's commit, the TMA copy itself; a
  /// synchronization site is its own op.
  Operation *issueEnd = nullptr;
  /// The op that completes it (the wait after the group's commit, in program
  /// order and around the innermost loop; the mbarrier.wait on a TMA copy's
  /// ring), or null when none follows; a synchronization site completes
  /// itself.
  Operation *completion = nullptr;
  /// In how many iterations of the innermost loop the completion runs after
  /// the issue's: wait_group N / wgmma_wait N after the commit in the body
  /// complete the group N iterations later, before it (the next iteration)
  /// N + 1; a TMA copy's wait in another warp role's loop is taken to run in
  /// the same iteration (role loops walk the same k-slabs). None when the
  /// completion is outside the issue's loop (a drain after it).
  std::optional<int64_t> distance;
  bool inLoop = false;
};

/// The ops of one source line, counted by the innermost measured region
/// they lie in ("" for none): what a line-table entry of the lowered code
/// can be attributed to (several regions when a line's ops are spread over
/// them, as an inlined helper's are).
struct LineOwners {
  std::string file;
  unsigned line = 0;
  llvm::StringMap<int64_t> opsByRegion;
};

class MeasurementSites {
public:
  /// Fails, with a diagnostic at the marker, when one region name has two
  /// IDs or a marker does not close the innermost open region of its block.
  static FailureOr<MeasurementSites> compute(ModuleOp module);

  const std::vector<MeasuredRegion> &regions() const { return regionList; }
  const MeasuredRegion *region(llvm::StringRef name) const;
  /// The sites of `region` (nested regions included), in program order.
  std::vector<MeasurementSite> asyncSites(llvm::StringRef region) const;
  std::vector<MeasurementSite> syncSites(llvm::StringRef region) const;
  /// The stages of the deepest shared buffer (at least 1): how many
  /// iterations an asynchronous copy may stay in flight.
  int64_t pipelineDepth() const { return depth; }

  /// {"regions": [...], "async_sites": {region: [...]}, "sync_sites":
  /// {region: [...]}, "pipeline_depth": N}; locations as file, line, col.
  llvm::json::Value toJSON() const;

  /// The innermost measured region `op` lies in ("" for none).
  llvm::StringRef innermostRegion(Operation *op) const;
  /// Every op of the module (region markers excepted), with its innermost
  /// measured region ("" for none), in program order.
  void
  forEachOp(llvm::function_ref<void(Operation *, llvm::StringRef)> fn) const;

  /// Every source line of the module's ops (region markers excepted) with
  /// its ops counted by innermost region, in order of first appearance.
  std::vector<LineOwners> lineOwners() const;
  /// {"schema": "argus.line_regions/1", "regions": [{name, id, parent}],
  ///  "lines": [{"file", "line", "ops": {region: count}}]}.
  llvm::json::Value lineRegionsJSON() const;

private:
  std::vector<MeasuredRegion> regionList;
  /// MeasurementSite::distance of a site issued up to `issueEnd`.
  std::optional<int64_t> distance(Operation *issueEnd,
                                  Operation *completion) const;
  /// Every op of the module in pre-order, and each op's position there.
  std::vector<Operation *> order;
  llvm::DenseMap<Operation *, size_t> position;
  /// The regions each op lies in (innermost last).
  llvm::DenseMap<Operation *, llvm::SmallVector<unsigned, 2>> within;
  int64_t depth = 1;

  bool inRegion(Operation *op, unsigned region) const;
  /// Adds a site of `kind` at `op`, completed by `completion`.
  using SiteAdder =
      std::function<void(llvm::StringRef kind, Operation *op,
                         Operation *issueEnd, Operation *completion)>;
  /// The sites of region `name`: `visit` sees its ops (nested regions
  /// included) in program order and adds the sites it recognises, named
  /// `kind@region#n` in that order.
  std::vector<MeasurementSite> collectSites(
      llvm::StringRef name,
      llvm::function_ref<void(Operation *, const SiteAdder &)> visit) const;
  Operation *nextWait(Operation *after,
                      llvm::function_ref<bool(Operation *)> matches) const;
};

} // namespace mlir::argus

#endif // ARGUS_ANALYSIS_MEASUREMENTSITES_H
