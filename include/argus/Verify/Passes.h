//===- Passes.h - tag verifier passes ---------------------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_PASSES_H
#define ARGUS_VERIFY_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::argus {

#define GEN_PASS_DECL
#include "ArgusVerifyPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "ArgusVerifyPasses.h.inc"

} // namespace mlir::argus

namespace argus::verify {
struct KernelReport;

/// Under argus-opt -split-input-file every chunk is its own module and runs
/// argus-verify-tags on its own. With merging on (argus-opt turns it on for
/// -split-input-file) the runs that write the same report path merge: the
/// file holds one report with the kernels and checks of every chunk so far,
/// in chunk order. Off by default (each run writes its own report).
void setMergeReports(bool merge);

/// The reports to write to `path` after a run that produced `run`: `run`
/// itself, or with merging on everything written to `path` in this process.
std::vector<KernelReport> mergedReports(const std::string &path,
                                        const std::vector<KernelReport> &run);
} // namespace argus::verify

#endif // ARGUS_VERIFY_PASSES_H
