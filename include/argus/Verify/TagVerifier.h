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
  double milliseconds = 0;
  unsigned queries = 0;
};

struct KernelReport {
  std::string name;
  int64_t threads = 0, warpSize = 0;
  double milliseconds = 0;
  unsigned queries = 0;
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

#endif // ARGUS_VERIFY_TAGVERIFIER_H
