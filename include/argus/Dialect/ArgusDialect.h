//===- ArgusDialect.h - the argus tile dialect ------------------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_DIALECT_ARGUSDIALECT_H
#define ARGUS_DIALECT_ARGUSDIALECT_H

#include "argus/Layout/Parse.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "argus/Dialect/ArgusDialect.h.inc"
#include "argus/Dialect/ArgusEnums.h.inc"

namespace mlir::argus::detail {
/// Custom storage of #argus.layout (the parsed layout next to its text):
/// lib/Dialect/LayoutAttrStorage.h.
struct LayoutAttrStorage;
} // namespace mlir::argus::detail

#define GET_ATTRDEF_CLASSES
#include "argus/Dialect/ArgusAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "argus/Dialect/ArgusTypes.h.inc"

namespace mlir::argus {
/// Fails (with a diagnostic on `op`) when a register tile among the operands
/// or results of `op` has a (thread, slot) layout over more threads than the
/// block of the kernel enclosing `op`: the threads beyond the block do not
/// exist, so their elements would never be read or written.
LogicalResult verifyRegisterTilesFitBlock(Operation *op);

/// The kernel attribute of the function enclosing `op`, or null.
KernelAttr getEnclosingKernel(Operation *op);

/// The number of threads that execute `op`: those of its warp role
/// (argus.role) if it is in one, else the kernel block's; nullopt outside a
/// kernel. Register layouts inside a role index the role's threads.
std::optional<int64_t> getExecutingThreads(Operation *op);

/// `op` is nested in a function (a kernel body), not at a module's top level.
LogicalResult verifyInFunction(Operation *op);

/// All tile operands and results of `op` have one type. The error names the
/// first two values that differ and what differs, with the kind of
/// ErrorKinds.h (shape, element_type or layout).
LogicalResult verifySameTileTypes(Operation *op);

/// All tile operands and results of `op` hold floats (element_type error).
LogicalResult verifyFloatTiles(Operation *op);

/// No tile operand of `op` is an i1 mask (element_type error).
LogicalResult verifyNoMaskTiles(Operation *op);

/// Op traits every argus op carries (Argus_Op in ArgusDialect.td).
template <typename ConcreteType>
class InFunction : public OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInFunction(op);
  }
};

/// Op traits of the elementwise ops (ArgusOps.td).
template <typename ConcreteType>
class SameTileTypes : public OpTrait::TraitBase<ConcreteType, SameTileTypes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifySameTileTypes(op);
  }
};

template <typename ConcreteType>
class FloatTiles : public OpTrait::TraitBase<ConcreteType, FloatTiles> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyFloatTiles(op);
  }
};

template <typename ConcreteType>
class NoMaskTiles : public OpTrait::TraitBase<ConcreteType, NoMaskTiles> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyNoMaskTiles(op);
  }
};

template <typename ConcreteType>
class RegisterTilesFitBlock
    : public OpTrait::TraitBase<ConcreteType, RegisterTilesFitBlock> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyRegisterTilesFitBlock(op);
  }
};

/// The dialects argus kernels are written with (argus, affine, arith, func,
/// gpu, memref, scf). Tools register these plus the lowering's dialects with
/// registerArgusDialects (argus/Pipelines/Pipelines.h).
void registerArgusKernelDialects(DialectRegistry &registry);
} // namespace mlir::argus

#define GET_OP_CLASSES
#include "argus/Dialect/ArgusOps.h.inc"

namespace mlir::argus {
/// A tile shape as written in types and diagnostics: "128x32".
std::string formatShape(llvm::ArrayRef<int64_t> shape);
} // namespace mlir::argus

#endif // ARGUS_DIALECT_ARGUSDIALECT_H
