//===- SiteRegions.h - regions made around measurement sites ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_TRANSFORMS_SITEREGIONS_H
#define ARGUS_LIB_TRANSFORMS_SITEREGIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::argus {

/// The sites (named as MeasurementSites names them) that argus-insert-probes
/// gives regions of their own.
struct SiteRegionRequest {
  /// Synchronization sites: region `<site>` around the op.
  std::vector<std::string> syncSites;
  /// Asynchronous sites and iterations: region `completion:<site>` from the
  /// site's first issue to a forced completion wait, which runs right after
  /// the issue in the listed iterations of the innermost loop only.
  std::vector<std::pair<std::string, int64_t>> completions;
  /// Asynchronous sites: regions `issue:<site>` around the issue and
  /// `wait:<site>` around the op that completes it (the reference trace).
  std::vector<std::string> traceSites;

  bool empty() const {
    return syncSites.empty() && completions.empty() && traceSites.empty();
  }
};

/// Adds the requested regions (each with the next free region ID of its
/// kernel) and inserts `made` with their names. Sites are looked up in the
/// module as it is before any insertion. Fails with a diagnostic on an
/// unknown site, a site whose issue spans two blocks, a completion that
/// cannot be forced, or regions that would not nest.
LogicalResult insertSiteRegions(ModuleOp module, const SiteRegionRequest &req,
                                llvm::StringSet<> &made);

} // namespace mlir::argus

#endif // ARGUS_LIB_TRANSFORMS_SITEREGIONS_H
