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
#include "llvm/ADT/SetVector.h"

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

  /// Shared memory (LDS) a block of a kernel for `chip` may use. The lowering
  /// places every shared buffer in a static addrspace(3) global and launches
  /// with no dynamic shared memory, so on NVIDIA the limit is the 48 KiB of
  /// static shared memory per block: the opt-in up to 227 KiB on sm_90 needs
  /// dynamic shared memory, which the lowering does not use
  /// (docs/Lowering.md, "Shared-memory budget").
  static int64_t sharedMemoryLimit(StringRef chip) {
    if (chip.starts_with("gfx"))
      return 64 * 1024;
    return 48 * 1024;
  }

  /// The shared memory each lowered kernel uses (its buffers, exchange
  /// scratch and probe counters: the workgroup globals it reads), checked
  /// against the chip's limit before code generation, so that the backend
  /// never sees a kernel it cannot compile (LLVM's AMDGPU backend ends the
  /// process on "local memory exceeds limit").
  static LogicalResult checkSharedMemory(ModuleOp top) {
    bool ok = true;
    top.walk([&](gpu::GPUFuncOp fn) {
      if (!fn.isKernel())
        return;
      auto mod = fn->getParentOfType<gpu::GPUModuleOp>();
      auto chipAttr = fn->getAttrOfType<StringAttr>("argus_chip");
      if (!mod || !chipAttr)
        return;
      Attribute shared = addressSpace(fn.getContext(), kSharedSpace);
      llvm::SetVector<memref::GlobalOp> used;
      fn.walk([&](memref::GetGlobalOp get) {
        auto g = dyn_cast_or_null<memref::GlobalOp>(
            SymbolTable::lookupSymbolIn(mod, get.getNameAttr()));
        if (g && g.getType().getMemorySpace() == shared)
          used.insert(g);
      });
      int64_t total = 0;
      SmallVector<std::pair<int64_t, memref::GlobalOp>> sizes;
      for (memref::GlobalOp g : used) {
        MemRefType t = g.getType();
        int64_t align = g.getAlignment().value_or(1);
        total = llvm::alignTo(total, std::max<int64_t>(align, 1));
        int64_t bytes = t.getNumElements() * elemBytes(t.getElementType());
        total += bytes;
        sizes.push_back({bytes, g});
      }
      StringRef chip = chipAttr.getValue();
      int64_t limit = sharedMemoryLimit(chip);
      if (total <= limit)
        return;
      ok = false;
      // At the kernel's location, without printing the lowered kernel.
      InFlightDiagnostic diag =
          emitError(fn.getLoc())
          << "kernel '" << fn.getName() << "' needs " << total
          << " bytes of shared memory but a block on " << chip
          << " may use at most " << limit << " bytes (" << limit / 1024
          << " KiB"
          << (chip.starts_with("sm_")
                  ? " of static shared memory; the lowering does not use "
                    "the opt-in dynamic shared memory"
                  : "")
          << "); hint: use fewer pipeline stages, smaller tiles or narrower "
             "element types";
      llvm::stable_sort(sizes,
                        [](auto &a, auto &b) { return a.first > b.first; });
      for (auto &[bytes, g] : sizes)
        diag.attachNote(g.getLoc()) << bytes << " bytes of shared memory ('"
                                    << g.getSymName() << "') for this op";
    });
    return success(ok);
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
    // Before the kernels are outlined: the warning points at argus ops.
    for (func::FuncOp fn : kernels)
      if (auto k = fn->getAttrOfType<KernelAttr>("argus.kernel"))
        warnRegisterBudget(fn,
                           target.empty() ? k.getTarget() : StringRef(target));
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
    if (failed(checkSharedMemory(top)))
      return signalPassFailure();
    // The bookkeeping attributes are not needed past this point.
    top.walk([](gpu::GPUFuncOp f) {
      f->removeAttr("argus_chip");
      f->removeAttr("argus_block");
      f->removeAttr("argus_probes");
    });
  }
};

} // namespace
