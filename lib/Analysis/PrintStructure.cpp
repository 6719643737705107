//===- PrintStructure.cpp - --argus-print-structure -----------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/KernelStructure.h"
#include "argus/Analysis/Passes.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSPRINTSTRUCTURE
#include "argus/Analysis/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {
struct PrintStructurePass
    : public mlir::argus::impl::ArgusPrintStructureBase<PrintStructurePass> {
  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface fn) {
      bool isKernel = fn->hasAttr(ArgusDialect::getKernelAttrName());
      bool usesArgus = false;
      fn->walk([&](Operation *op) {
        usesArgus |= isa<ArgusDialect>(op->getDialect());
      });
      if (isKernel || usesArgus)
        KernelStructure(fn).print(llvm::outs());
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
