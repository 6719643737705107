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
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSTOGPU
#include "argus/Conversion/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

/// applyPartialConversion, without the driver's "failed to legalize
/// operation" error for an op whose pattern already reported why (a located
/// error with a hint): the follow-up repeats the location and buries the
/// reason. An op no pattern explained keeps it.
static LogicalResult convertQuietly(Operation *top, ConversionTarget &tgt,
                                    RewritePatternSet &&patterns) {
  llvm::DenseSet<Location> explained;
  ScopedDiagnosticHandler handler(top->getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return failure(); // passed on
    if (StringRef(d.str()).starts_with("failed to legalize operation") &&
        explained.contains(d.getLocation()))
      return success(); // dropped
    explained.insert(d.getLocation());
    return failure();
  });
  return applyPartialConversion(top, tgt, std::move(patterns));
}

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
    markStoreOnce(*gfn);
    narrowExchanges(*gfn);
    createExchangeScratch(*gfn, mod);
    expandProbes(*gfn, mod);
    return lowerRoles(*gfn);
  }

  /// gpu.grid_dim where the target's conversion of it would not do
  /// (TargetInfo::lowerGridDim; AMDGPU: MLIR's ROCDL lowering calls
  /// __ockl_get_num_groups, which needs the ROCm device libraries at
  /// serialisation).
  static void lowerGridDims(ModuleOp top) {
    SmallVector<std::pair<gpu::GridDimOp, const TargetInfo *>> ops;
    top.walk([&](gpu::GPUFuncOp fn) {
      auto chip = fn->getAttrOfType<StringAttr>("argus_chip");
      if (!chip)
        return;
      const TargetInfo &ti = TargetInfo::get(chip.getValue());
      fn.walk([&](gpu::GridDimOp g) { ops.push_back({g, &ti}); });
    });
    for (auto [g, ti] : ops) {
      OpBuilder b(g);
      Value n = ti->lowerGridDim(b, g.getLoc(), g.getDimension());
      if (!n)
        continue;
      g.replaceAllUsesWith(n);
      g.erase();
    }
  }

  /// Moves the shared globals `used` of kernel `fn` into the module's one
  /// extern dynamic shared array: each becomes a memref.view at an offset
  /// aligned to its alignment (1024 bytes for swizzled tiles: the TMA and
  /// wgmma 128-byte swizzle works on address bits; 8 for mbarriers), largest
  /// alignment first. Returns the bytes the launch must request.
  static int64_t useDynamicSharedMemory(gpu::GPUFuncOp fn, gpu::GPUModuleOp mod,
                                        ArrayRef<memref::GlobalOp> used) {
    MLIRContext *ctx = fn.getContext();
    OpBuilder b(ctx);
    StringRef dynName = "__argus_dynamic_smem";
    auto dynType =
        MemRefType::get({0}, b.getI8Type(), MemRefLayoutAttrInterface(),
                        addressSpace(ctx, kSharedSpace));
    if (!SymbolTable::lookupSymbolIn(mod, dynName)) {
      b.setInsertionPointToStart(mod.getBody());
      // No initial value: an external declaration (PTX .extern .shared).
      memref::GlobalOp::create(b, mod.getLoc(), dynName,
                               b.getStringAttr("public"), dynType, Attribute(),
                               /*constant=*/false, b.getI64IntegerAttr(1024));
    }
    SmallVector<memref::GlobalOp> order(used.begin(), used.end());
    llvm::stable_sort(order, [](memref::GlobalOp a, memref::GlobalOp b) {
      return a.getAlignment().value_or(1) > b.getAlignment().value_or(1);
    });
    llvm::DenseMap<StringRef, int64_t> offsets;
    int64_t end = 0;
    for (memref::GlobalOp g : order) {
      end = llvm::alignTo(end,
                          std::max<int64_t>(g.getAlignment().value_or(1), 16));
      offsets[g.getSymName()] = end;
      MemRefType t = g.getType();
      end += t.getNumElements() * elemBytes(t.getElementType());
    }
    SmallVector<memref::GetGlobalOp> gets;
    fn.walk([&](memref::GetGlobalOp get) {
      if (offsets.count(get.getName()))
        gets.push_back(get);
    });
    for (memref::GetGlobalOp get : gets) {
      b.setInsertionPoint(get);
      Location loc = get.getLoc();
      Value base = memref::GetGlobalOp::create(b, loc, dynType, dynName);
      Value view = memref::ViewOp::create(
          b, loc, get.getType(), base,
          cidx(b, loc, offsets.lookup(get.getName())), ValueRange{});
      get.replaceAllUsesWith(view);
      get.erase();
    }
    for (memref::GlobalOp g : used)
      if (SymbolTable::symbolKnownUseEmpty(g, mod))
        g.erase();
    return end;
  }

  /// The shared memory each lowered kernel uses (its buffers, exchange
  /// scratch, mbarriers and probe counters: the workgroup globals it reads),
  /// checked against the chip's limit (TargetInfo) before code generation,
  /// so that the backend never sees a kernel it cannot compile (LLVM's
  /// AMDGPU backend ends the process on "local memory exceeds limit"). A
  /// kernel over the static limit of a chip with dynamic shared memory
  /// (sm_90a: over 48 KiB) moves to it (argus_dynamic_smem).
  static LogicalResult placeSharedMemory(ModuleOp top) {
    bool ok = true;
    SmallVector<gpu::GPUFuncOp> kernels;
    top.walk([&](gpu::GPUFuncOp fn) {
      if (fn.isKernel())
        kernels.push_back(fn);
    });
    for (gpu::GPUFuncOp fn : kernels) {
      auto mod = fn->getParentOfType<gpu::GPUModuleOp>();
      auto chipAttr = fn->getAttrOfType<StringAttr>("argus_chip");
      if (!mod || !chipAttr)
        continue;
      Attribute shared = addressSpace(fn.getContext(), kSharedSpace);
      llvm::SetVector<memref::GlobalOp> used;
      fn.walk([&](memref::GetGlobalOp get) {
        auto g = dyn_cast_or_null<memref::GlobalOp>(
            SymbolTable::lookupSymbolIn(mod, get.getNameAttr()));
        if (g && g.getType().getMemorySpace() == shared &&
            g.getType().getNumElements() > 0)
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
      const TargetInfo &ti = TargetInfo::get(chip);
      int64_t limit = ti.getStaticSharedMemoryLimit();
      int64_t dynamicLimit = ti.getDynamicSharedMemoryLimit(chip);
      bool dynamic = dynamicLimit > 0 && total > limit;
      if (dynamic) {
        limit = dynamicLimit;
        // The dynamic layout pads less or equally (largest alignment
        // first); check it before rewriting anything.
        int64_t end = 0;
        SmallVector<memref::GlobalOp> order(used.begin(), used.end());
        llvm::stable_sort(order, [](memref::GlobalOp a, memref::GlobalOp b) {
          return a.getAlignment().value_or(1) > b.getAlignment().value_or(1);
        });
        for (memref::GlobalOp g : order)
          end = llvm::alignTo(
                    end, std::max<int64_t>(g.getAlignment().value_or(1), 16)) +
                g.getType().getNumElements() *
                    elemBytes(g.getType().getElementType());
        total = end;
        if (total <= limit) {
          int64_t bytes = useDynamicSharedMemory(fn, mod, used.getArrayRef());
          fn->setAttr(
              kDynamicSmemAttr,
              IntegerAttr::get(IntegerType::get(fn.getContext(), 64), bytes));
          continue;
        }
      }
      if (total <= limit)
        continue;
      ok = false;
      // At the kernel's location, without printing the lowered kernel.
      InFlightDiagnostic diag =
          emitError(fn.getLoc())
          << "kernel '" << fn.getName() << "' needs " << total
          << " bytes of shared memory but a block on " << chip
          << " may use at most " << limit << " bytes (" << limit / 1024
          << " KiB" << (dynamic ? " of dynamic shared memory" : "")
          << "); hint: use fewer pipeline stages, smaller tiles or narrower "
             "element types";
      llvm::stable_sort(sizes,
                        [](auto &a, auto &b) { return a.first > b.first; });
      for (auto &[bytes, g] : sizes)
        diag.attachNote(g.getLoc()) << bytes << " bytes of shared memory ('"
                                    << g.getSymName() << "') for this op";
    }
    return success(ok);
  }

  /// The launch ABI of each kernel (#argus.kernel_launch), on the top
  /// module (`argus.launch`), where it survives serialisation for the hosts:
  /// the Python driver and argus-dump-binary's companion JSON.
  static void recordLaunchFacts(ModuleOp top) {
    SmallVector<NamedAttribute> kernels;
    MLIRContext *ctx = top.getContext();
    Builder b(ctx);
    top.walk([&](gpu::GPUFuncOp fn) {
      if (!fn->hasAttr(kKernelParamsAttr))
        return; // not an outlined argus kernel
      auto smem = fn->getAttrOfType<IntegerAttr>(kDynamicSmemAttr);
      auto maps = fn->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
      auto probes = fn->getAttrOfType<ProbePlanAttr>("argus_probes");
      kernels.push_back(b.getNamedAttr(
          fn.getName(),
          KernelLaunchAttr::get(
              ctx, fn->getAttrOfType<StringAttr>("argus_chip").getValue(),
              fn->getAttrOfType<DenseI64ArrayAttr>("argus_block"),
              smem ? smem.getInt() : 0,
              fn->getAttrOfType<ArrayAttr>(kKernelParamsAttr),
              maps ? maps : b.getArrayAttr({}), probes,
              fn->getAttrOfType<ArrayAttr>("argus_grid"),
              fn->getAttrOfType<DenseI64ArrayAttr>(kClusterAttr),
              fn->getAttrOfType<ArrayAttr>("argus_indices"))));
    });
    if (!kernels.empty())
      top->setAttr(kLaunchAttr, b.getDictionaryAttr(kernels));
  }

  /// memref.dim with a constant index outside the rank: its verifier lets
  /// negative indices pass and MLIR's canonicalization of the lowered
  /// kernel indexes the sizes with them (a crash), so they stop here.
  static LogicalResult checkDimIndices(func::FuncOp fn) {
    WalkResult r = fn.walk([](memref::DimOp dim) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto type = dyn_cast<MemRefType>(dim.getSource().getType());
      if (!index || !type || (*index >= 0 && *index < type.getRank()))
        return WalkResult::advance();
      dim.emitError() << "memref.dim index " << *index
                      << " is outside the rank " << type.getRank()
                      << " of its memref (hint: dimensions count from 0)";
      return WalkResult::interrupt();
    });
    return failure(r.wasInterrupted());
  }

  /// Argus ops are lowered only inside kernels (func.func with
  /// argus.kernel): outside one there is no block, target or launch for
  /// their per-thread code. The op verifiers accept them in any function,
  /// so they stop here with their location, before any rewriting (the
  /// conversion patterns read the enclosing gpu.func and gpu.module of
  /// every op they lower).
  static LogicalResult checkOpsInKernels(ModuleOp top) {
    bool ok = true;
    llvm::DenseSet<Operation *> reported;
    top.walk([&](Operation *op) {
      if (!isa<ArgusDialect>(op->getDialect()))
        return WalkResult::advance();
      auto fn = op->getParentOfType<FunctionOpInterface>();
      if (fn && fn->hasAttr(ArgusDialect::getKernelAttrName()))
        return WalkResult::advance();
      ok = false;
      // One error per function: its first argus op.
      if (!reported.insert(fn ? fn.getOperation() : op).second)
        return WalkResult::skip();
      InFlightDiagnostic d = op->emitError();
      d << "argus-to-gpu: '" << op->getName() << "' is in ";
      if (fn)
        d << "function '" << SymbolTable::getSymbolName(fn).getValue()
          << "', which is not an argus kernel";
      else
        d << "no function";
      d << "; argus ops are lowered only inside kernels; hint: mark the "
           "function with attributes {argus.kernel = #argus.kernel<block = "
           "[...], target = \"...\">} or move the op into a kernel";
      if (fn)
        d.attachNote(fn.getLoc()) << "the function is declared here";
      return WalkResult::skip();
    });
    return success(ok);
  }

  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkOpsInKernels(top)))
      return signalPassFailure();
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
      if (failed(checkDimIndices(fn)))
        return signalPassFailure();
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
    populateMBarrierLoweringPatterns(tc, patterns);
    populateTmaLoweringPatterns(tc, patterns);
    populateAsyncWgmmaLoweringPatterns(tc, patterns);
    if (failed(convertQuietly(top, tgt, std::move(patterns))))
      return signalPassFailure();
    if (failed(eraseAccessMarkers(top)))
      return signalPassFailure();
    lowerGridDims(top);
    if (failed(placeSharedMemory(top)))
      return signalPassFailure();
    recordLaunchFacts(top);
    // The bookkeeping attributes are not needed past this point.
    top.walk([](gpu::GPUFuncOp f) {
      f->removeAttr("argus_chip");
      f->removeAttr("argus_block");
      f->removeAttr("argus_grid");
      f->removeAttr("argus_indices");
      f->removeAttr("argus_probes");
      f->removeAttr(kKernelParamsAttr);
    });
  }
};

} // namespace
