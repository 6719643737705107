//===- Context.cpp - the extension's context and diagnostics --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "argus/Analysis/Passes.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ErrorKinds.h"
#ifdef ARGUS_HAVE_VERIFY
#include "argus/Verify/Passes.h"
#endif
#ifdef ARGUS_HAVE_PIPELINES
#include "argus/Pipelines/Pipelines.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>

using namespace mlir;

namespace argus::python {

std::string PyDiagnostic::str() const {
  std::string s;
  if (!file.empty())
    s += file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
  s += severity + ": " + message;
  for (const PyDiagnostic &n : notes) {
    std::string ns = n.str();
    // Indent every line of a note.
    std::string indented = "\n  ";
    for (char c : ns) {
      indented += c;
      if (c == '\n')
        indented += "  ";
    }
    s += indented;
  }
  return s;
}

static const char *severityName(DiagnosticSeverity sev) {
  switch (sev) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// The first file:line:col inside `loc` (through names, call sites and
/// fused locations).
static std::optional<FileLineColLoc> findFileLoc(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      found = f;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

PyDiagnostic convertDiagnostic(Diagnostic &diag) {
  PyDiagnostic d;
  d.severity = severityName(diag.getSeverity());
  d.message = diag.str();
  // Argus diagnostics end with what to write instead, "...; hint: ..."
  // (docs/Dialect.md, Diagnostics).
  if (size_t at = d.message.rfind("; hint: "); at != std::string::npos)
    d.hint = d.message.substr(at + 8);
  {
    llvm::raw_string_ostream os(d.location);
    diag.getLocation().print(os);
  }
  if (std::optional<mlir::argus::ErrorKind> kind =
          mlir::argus::errorKindOf(diag.getLocation()))
    d.kind = mlir::argus::stringifyErrorKind(*kind).str();
  if (auto f = findFileLoc(diag.getLocation())) {
    d.file = f->getFilename().str();
    d.line = f->getLine();
    d.col = f->getColumn();
  }
  for (Diagnostic &note : diag.getNotes())
    d.notes.push_back(convertDiagnostic(note));
  return d;
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *ctx)
    : handler(ctx, [this](Diagnostic &diag) {
        diags.push_back(convertDiagnostic(diag));
        return success();
      }) {}

void registerAllPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTransformsPasses();
    mlir::argus::registerArgusAnalysisPasses();
#ifdef ARGUS_HAVE_VERIFY
    mlir::argus::registerArgusVerifyPasses();
#endif
#ifdef ARGUS_HAVE_PIPELINES
    mlir::argus::registerArgusPasses();
    mlir::argus::registerArgusPipelines();
#endif
  });
}

ArgusCtx::ArgusCtx() {
  registerAllPassesOnce();
  // The registration argus-opt uses; like argus-opt, load only what the
  // modules and the passes' declared dependent dialects need, so that a
  // pass missing a dependent dialect fails here as it does there.
  DialectRegistry registry;
#ifdef ARGUS_HAVE_PIPELINES
  mlir::argus::registerArgusDialects(registry);
#else
  mlir::argus::registerArgusKernelDialects(registry);
#endif
  ctx =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->allowUnregisteredDialects(false);
  // A diagnostic's location and hint say where; a dump of the op (its
  // operands printed as <<UNKNOWN SSA VALUE>>) buries them.
  ctx->printOpOnDiagnostic(false);
}

} // namespace argus::python
