//===- ArgusToGPU.cpp - lower argus kernels to gpu/nvgpu/amdgpu ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Each argus kernel is outlined into a gpu.func (KernelOutlining.cpp); its
// block-collective tile ops then become per-thread code: every thread
// evaluates the tile's layout (thread, slot) -> logical coordinate (see
// argus/Dialect/TileLayouts.h) with index arithmetic and unrolls over its
// slots, and register tiles become vector<slots x elem>. The patterns live
// by concept in MemoryLowering, MmaLowering, ElementwiseLowering and
// ExchangeLowering; probe records in ProbeEmission.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"
#include "TileAccess.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSTOGPU
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

struct ArgusToGPUPass
    : public ::mlir::argus::impl::ArgusToGPUBase<ArgusToGPUPass> {
  using ArgusToGPUBase::ArgusToGPUBase;

  LogicalResult convertKernel(ModuleOp top, func::FuncOp fn) {
    KernelOutlining options;
    options.target = target;
    options.probes = probes;
    options.minBlocksPerSM = minBlocksPerSM;
    FailureOr<gpu::GPUFuncOp> gfn = outlineKernel(top, fn, options);
    if (failed(gfn))
      return failure();
    auto mod = (*gfn)->getParentOfType<gpu::GPUModuleOp>();
    narrowExchanges(*gfn);
    createExchangeScratch(*gfn, mod);
    expandProbes(*gfn, mod);
    return success();
  }

  /// gpu.grid_dim on AMDGPU: MLIR's ROCDL lowering calls
  /// __ockl_get_num_groups, which needs the ROCm device libraries at
  /// serialisation. Read the HSA kernel dispatch packet instead
  /// (workgroup_size_{x,y,z}: u16 at byte 4 + 2d; grid_size_{x,y,z}: u32 at
  /// byte 12 + 4d) and divide, rounding up.
  static void lowerAMDGPUGridDim(ModuleOp top) {
    SmallVector<gpu::GridDimOp> ops;
    top.walk([&](gpu::GridDimOp g) {
      auto mod = g->getParentOfType<gpu::GPUModuleOp>();
      ArrayAttr targets = mod ? mod.getTargetsAttr() : ArrayAttr();
      if (targets && llvm::any_of(targets, [](Attribute a) {
            return isa<ROCDL::ROCDLTargetAttr>(a);
          }))
        ops.push_back(g);
    });
    for (gpu::GridDimOp g : ops) {
      OpBuilder b(g);
      Location loc = g.getLoc();
      auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 4);
      Value packet =
          LLVM::CallIntrinsicOp::create(
              b, loc, ptrTy, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
              ValueRange{})
              .getResult(0);
      unsigned d = static_cast<unsigned>(g.getDimension());
      auto field = [&](int32_t offset, Type ty) -> Value {
        Value at = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), packet,
                                       ArrayRef<LLVM::GEPArg>{offset});
        return LLVM::LoadOp::create(b, loc, ty, at);
      };
      Value wg = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                        field(4 + 2 * d, b.getI16Type()));
      Value grid = field(12 + 4 * d, b.getI32Type());
      Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
      Value up = arith::AddIOp::create(b, loc, grid,
                                       arith::SubIOp::create(b, loc, wg, one));
      Value n = arith::DivUIOp::create(b, loc, up, wg);
      Value idx = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), n);
      g.replaceAllUsesWith(idx);
      g.erase();
    }
  }

  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    top.walk([&](func::FuncOp fn) {
      if (fn->hasAttr("argus.kernel"))
        kernels.push_back(fn);
    });
    if (kernels.empty())
      return;
    top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                 UnitAttr::get(ctx));
    for (func::FuncOp fn : kernels)
      if (failed(convertKernel(top, fn)))
        return signalPassFailure();

    ArgusTypeConverter tc;
    RewritePatternSet patterns(ctx);
    ConversionTarget tgt(*ctx);
    tgt.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    tgt.addIllegalDialect<ArgusDialect>();
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, tgt);
    populateMemoryLoweringPatterns(tc, patterns, ldmatrix.getValue());
    populateMmaLoweringPatterns(tc, patterns);
    populateElementwiseLoweringPatterns(tc, patterns);
    populateExchangeLoweringPatterns(tc, patterns);
    if (failed(applyPartialConversion(top, tgt, std::move(patterns))))
      return signalPassFailure();
    if (failed(eraseGatherMarkers(top)))
      return signalPassFailure();
    lowerAMDGPUGridDim(top);
    // The bookkeeping attributes are not needed past this point.
    top.walk([](gpu::GPUFuncOp f) {
      f->removeAttr("argus_chip");
      f->removeAttr("argus_block");
      f->removeAttr("argus_probes");
    });
  }
};

} // namespace
