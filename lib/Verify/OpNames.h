//===- OpNames.h - how ops and locations are named in reports ---*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_VERIFY_OPNAMES_H
#define ARGUS_LIB_VERIFY_OPNAMES_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace argus::verify::detail {

/// "file:line:col" of the first file location inside `loc`.
std::string locStr(mlir::Location loc);

/// "'op.name' at file:line:col".
std::string opDesc(mlir::Operation *op);

/// "scf.for at file:line:col".
std::string loopName(mlir::Operation *loop);

} // namespace argus::verify::detail

#endif // ARGUS_LIB_VERIFY_OPNAMES_H
