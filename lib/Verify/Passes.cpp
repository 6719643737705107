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
#include <limits>
#include <map>
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

namespace {
struct ReportMerge {
  std::mutex mutex;
  bool enabled = false;
  std::map<std::string, std::vector<KernelReport>> byPath;
};
ReportMerge &reportMerge() {
  static ReportMerge m;
  return m;
}
} // namespace

void setMergeReports(bool merge) {
  ReportMerge &m = reportMerge();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.enabled = merge;
  m.byPath.clear();
}

std::vector<KernelReport> mergedReports(const std::string &path,
                                        const std::vector<KernelReport> &run) {
  ReportMerge &m = reportMerge();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.enabled)
    return run;
  std::vector<KernelReport> &all = m.byPath[path];
  all.insert(all.end(), run.begin(), run.end());
  return all;
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
    // Errors about the options are located at the module but do not print
    // it (emitError on the op would attach the whole module as a note).
    Location loc = getOperation().getLoc();
    if (maxCounterexamples == 0) {
      mlir::emitError(loc)
          << "argus-verify-tags: max-counterexamples=0 is not allowed; hint: "
             "a violated check always comes with at least one "
             "counterexample, use max-counterexamples=1 (the default) or "
             "more";
      return signalPassFailure();
    }
    // Each shard holds a Z3 context and a copy of the kernel's encoding
    // (threads=1000 took 17 GB): the bound of argus.verify's threads=.
    if (threads < 1 || threads > 64) {
      mlir::emitError(loc)
          << "argus-verify-tags: threads=" << unsigned(threads)
          << " is not allowed; hint: threads is the number of shards the "
             "checks run on (one thread and Z3 context each), from 1 to 64";
      return signalPassFailure();
    }
    // Check that the report can be written before the (long) verification.
    std::unique_ptr<llvm::raw_fd_ostream> reportStream;
    if (!report.empty() && report != "-") {
      std::error_code ec;
      reportStream = std::make_unique<llvm::raw_fd_ostream>(
          report, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        mlir::emitError(loc) << "argus-verify-tags: cannot write report '"
                             << report << "': " << ec.message();
        return signalPassFailure();
      }
    }
    ::argus::verify::VerifyOptions opts;
    // timeout-ms=0 means no limit (Z3's "no timeout" is UINT_MAX).
    opts.timeoutMs = timeoutMs == 0u ? std::numeric_limits<unsigned>::max()
                                     : unsigned(timeoutMs);
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
    if (report == "-") {
      llvm::outs() << llvm::formatv("{0:2}", ::argus::verify::toJSON(reports))
                   << "\n";
    } else if (reportStream) {
      // Under -split-input-file (mergeReports) the report holds the kernels
      // and checks of every chunk written to this path so far.
      std::vector<::argus::verify::KernelReport> merged =
          ::argus::verify::mergedReports(report, reports);
      *reportStream << llvm::formatv("{0:2}", ::argus::verify::toJSON(merged))
                    << "\n";
      reportStream->close();
      if (reportStream->has_error()) {
        mlir::emitError(loc)
            << "argus-verify-tags: error writing report '" << report
            << "': " << reportStream->error().message();
        reportStream->clear_error();
        return signalPassFailure();
      }
    }
    // A violation fails the pass (exit 1). An unknown check is a warning
    // only; argus-opt maps it to exit status 2 unless allow-unknown is set.
    if (outcome == ::argus::verify::Outcome::Violated)
      return signalPassFailure();
  }
};
} // namespace
