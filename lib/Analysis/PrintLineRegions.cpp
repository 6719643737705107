//===- PrintLineRegions.cpp - --argus-print-line-regions ------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/MeasurementSites.h"
#include "argus/Analysis/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSPRINTLINEREGIONS
#include "argus/Analysis/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;

namespace {
struct PrintLineRegionsPass
    : public mlir::argus::impl::ArgusPrintLineRegionsBase<
          PrintLineRegionsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<argus::MeasurementSites> sites =
        argus::MeasurementSites::compute(getOperation());
    if (failed(sites))
      return signalPassFailure();
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "argus-print-line-regions: cannot write '"
                                 << output << "': " << error;
      return signalPassFailure();
    }
    file->os() << llvm::formatv("{0:2}", sites->lineRegionsJSON()) << "\n";
    // Checked here: an error left on the stream ends the process.
    file->os().close();
    if (file->os().has_error()) {
      std::error_code err = file->os().error();
      file->os().clear_error();
      getOperation().emitError() << "argus-print-line-regions: error writing '"
                                 << output << "': " << err.message();
      return signalPassFailure();
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
