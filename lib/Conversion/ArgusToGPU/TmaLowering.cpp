//===- TmaLowering.cpp - tensor maps, bulk tensor copies, proxy fences ----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// argus.tensor_map is the generic address of its by-value kernel parameter
// (KernelOutlining.cpp); argus.tma_load is one cp.async.bulk.tensor per box,
// issued by the first thread of the role, completing on barrier[stage];
// argus.fence_proxy_async is fence.proxy.async.shared::cta.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

struct TensorMapLowering : ArgusPattern<TensorMapOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(TensorMapOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    auto param = op->getAttrOfType<IntegerAttr>(kTensorMapParamAttr);
    auto fn = op->getParentOfType<gpu::GPUFuncOp>();
    if (!k.target->hasTma() || !param || !fn)
      return op.emitOpError()
             << "tensor maps need an NVIDIA sm_90 kernel outlined by "
                "argus-to-gpu (the kernel is lowered for "
             << k.chip << "); hint: lower it with --argus-to-nvptx";
    Location loc = op.getLoc();
    Value map = fn.getArgument(param.getInt());
    // Warm the descriptor cache once per block: the copies read it next.
    {
      OpBuilder::InsertionGuard g(rewriter);
      Value first = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          blockThreadId(rewriter, loc, k), cidx(rewriter, loc, 0));
      auto ifOp = scf::IfOp::create(rewriter, loc, first, false);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      inlinePtx(rewriter, loc, {}, {map}, "prefetch.tensormap [$0];", "l");
    }
    rewriter.replaceOp(op, map);
    return success();
  }
};

struct TmaLoadLowering : ArgusPattern<TmaLoadOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    if (!k.target->hasTma())
      return op.emitOpError() << "TMA copies exist on NVIDIA sm_90 only, the "
                                 "kernel is lowered for "
                              << k.chip << "; hint: use argus.copy_async";
    Value v = op.getSource();
    while (auto tag = v.getDefiningOp<TagOp>())
      v = tag.getInput();
    auto view = v.getDefiningOp<ViewOp>();
    if (!view)
      return op.emitOpError() << "the source must be an argus.view: its "
                                 "offsets are the box coordinates";
    TileType dst = op.getDest().getType();
    TensorMapType map = op.getMap().getType();
    ArrayRef<int64_t> shape = dst.getShape(), box = map.getBox();
    int64_t rank = shape.size();
    if (rank < 1 || rank > 5)
      return op.emitOpError() << "cp.async.bulk.tensor moves 1 to 5 "
                                 "dimensions, the tile has "
                              << rank;
    int64_t boxBytes = map.getBoxBytes();
    SmallVector<int64_t> grid;
    int64_t boxes = 1;
    for (int64_t d = 0; d < rank; ++d) {
      grid.push_back(shape[d] / box[d]);
      boxes *= grid.back();
    }
    // The tile's origin in the tensor, as i32 (the copy's coordinates).
    SmallVector<Value> origin;
    for (Value off : view.getOffsets())
      origin.push_back(
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                     rewriter.getRemappedValue(off)));
    OpBuilder::InsertionGuard g(rewriter);
    auto ifOp = scf::IfOp::create(rewriter, loc,
                                  isFirstThread(rewriter, loc, k), false);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value dest = sharedAddress32(rewriter, loc, adaptor.getDest());
    Value bar = mbarrierAddress(rewriter, loc, adaptor.getBarrier(),
                                adaptor.getStage());
    // [$0] dest, [$1, {coords innermost first}], [$last] barrier.
    std::string str = "cp.async.bulk.tensor." + std::to_string(rank) +
                      "d.shared::cluster.global.mbarrier::complete_tx::bytes "
                      "[$0], [$1, {";
    for (int64_t i = 0; i < rank; ++i)
      str += (i ? ", $" : "$") + std::to_string(2 + i);
    str += "}], [$" + std::to_string(2 + rank) + "];";
    std::string cons = "r,l";
    for (int64_t i = 0; i <= rank; ++i)
      cons += ",r";
    for (int64_t j = 0; j < boxes; ++j) {
      // Box j of the row-major grid lands j box sizes after the tile start.
      SmallVector<int64_t> at(rank);
      for (int64_t d = rank - 1, rest = j; d >= 0; --d) {
        at[d] = rest % grid[d];
        rest /= grid[d];
      }
      SmallVector<Value> args{
          j ? arith::AddIOp::create(rewriter, loc, dest,
                                    constI32(rewriter, loc, j * boxBytes))
                  .getResult()
            : dest,
          adaptor.getMap()};
      for (int64_t d = rank - 1; d >= 0; --d)
        args.push_back(at[d] ? arith::AddIOp::create(
                                   rewriter, loc, origin[d],
                                   constI32(rewriter, loc, at[d] * box[d]))
                                   .getResult()
                             : origin[d]);
      args.push_back(bar);
      inlinePtx(rewriter, loc, {}, args, str, cons);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceProxyAsyncLowering : ArgusPattern<FenceProxyAsyncOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    // Without an async proxy (no TMA: synchronous copies) nothing to order.
    if (k.target->hasTma())
      inlinePtx(rewriter, op.getLoc(), {}, {}, "fence.proxy.async.shared::cta;",
                "");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::argus::populateTmaLoweringPatterns(const TypeConverter &tc,
                                              RewritePatternSet &patterns) {
  patterns.add<TensorMapLowering, TmaLoadLowering, FenceProxyAsyncLowering>(
      tc, patterns.getContext());
}
