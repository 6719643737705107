//===- CheckKinds.h - the table of the verifier's checks --------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// One row per check kind the verifier reports: its name (the `kind` of a
// report's check), what a proof of it means, and what of the kernel the
// model interprets for it. The report, the diagnostics, the Python layer
// (`argus.verify.CHECK_KINDS`, `_argus.check_kinds`) and the agent's repair
// rules name checks through this table; a result of a kind not in it is an
// internal error. Adding a check = one row here, one file in lib/Verify and
// its tests.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_VERIFY_CHECKKINDS_H
#define ARGUS_VERIFY_CHECKKINDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace argus::verify {

struct CheckKind {
  const char *name;    ///< the report's `kind`
  const char *family;  ///< the group of checks it belongs to
  const char *meaning; ///< what "proved" states, in one line
  const char *models;  ///< what the model interprets for it
};

/// Every check kind, in the order of docs/Verifier.md.
llvm::ArrayRef<CheckKind> checkKinds();

/// The row of `name`; null for a kind not in the table.
const CheckKind *findCheckKind(llvm::StringRef name);

} // namespace argus::verify

#endif // ARGUS_VERIFY_CHECKKINDS_H
