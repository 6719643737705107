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

#include <algorithm>
#include <mutex>

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSVERIFYTAGS
#include "ArgusVerifyPasses.h.inc"
} // namespace mlir::argus

using namespace mlir;

//===----------------------------------------------------------------------===//
// Outcomes and the process-level outcome record
//===----------------------------------------------------------------------===//

namespace argus::verify {

const char *toString(Outcome o) {
  switch (o) {
  case Outcome::Proved:
    return "proved";
  case Outcome::Unknown:
    return "unknown";
  case Outcome::Violated:
    return "violated";
  }
  return "unknown";
}

Outcome summarize(const std::vector<KernelReport> &reports) {
  Outcome worst = Outcome::Proved;
  for (const KernelReport &k : reports)
    for (const CheckResult &c : k.checks) {
      if (c.status == Status::Violated)
        return Outcome::Violated;
      if (c.status != Status::Proved)
        worst = Outcome::Unknown;
    }
  return worst;
}

namespace {
std::mutex &recordMutex() {
  static std::mutex m;
  return m;
}
RecordedOutcome &record() {
  static RecordedOutcome r;
  return r;
}
} // namespace

void recordOutcome(Outcome outcome, bool allowUnknown) {
  std::lock_guard<std::mutex> lock(recordMutex());
  RecordedOutcome &r = record();
  ++r.runs;
  r.outcome = std::max(r.outcome, outcome);
  if (outcome == Outcome::Unknown && !allowUnknown)
    r.unknownAllowed = false;
}

RecordedOutcome recordedOutcome() {
  std::lock_guard<std::mutex> lock(recordMutex());
  return record();
}

void resetRecordedOutcome() {
  std::lock_guard<std::mutex> lock(recordMutex());
  record() = RecordedOutcome();
}

int exitStatus(const RecordedOutcome &r) {
  switch (r.outcome) {
  case Outcome::Proved:
    return 0;
  case Outcome::Unknown:
    return r.unknownAllowed ? 0 : 2;
  case Outcome::Violated:
    return 1;
  }
  return 1;
}

} // namespace argus::verify

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct VerifyTagsPass
    : public mlir::argus::impl::ArgusVerifyTagsBase<VerifyTagsPass> {
  using Base::Base;

  void runOnOperation() override {
    ::argus::verify::VerifyOptions opts;
    opts.timeoutMs = timeoutMs;
    opts.maxCounterexamples = maxCounterexamples;
    opts.implicitChecks = implicitChecks;
    opts.threads = threads;
    std::vector<::argus::verify::KernelReport> reports;
    try {
      reports = ::argus::verify::verifyModule(getOperation(), opts);
    } catch (...) {
      getOperation().emitError("argus-verify-tags: internal error");
      return signalPassFailure();
    }
    ::argus::verify::emitDiagnostics(reports);
    ::argus::verify::Outcome outcome = ::argus::verify::summarize(reports);
    // Recorded before the report is written: a report that cannot be written
    // fails the pass anyway (exit 1).
    ::argus::verify::recordOutcome(outcome, allowUnknown);
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
    // A violation fails the pass (exit 1). An unknown check is a warning
    // only; argus-opt maps it to exit status 2 unless allow-unknown is set.
    if (outcome == ::argus::verify::Outcome::Violated)
      return signalPassFailure();
  }
};
} // namespace
