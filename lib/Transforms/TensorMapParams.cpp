//===- TensorMapParams.cpp - tensor maps as by-value grid constants -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The gpu.func-to-llvm.func conversion drops llvm.byval, and the NVVM
// dialect rejects nvvm.grid_constant on a gpu.func, so the by-value
// tensor-map parameters are marked on the llvm.func: 128 bytes, 64-byte
// aligned, a grid constant (NVPTX then takes the parameter's generic address
// with cvta.param instead of copying it to local memory).
//
//===----------------------------------------------------------------------===//

#include "argus/Conversion/ArgusToGPU/KernelABI.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Transforms/Passes.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSTENSORMAPPARAMS
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

struct ArgusTensorMapParamsPass
    : public ::mlir::argus::impl::ArgusTensorMapParamsBase<
          ArgusTensorMapParamsPass> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp fn) {
      auto maps = fn->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
      if (!maps)
        return;
      MLIRContext *ctx = fn.getContext();
      Builder b(ctx);
      for (auto map : maps.getAsRange<TensorMapParamAttr>()) {
        if (map.getPass() != "value")
          continue;
        unsigned param = map.getParam();
        fn.setArgAttr(param, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          IntegerType::get(ctx, 8), 128)));
        fn.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(64));
        fn.setArgAttr(param, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
      }
    });
  }
};

} // namespace
