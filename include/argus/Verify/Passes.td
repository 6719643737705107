//===- Passes.td - tag verifier passes ---------------------*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_PASSES_TD
#define ARGUS_VERIFY_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArgusVerifyTags : Pass<"argus-verify-tags", "::mlir::ModuleOp"> {
  let summary = "Prove the tag assertions of every argus kernel with Z3";
  let description = [{
    Propagates tags through every `argus.kernel` function over the layout
    algebra and decides each `argus.tag_assert`, plus the implicit checks
    (unwritten shared-memory reads, unsynchronized reads, non-injective
    writes), for all threads, slots and loop iterations at once. A violated
    check is an error with a counterexample (block, thread, warp, lane, slot,
    elements, tags, loop iterations) as notes, and makes the pass fail; an
    unknown check is a warning. `report=path.json` writes every result as
    JSON (docs/report-schema.md).

    Exit status of `argus-opt`: 0 when every check of every kernel is proved,
    1 when a check is violated (the pass fails), 2 when nothing is violated
    but some check is unknown (nothing was proved about it). With
    `allow-unknown=true` that last case exits 0 (the unknown checks still
    warn). The pass records its outcome in a process-level record
    (`argus::verify::recordedOutcome()`, TagVerifier.h) that argus-opt maps
    to the exit status after the pipeline succeeds; under
    `--verify-diagnostics` the exit status is the diagnostic verifier's.
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the JSON report to this file ('-' for stdout); under "
           "argus-opt -split-input-file it holds every chunk's kernels and "
           "checks">,
    Option<"timeoutMs", "timeout-ms", "unsigned", /*default=*/"10000",
           "Z3 timeout per query in milliseconds (a timeout is unknown); 0: "
           "no limit">,
    Option<"maxCounterexamples", "max-counterexamples", "unsigned",
           /*default=*/"1", "counterexamples reported per violated check "
           "(at least 1)">,
    Option<"threads", "threads", "unsigned", /*default=*/"1",
           "shards the checks run on (one thread and Z3 context each); the "
           "report depends only on this number">,
    Option<"implicitChecks", "implicit-checks", "bool", /*default=*/"true",
           "also check unwritten / unsynchronized reads and non-injective "
           "writes">,
    Option<"allowUnknown", "allow-unknown", "bool", /*default=*/"false",
           "exit 0 when nothing is violated but some check is unknown "
           "(argus-opt exits 2 for that otherwise; unknown checks still "
           "warn)">,
  ];
}

#endif // ARGUS_VERIFY_PASSES_TD
