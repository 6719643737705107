//===- Context.h - what the _argus bindings share -------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The owned MLIRContext of the `_argus` extension, MLIR diagnostics as
// structured Python objects, and the entry points by which one binding file
// hands its objects to another (the IR builder makes modules that the module
// binding owns).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_PYTHON_CONTEXT_H
#define ARGUS_PYTHON_CONTEXT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

namespace argus::python {

/// An MLIR diagnostic as a Python object.
struct PyDiagnostic {
  std::string severity; // "error" | "warning" | "note" | "remark"
  std::string file;     // empty when the location has no file
  int64_t line = 0;
  int64_t col = 0;
  std::string location; // the location as MLIR prints it
  std::string message;
  /// What to write instead: the text after the message's "; hint: ", or
  /// empty.
  std::string hint;
  /// The error's kind (ErrorKinds.h, stringifyErrorKind), or empty.
  std::string kind;
  std::vector<PyDiagnostic> notes;

  std::string str() const;
};

PyDiagnostic convertDiagnostic(mlir::Diagnostic &diag);

/// Collects every diagnostic emitted in the context while alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx);
  std::vector<PyDiagnostic> take() { return std::move(diags); }

private:
  std::vector<PyDiagnostic> diags;
  mlir::ScopedDiagnosticHandler handler;
};

/// Runs `fn` with the context's diagnostics collected into `diags`.
template <typename Fn>
auto collected(mlir::MLIRContext *ctx, std::vector<PyDiagnostic> &diags,
               Fn fn) {
  DiagnosticCollector collect(ctx);
  auto result = fn();
  diags = collect.take();
  return result;
}

/// ": <the first diagnostic's message>", or "" without one.
inline std::string firstReason(const std::vector<PyDiagnostic> &diags) {
  return diags.empty() ? "" : ": " + diags.front().message;
}

/// The extension's MLIRContext: the dialects argus-opt registers, loaded
/// on demand, single-threaded.
class ArgusCtx {
public:
  ArgusCtx();
  mlir::MLIRContext *get() { return ctx.get(); }

private:
  std::unique_ptr<mlir::MLIRContext> ctx;
};

/// Registers the argus passes and pipelines (once per process).
void registerAllPassesOnce();

/// `module` as an `_argus.Module` owned by Python.
pybind11::object wrapModule(std::shared_ptr<ArgusCtx> ctx,
                            mlir::OwningOpRef<mlir::ModuleOp> module);

/// Registers `_argus.Builder` and its value, type and location handles
/// (IRBuilder.cpp).
void bindIRBuilder(pybind11::module_ &m);

/// Registers `_argus.Layout` and `_argus.register_layout` (Layouts.cpp).
void bindLayouts(pybind11::module_ &m);

/// Registers `_argus.interpret_signature` and `_argus.interpret_run`
/// (Interpret.cpp).
void bindInterpret(pybind11::module_ &m);

} // namespace argus::python

#endif // ARGUS_PYTHON_CONTEXT_H
