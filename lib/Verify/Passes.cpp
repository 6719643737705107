//===- Passes.cpp - the argus-verify-tags pass ----------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Verify/Passes.h"
#include "argus/Verify/TagVerifier.h"

#include "argus/Dialect/ArgusDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSVERIFYTAGS
#include "ArgusVerifyPasses.h.inc"
} // namespace mlir::argus

using namespace mlir;

namespace {
struct VerifyTagsPass
    : public mlir::argus::impl::ArgusVerifyTagsBase<VerifyTagsPass> {
  using Base::Base;

  void runOnOperation() override {
    ::argus::verify::VerifyOptions opts;
    opts.timeoutMs = timeoutMs;
    opts.maxCounterexamples = maxCounterexamples;
    opts.implicitChecks = implicitChecks;
    std::vector<::argus::verify::KernelReport> reports;
    try {
      reports = ::argus::verify::verifyModule(getOperation(), opts);
    } catch (...) {
      getOperation().emitError("argus-verify-tags: internal error");
      return signalPassFailure();
    }
    ::argus::verify::emitDiagnostics(reports);
    if (!report.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(report, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        getOperation().emitError("cannot write report '")
            << report << "': " << ec.message();
        return signalPassFailure();
      }
      os << llvm::formatv("{0:2}", ::argus::verify::toJSON(reports)) << "\n";
    }
    for (auto &k : reports)
      for (auto &c : k.checks)
        if (c.status == ::argus::verify::Status::Violated)
          return signalPassFailure();
  }
};
} // namespace
