//===- ErrorKinds.cpp - op errors a client can tell apart -----------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ErrorKinds.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::argus;

/// The prefix of the FusedLoc metadata that names a kind.
static constexpr llvm::StringLiteral kPrefix = "argus.error_kind.";

llvm::StringRef mlir::argus::stringifyErrorKind(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Shape:
    return "shape";
  case ErrorKind::ElementType:
    return "element_type";
  case ErrorKind::Layout:
    return "layout";
  case ErrorKind::Instruction:
    return "instruction";
  case ErrorKind::TagField:
    return "tag_field";
  case ErrorKind::Region:
    return "region";
  }
  return "";
}

InFlightDiagnostic mlir::argus::emitOpErrorOfKind(Operation *op,
                                                  ErrorKind kind) {
  MLIRContext *ctx = op->getContext();
  Location loc = FusedLoc::get(
      {op->getLoc()}, StringAttr::get(ctx, kPrefix + stringifyErrorKind(kind)),
      ctx);
  InFlightDiagnostic diag = mlir::emitError(loc);
  diag << "'" << op->getName() << "' op ";
  return diag;
}

llvm::ArrayRef<ErrorKind> mlir::argus::allErrorKinds() {
  static const ErrorKind kinds[] = {ErrorKind::Shape,    ErrorKind::ElementType,
                                    ErrorKind::Layout,   ErrorKind::Instruction,
                                    ErrorKind::TagField, ErrorKind::Region};
  return kinds;
}

std::optional<ErrorKind> mlir::argus::errorKindOf(Location loc) {
  std::optional<ErrorKind> kind;
  loc->walk([&](Location l) {
    auto fused = dyn_cast<FusedLoc>(l);
    auto tag = fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata())
                     : StringAttr();
    if (!tag || !tag.getValue().starts_with(kPrefix))
      return WalkResult::advance();
    llvm::StringRef name = tag.getValue().drop_front(kPrefix.size());
    for (ErrorKind k : allErrorKinds())
      if (name == stringifyErrorKind(k))
        kind = k;
    return WalkResult::interrupt();
  });
  return kind;
}
