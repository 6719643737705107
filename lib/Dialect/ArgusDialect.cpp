//===- ArgusDialect.cpp - the argus tile dialect --------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::argus;

#include "argus/Dialect/ArgusDialect.cpp.inc"

void mlir::argus::registerArgusKernelDialects(DialectRegistry &registry) {
  registry.insert<ArgusDialect, affine::AffineDialect, arith::ArithDialect,
                  func::FuncDialect, gpu::GPUDialect, memref::MemRefDialect,
                  scf::SCFDialect>();
}

void ArgusDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "argus/Dialect/ArgusOps.cpp.inc"
      >();
}

LogicalResult ArgusDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  // argus-to-gpu records the launch ABI of the lowered kernels on the
  // module (kernel name -> #argus.kernel_launch), where it survives
  // serialisation (lib/Transforms/LoweringSupport.h, kLaunchAttr).
  constexpr StringLiteral launch = "argus.launch";
  if (attr.getName() == launch) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !isa<ModuleOp>(op) ||
        !llvm::all_of(dict, [](NamedAttribute k) {
          return isa<KernelLaunchAttr>(k.getValue());
        }))
      return op->emitError() << "'" << launch
                             << "' must be a dictionary of kernel names to "
                                "#argus.kernel_launch on a builtin.module";
    return success();
  }
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown argus attribute '"
                           << attr.getName().getValue()
                           << "'; hint: the dialect defines only '"
                           << getKernelAttrName() << "' and '" << launch << "'";
  if (!isa<KernelAttr>(attr.getValue()))
    return op->emitError() << "'" << getKernelAttrName()
                           << "' must be an #argus.kernel<...> attribute";
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << getKernelAttrName()
                           << "' may only mark a function (func.func or "
                              "gpu.func), not '"
                           << op->getName() << "'";
  // Declared argument roles (the verifier's argument-access check).
  auto fn = cast<FunctionOpInterface>(op);
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    Attribute access = fn.getArgAttr(i, "argus.access");
    if (!access)
      continue;
    auto s = dyn_cast<StringAttr>(access);
    if (!s || !llvm::is_contained(
                  {StringRef("in"), StringRef("out"), StringRef("inout")},
                  s.getValue()))
      return op->emitError()
             << "argument " << i
             << ": 'argus.access' must be \"in\", \"out\" or \"inout\", got "
             << access;
    if (!isa<BaseMemRefType>(fn.getArgumentTypes()[i]))
      return op->emitError()
             << "argument " << i
             << ": 'argus.access' declares the role of a tensor (memref) "
                "argument, not of "
             << fn.getArgumentTypes()[i];
  }
  return success();
}
