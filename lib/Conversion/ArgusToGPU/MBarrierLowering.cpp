//===- MBarrierLowering.cpp - mbarrier rings to PTX mbarrier ops ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A ring is one 8-byte shared word per stage. Thread 0 initialises every
// stage; after the last ring of the kernel it fences the initialisation
// (fence.mbarrier_init) and the block synchronises once, so every role sees
// initialised barriers. Stage and parity are run-time values: the address
// of barrier[stage] is base + 8 * stage.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::argus;

/// The 32-bit shared address of barrier[stage] of a lowered ring.
Value mlir::argus::mbarrierAddress(OpBuilder &b, Location loc, Value ring,
                                   Value stage) {
  Value base = sharedAddress32(b, loc, ring);
  Value s = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), stage);
  return arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, s, constI32(b, loc, 8)));
}

/// `if (cond) { ... }` at the rewriter's insertion point; the builder is left
/// inside the then-block.
static void beginIf(OpBuilder &b, Location loc, Value cond) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
}

Value mlir::argus::isFirstThread(OpBuilder &b, Location loc,
                                 const KernelInfo &k) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               linearThreadId(b, loc, k), cidx(b, loc, 0));
}

void mlir::argus::beginIssuingThread(OpBuilder &b, Location loc,
                                     const KernelInfo &k) {
  beginIf(b, loc, isFirstThread(b, loc, k));
}

namespace {

struct MBarrierAllocLowering : ArgusPattern<MBarrierAllocOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    if (!k.target->hasMBarrier())
      return op.emitOpError()
             << "mbarriers exist on NVIDIA sm_90 only, the kernel is lowered "
                "for "
             << k.chip << "; hint: lower it with --argus-to-nvptx";
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    auto fn = op->getParentOfType<gpu::GPUFuncOp>();
    auto mod = op->getParentOfType<gpu::GPUModuleOp>();
    std::string base = ("__argus_" + fn.getName() + "_" + op.getName()).str();
    std::string name = base;
    for (int i = 1; SymbolTable::lookupSymbolIn(mod, name); ++i)
      name = base + "_" + std::to_string(i);
    {
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(mod.getBody());
      memref::GlobalOp::create(
          rewriter, loc, name, rewriter.getStringAttr("private"), type,
          Attribute(), /*constant=*/false, rewriter.getI64IntegerAttr(8));
    }
    Value ring = memref::GetGlobalOp::create(rewriter, loc, type, name);
    // Is this the kernel's last ring? Then fence and synchronise after it.
    bool last = true;
    for (Operation *n = op->getNextNode(); n && last; n = n->getNextNode())
      last = !isa<MBarrierAllocOp>(n);
    {
      OpBuilder::InsertionGuard g(rewriter);
      beginIf(rewriter, loc,
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    blockThreadId(rewriter, loc, k),
                                    cidx(rewriter, loc, 0)));
      Value base = sharedAddress32(rewriter, loc, ring);
      for (int64_t s = 0; s < op.getType().getStages(); ++s) {
        Value addr = arith::AddIOp::create(rewriter, loc, base,
                                           constI32(rewriter, loc, 8 * s));
        inlinePtx(rewriter, loc, {}, {addr},
                  "mbarrier.init.shared::cta.b64 [$0], " +
                      std::to_string(op.getArrivals()) + ";",
                  "r");
      }
      if (last)
        inlinePtx(rewriter, loc, {}, {}, "fence.mbarrier_init.release.cluster;",
                  "");
    }
    // In a cluster, other blocks arrive on these barriers and multicast
    // copies complete on them: the whole cluster waits for the inits.
    if (last && k.clusterSize > 1)
      clusterBarrier(rewriter, loc);
    else if (last)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, ring);
    return success();
  }
};

struct MBarrierArriveLowering : ArgusPattern<MBarrierArriveOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = mbarrierAddress(rewriter, loc, adaptor.getBarrier(),
                                 adaptor.getStage());
    if (!op.getCluster()) {
      inlinePtx(rewriter, loc, {}, {addr},
                "mbarrier.arrive.shared::cta.b64 _, [$0];", "r");
      rewriter.eraseOp(op);
      return success();
    }
    // The same barrier in every block of the cluster (mapa gives its
    // shared::cluster address). A warp's 32 arrivals are made by its lane 0
    // as one arrive counting 32, after a warp barrier that orders the other
    // lanes' accesses before it (the release is cumulative): one remote
    // arrive per warp instead of 32. The executing threads are whole warps
    // that reach the op together (roles are whole warps; control flow
    // depends on uniform indices). The arrive has the default semantics
    // (release, CTA scope), as CUTLASS's cluster barriers: what it releases
    // are reads that have completed (retired wgmma groups, loads whose
    // values are in registers), which no later write can change. A
    // cluster-scope release halved the GEMM's throughput (measured on the
    // H200: 437 vs 781 TFLOP/s on 4096^3).
    KernelInfo k = kernel(op);
    std::string ptx = "{\n.reg .b32 ra, lane;\n.reg .pred p;\n"
                      "bar.warp.sync -1;\nmov.u32 lane, %laneid;\n"
                      "setp.eq.u32 p, lane, 0;\n";
    for (int64_t r = 0; r < k.clusterSize; ++r)
      ptx += "@p mapa.shared::cluster.u32 ra, $0, " + std::to_string(r) +
             ";\n@p mbarrier.arrive.shared::cluster.b64 _, [ra], " +
             std::to_string(k.warpSize) + ";\n";
    ptx += "}";
    inlinePtx(rewriter, loc, {}, {addr}, ptx, "r");
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveExpectTxLowering : ArgusPattern<MBarrierArriveExpectTxOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelInfo k = kernel(op);
    // The first thread of the role (or block): the one that issues the
    // role's TMA copies too.
    OpBuilder::InsertionGuard g(rewriter);
    beginIssuingThread(rewriter, loc, k);
    Value addr = mbarrierAddress(rewriter, loc, adaptor.getBarrier(),
                                 adaptor.getStage());
    inlinePtx(rewriter, loc, {}, {addr},
              "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], " +
                  std::to_string(op.getBytes()) + ";",
              "r");
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : ArgusPattern<MBarrierWaitOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = mbarrierAddress(rewriter, loc, adaptor.getBarrier(),
                                 adaptor.getStage());
    Value parity = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI32Type(), adaptor.getParity());
    // The labels are local to the braces (as in CUTLASS's ClusterBarrier),
    // so the block may be repeated.
    inlinePtx(rewriter, loc, {}, {addr, parity},
              "{\n"
              ".reg .pred p;\n"
              "ARGUS_WAIT:\n"
              "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
              "@p bra ARGUS_DONE;\n"
              "bra ARGUS_WAIT;\n"
              "ARGUS_DONE:\n"
              "}",
              "r,r");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::argus::populateMBarrierLoweringPatterns(
    const TypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<MBarrierAllocLowering, MBarrierArriveLowering,
               MBarrierArriveExpectTxLowering, MBarrierWaitLowering>(
      tc, patterns.getContext());
}
