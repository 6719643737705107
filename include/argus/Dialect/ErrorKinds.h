//===- ErrorKinds.h - op errors a client can tell apart -------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Some op-verifier errors have a kind a client acts on (the Python layer
// raises ShapeError, DTypeError, LayoutError, UnknownInstructionError,
// TagFieldError or TraceError for them: the op verifiers are the DSL's only
// checks of what an op accepts). The kind travels with the diagnostic as
// metadata of its location (a FusedLoc around the op's location), so no client
// reads it from the message text; printed diagnostics show the op's location as
// before.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_ERRORKINDS_H
#define ARGUS_DIALECT_ERRORKINDS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::argus {

enum class ErrorKind {
  /// Tile shapes that do not fit together.
  Shape,
  /// Element types that do not fit the op or each other.
  ElementType,
  /// Register or memory layouts that do not fit the op or each other.
  Layout,
  /// An unknown matrix-core instruction, or one the op or target cannot use.
  Instruction,
  /// A tag field or an assertion operand that does not exist.
  TagField,
  /// Region markers that do not pair up, or a region ID used twice.
  Region,
};

llvm::StringRef stringifyErrorKind(ErrorKind kind);

/// Every kind, in declaration order (the Python bindings export their names:
/// the one list Python's exception classes are mapped from).
llvm::ArrayRef<ErrorKind> allErrorKinds();

/// As `op->emitOpError()`, with `kind` attached to the diagnostic.
InFlightDiagnostic emitOpErrorOfKind(Operation *op, ErrorKind kind);

/// The kind attached to a diagnostic's location, if any.
std::optional<ErrorKind> errorKindOf(Location loc);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_ERRORKINDS_H
