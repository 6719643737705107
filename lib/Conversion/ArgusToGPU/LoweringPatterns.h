//===- LoweringPatterns.h - the pieces of argus-to-gpu ----------*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// What ArgusToGPU.cpp assembles: kernel outlining (KernelOutlining.cpp), the
// conversion patterns by concept (MemoryLowering.cpp, MmaLowering.cpp,
// ElementwiseLowering.cpp, ExchangeLowering.cpp), and the probe records
// (ProbeEmission.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGPATTERNS_H
#define ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGPATTERNS_H

#include "LoweringSupport.h"

#include "argus/Dialect/Instructions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::argus {

/// Outlining options (the pass's options that shape the kernel's ABI).
struct KernelOutlining {
  /// Chip to lower for; empty: the kernel's own target.
  std::string target;
  /// Append the probe-buffer argument to kernels with a probe plan.
  bool probes = false;
  /// NVPTX .minnctapersm; 0: none.
  int64_t minBlocksPerSM = 0;
};

/// Move kernel `fn` into the gpu.module of its chip as a gpu.func with the
/// argus ABI: each memref argument becomes a pointer and its sizes (a
/// row-major descriptor is rebuilt in the kernel), index arguments i64, and
/// a probe-buffer pointer comes last when probes are on.
FailureOr<gpu::GPUFuncOp> outlineKernel(ModuleOp top, func::FuncOp fn,
                                        const KernelOutlining &options);

/// Marks (kStoreOnceAttr) the stores of replicated register tiles to global
/// memory whose replicas hold equal values: they store each element once.
/// Decided before the conversion, which rewrites the loops the analysis
/// follows.
void markStoreOnce(gpu::GPUFuncOp gfn);
inline constexpr llvm::StringLiteral kStoreOnceAttr = "argus.store_once";

/// Rewrite convert_layout + narrowing convert to exchange narrow values.
void narrowExchanges(gpu::GPUFuncOp gfn);
/// One shared scratch per element type for the kernel's exchanges.
void createExchangeScratch(gpu::GPUFuncOp gfn, gpu::GPUModuleOp mod);

/// Turn the kernel's probed region markers into probe records (when
/// outlining kept its probe plan) and erase all markers.
void expandProbes(gpu::GPUFuncOp gfn, gpu::GPUModuleOp mod);

/// argus.role -> a warp-uniform scf.if chain carrying kRoleAttr, with
/// setmaxnreg and the entry register cap (RoleLowering.cpp).
LogicalResult lowerRoles(gpu::GPUFuncOp gfn);

/// 16-bit register tile `dst` loaded from shared tile `src` with ldmatrix
/// instructions; null when the layouts do not allow it.
Value loadWithLdMatrix(ConversionPatternRewriter &rewriter, Location loc,
                       const KernelInfo &k, const L::Layout &tv, Value tid,
                       const ThreadCoords &tc, Value srcMem, TileType src,
                       TileType dst, VectorType vt);

/// wgmma.mma_async lowering of an argus.mma (one warpgroup).
/// A wgmma operand in shared memory: the descriptor bits besides the start
/// address (LBO, SBO, swizzle mode) and the start-address advances in
/// 16-byte units: per k-step (32 bytes: 16 16-bit or 8 tf32 elements), per
/// 128-byte atom along K (K-major), per 64 rows (K-major A: the next
/// warpgroup's rows).
struct WgmmaSharedOperand {
  int64_t fixedBits = 0;
  int64_t kStep16 = 0;
  int64_t kAtom16 = 0;
  int64_t rows64Step16 = 0;
  /// MN-major (the instruction's imm-trans = 1) or K-major (0).
  bool mnMajor = false;
  /// Descriptor increment (16-byte units) of the kk-th k-step.
  int64_t kOffset16(int64_t kk) const;
};
/// B (K x N): MN-major or K-major, 128-byte swizzle, checked element by
/// element.
FailureOr<WgmmaSharedOperand> wgmmaSharedB(Operation *op, TileType tb);
/// A (M x K): K-major, 128-byte swizzle, checked element by element.
FailureOr<WgmmaSharedOperand> wgmmaSharedA(Operation *op, TileType ta);
/// The 64-bit descriptor of the operand starting at `mem` (a shared memref).
Value wgmmaDescriptor(OpBuilder &b, Location loc, Value mem,
                      const WgmmaSharedOperand &d);

/// "wgmma.mma_async.sync.aligned.m64nNkK.f32.<a>.<b>" of `instr`.
std::string wgmmaOpcode(const L::MmaInstr &instr);
/// The operands after scale-d: imm-scale-a/b and, for 16-bit inputs, the
/// transpose immediates (A always K-major, B MN-major when `mnMajorB`).
std::string wgmmaImmediates(const L::MmaInstr &instr, bool mnMajorB);
/// The four 32-bit A registers of k-step `kk` from A's register fragment.
SmallVector<Value> wgmmaARegisters(OpBuilder &b, Location loc, Value a,
                                   const L::MmaInstr &instr, int64_t kk);

LogicalResult lowerWgmma(MmaOp op, MmaOp::Adaptor adaptor,
                         ConversionPatternRewriter &rewriter,
                         const L::MmaInstr &instr, const KernelInfo &k);

void populateMemoryLoweringPatterns(const TypeConverter &tc,
                                    RewritePatternSet &patterns,
                                    bool useLdMatrix);
void populateMmaLoweringPatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
void populateElementwiseLoweringPatterns(const TypeConverter &tc,
                                         RewritePatternSet &patterns);
void populateExchangeLoweringPatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns);
/// The 32-bit shared address of barrier[stage] of a lowered mbarrier ring.
Value mbarrierAddress(OpBuilder &b, Location loc, Value ring, Value stage);
/// Whether this is the first thread of the role (or block) executing the op
/// whose KernelInfo `k` is: the thread that issues TMA copies.
Value isFirstThread(OpBuilder &b, Location loc, const KernelInfo &k);
/// Opens `if (isFirstThread) {` at the builder's insertion point and leaves
/// the builder inside it: where one thread issues TMA copies, bulk groups
/// and transaction counts for the role (restore the point with an
/// InsertionGuard).
void beginIssuingThread(OpBuilder &b, Location loc, const KernelInfo &k);

/// mbarrier rings (MBarrierLowering.cpp).
void populateMBarrierLoweringPatterns(const TypeConverter &tc,
                                      RewritePatternSet &patterns);
/// tensor maps, TMA copies, proxy fences (TmaLowering.cpp).
void populateTmaLoweringPatterns(const TypeConverter &tc,
                                 RewritePatternSet &patterns);
/// mma_async, wgmma_commit, wgmma_wait (AsyncWgmmaLowering.cpp).
void populateAsyncWgmmaLoweringPatterns(const TypeConverter &tc,
                                        RewritePatternSet &patterns);

} // namespace mlir::argus

#endif // ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGPATTERNS_H
