//===- TagFields.h - which tag fields a value carries -----------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A cheap structural inference of the *names* of the tag fields that reach a
// value (the verifier computes their values). Used by op verifiers to reject
// assertions on fields that no `argus.tag` defines.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_TAGFIELDS_H
#define ARGUS_DIALECT_TAGFIELDS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <set>
#include <string>

namespace mlir::argus {

class ViewOp;

/// Whether `op`'s own invariants hold (checked silently). Op verifiers run in
/// program order, so code that looks at other ops from a verifier must not
/// trust ops that are not verified yet.
bool isWellFormed(Operation *op);

/// The operands of `op` that tag assertions can name, with their names
/// (`a`, `b`, `acc` for `argus.mma`, `lhs`/`rhs` for binary ops, ...).
llvm::SmallVector<std::pair<llvm::StringRef, Value>>
getNamedTagOperands(Operation *op);

/// The value that identifies the memory a tile refers to: the viewed tensor
/// or the staged buffer, looking through tags, transposes and reinterprets.
/// With `onlyWellFormed`, stops at ops whose invariants do not hold (for op
/// verifiers, which may run before those ops are verified).
Value getMemoryRoot(Value tile, bool onlyWellFormed = false);

/// The argus.view a global tile is, through argus.tag ops; null when
/// something else defines it.
ViewOp getViewThroughTags(Value tile);

/// The implicit tag field of every element of a global view (`argus.view`,
/// `argus.gather_view`): the function-argument number of the viewed memref.
/// Reserved: `argus.tag` cannot define it.
inline constexpr llvm::StringLiteral kTensorField = "tensor";

/// The function-argument number of `root` when it is an argument of the
/// enclosing function (the value of the implicit `tensor` field of a global
/// view of it), else std::nullopt.
std::optional<unsigned> getTensorArgument(Value root);

/// The tag field names carried by `value`, or std::nullopt when they cannot
/// be determined structurally (then no field check is made).
std::optional<std::set<std::string>> inferTagFields(Value value);

} // namespace mlir::argus

#endif // ARGUS_DIALECT_TAGFIELDS_H
