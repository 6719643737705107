//===- TagVerifier.h - tag propagation and SMT checks -----------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The tag verifier: propagates symbolic tags through an argus kernel over the
// layout algebra and decides every `argus.tag_assert` (plus the implicit
// memory checks: unwritten reads, unsynchronized reads, non-injective
// writes) with Z3. Threads, slots, loop iterations and kernel parameters are
// symbolic bit-vectors; nothing is enumerated. See docs/Verifier.md for the
// semantics and docs/report-schema.md for the JSON report.
//
// No function here throws: Z3 and internal exceptions are caught and turn the
// affected check into `unknown` with a reason.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_TAGVERIFIER_H
#define ARGUS_VERIFY_TAGVERIFIER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace argus::verify {

struct VerifyOptions {
  /// Z3 timeout per query (milliseconds); a timeout makes the check unknown.
  unsigned timeoutMs = 10000;
  /// Counterexamples reported per violated check (each a different thread /
  /// element / iteration).
  unsigned maxCounterexamples = 1;
  /// Checks done without being asked (unwritten reads, unsynchronized reads,
  /// non-injective writes).
  bool implicitChecks = true;
  /// Shards the checks of a kernel run on, each on its own thread with its
  /// own Z3 context. The report (counterexamples included) depends on this
  /// number only, not on timing or the machine: a fixed default. Shards do
  /// not share their caches (loop invariants), so more shards help kernels
  /// with many independent checks and can slow kernels dominated by a few
  /// checks over the same loops (see bench/verify/RESULTS.md): default 1.
  unsigned threads = 1;
};

enum class Status { Proved, Violated, Unknown };
const char *toString(Status s);

/// One data element taking part in a counterexample.
struct ElementInfo {
  std::string role;   ///< "a", "b", "acc", "result", "value", "dest", ...
  std::string memory; ///< tensor or buffer name ("" for registers only)
  std::vector<int64_t> tileCoords;
  std::vector<int64_t> globalCoords; ///< empty when unknown (shared, gather)
  std::map<std::string, int64_t> tags;
  int64_t thread = -1, slot = -1; ///< a (thread, slot) holding it, if any
};

struct Counterexample {
  std::map<std::string, int64_t> blockIds; ///< "x", "y", "z" (when used)
  std::vector<std::pair<std::string, int64_t>> params; ///< kernel arguments
  int64_t thread = -1, warp = -1, lane = -1, slot = -1;
  /// (loop location, induction variable value), outermost first.
  std::vector<std::pair<std::string, int64_t>> loops;
  std::vector<ElementInfo> elements;
  /// Provenance: reads through memory, their writers, sync facts.
  std::vector<std::string> notes;
};

struct CheckResult {
  /// "assert", "unwritten-read", "unsynchronized-read", "non-injective-write"
  std::string kind;
  std::string kernel;
  std::string predicate; ///< assertion text or a description of the check
  mlir::Operation *reportOp = nullptr; ///< where the diagnostic goes
  mlir::Operation *siteOp = nullptr;   ///< the op checked
  std::string siteName, siteLocation, assertLocation;
  Status status = Status::Unknown;
  std::string reason;
  std::vector<Counterexample> counterexamples;
  /// For a proved check: an instance (launch, block, loop iterations) where
  /// its premises hold and its op executes, so the proof is not vacuous.
  std::string witness;
  double milliseconds = 0;
  unsigned queries = 0;
};

struct KernelReport {
  std::string name;
  int64_t threads = 0, warpSize = 0;
  double milliseconds = 0;
  unsigned queries = 0;
  /// The kernel's stated preconditions (`argus.assume`) the results rely on.
  std::vector<std::string> assumptions;
  /// What no check of the report states (value properties, undeclared
  /// argument roles, constructs outside the model): a proof says nothing
  /// about them.
  std::vector<std::string> unchecked;
  std::vector<CheckResult> checks;
};

/// Verify every `argus.kernel` function of the module.
std::vector<KernelReport> verifyModule(mlir::ModuleOp module,
                                       const VerifyOptions &options);

/// Emit errors (violated) with notes and warnings (unknown) at the ops'
/// locations.
void emitDiagnostics(const std::vector<KernelReport> &reports);

/// The JSON report (docs/report-schema.md).
llvm::json::Value toJSON(const std::vector<KernelReport> &reports);

} // namespace argus::verify

//===----------------------------------------------------------------------===//
// Outcomes and the process-level outcome record (exit status)
//===----------------------------------------------------------------------===//

namespace argus::verify {

/// The outcome of a verification, worst first: `Violated` when any check is
/// violated, else `Unknown` when any check is unknown, else `Proved` (also
/// for a module without kernels or checks). Ordered so that the worse of two
/// outcomes is the larger.
enum class Outcome { Proved = 0, Unknown = 1, Violated = 2 };
const char *toString(Outcome o);

/// The outcome of the checks of every kernel of `reports`.
Outcome summarize(const std::vector<KernelReport> &reports);

/// What the `--argus-verify-tags` runs of this process found, for drivers
/// that turn it into an exit status (argus-opt; docs/Verifier.md, "Exit
/// status"). Several runs (`-split-input-file`, the pass twice in a pipeline)
/// combine: the worst outcome wins.
struct RecordedOutcome {
  unsigned runs = 0;                 ///< verification runs recorded
  Outcome outcome = Outcome::Proved; ///< the worst outcome of those runs
  /// Every run whose outcome was `Unknown` was told to accept it
  /// (`allow-unknown=true`); true when no run was unknown.
  bool unknownAllowed = true;
};

/// Record one run's outcome (the pass does this after verifying a module,
/// with its `allow-unknown` option). Thread-safe.
void recordOutcome(Outcome outcome, bool allowUnknown);

/// The combined record of every run since the start of the process (or the
/// last `resetRecordedOutcome`). Thread-safe.
RecordedOutcome recordedOutcome();

/// Forget every recorded run. Thread-safe.
void resetRecordedOutcome();

/// The exit status of a record: 1 when a check was violated, 2 when nothing
/// was violated but some check is unknown and unknown was not allowed, else 0
/// (also when no run was recorded).
int exitStatus(const RecordedOutcome &record);

} // namespace argus::verify

#endif // ARGUS_VERIFY_TAGVERIFIER_H
