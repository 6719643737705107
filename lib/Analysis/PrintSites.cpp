//===- PrintSites.cpp - --argus-print-sites -------------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/MeasurementSites.h"
#include "argus/Analysis/Passes.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSPRINTSITES
#include "argus/Analysis/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;

namespace {
struct PrintSitesPass
    : public mlir::argus::impl::ArgusPrintSitesBase<PrintSitesPass> {
  void runOnOperation() override {
    FailureOr<argus::MeasurementSites> sites =
        argus::MeasurementSites::compute(getOperation());
    if (failed(sites))
      return signalPassFailure();
    llvm::outs() << llvm::formatv("{0:2}", sites->toJSON()) << "\n";
    markAllAnalysesPreserved();
  }
};
} // namespace
