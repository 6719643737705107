//===- TmaLowering.cpp - tensor maps, bulk tensor copies, proxy fences ----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// argus.tensor_map is the generic address of its by-value kernel parameter
// (KernelOutlining.cpp); argus.tma_load is one cp.async.bulk.tensor per box,
// issued by the first thread of the role, completing on barrier[stage];
// argus.tma_store is one per box the other way, committed as a bulk group
// that argus.tma_store_wait (cp.async.bulk.wait_group.read) retires;
// argus.fence_proxy_async is fence.proxy.async.shared::cta.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "argus/Dialect/TagFields.h"

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

/// The origin in the tensor (as i32 copy coordinates) of the tile a bulk
/// tensor copy moves: the offsets of `global`, an argus.view (possibly
/// tagged).
static FailureOr<SmallVector<Value>>
boxOrigin(ConversionPatternRewriter &rewriter, Location loc, Operation *op,
          Value global) {
  ViewOp view = getViewThroughTags(global);
  if (!view)
    return op->emitOpError() << "the global tile must be an argus.view: its "
                                "offsets are the box coordinates";
  int64_t rank = view.getOffsets().size();
  if (rank < 1 || rank > 5)
    return op->emitOpError() << "cp.async.bulk.tensor moves 1 to 5 "
                                "dimensions, the tile has "
                             << rank;
  SmallVector<Value> origin;
  for (Value off : view.getOffsets())
    origin.push_back(arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(), rewriter.getRemappedValue(off)));
  return origin;
}

/// One bulk tensor copy per box of `map` covering a tile of `shape` at
/// `origin`: box j of the row-major grid lies j box sizes after `smem`.
/// `emit(smem address of the box, coordinates innermost first)` issues one
/// copy; the caller is inside the issuing thread's branch.
static void forEachBox(ConversionPatternRewriter &rewriter, Location loc,
                       ArrayRef<Value> origin, ArrayRef<int64_t> shape,
                       TensorMapType map, Value smem,
                       function_ref<void(Value, ArrayRef<Value>)> emit) {
  ArrayRef<int64_t> box = map.getBox();
  int64_t rank = shape.size();
  int64_t boxBytes = map.getBoxBytes();
  SmallVector<int64_t> grid;
  int64_t boxes = 1;
  for (int64_t d = 0; d < rank; ++d) {
    grid.push_back(shape[d] / box[d]);
    boxes *= grid.back();
  }
  for (int64_t j = 0; j < boxes; ++j) {
    SmallVector<int64_t> at(rank);
    for (int64_t d = rank - 1, rest = j; d >= 0; --d) {
      at[d] = rest % grid[d];
      rest /= grid[d];
    }
    Value boxSmem =
        j ? arith::AddIOp::create(rewriter, loc, smem,
                                  constI32(rewriter, loc, j * boxBytes))
                .getResult()
          : smem;
    SmallVector<Value> coords;
    for (int64_t d = rank - 1; d >= 0; --d)
      coords.push_back(
          at[d] ? arith::AddIOp::create(rewriter, loc, origin[d],
                                        constI32(rewriter, loc, at[d] * box[d]))
                      .getResult()
                : origin[d]);
    emit(boxSmem, coords);
  }
}

/// "{$first, $first+1, ...}": the coordinate operands of a copy.
static std::string coordOperands(int64_t first, int64_t rank) {
  std::string str = "{";
  for (int64_t i = 0; i < rank; ++i)
    str += (i ? ", $" : "$") + std::to_string(first + i);
  return str + "}";
}

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
    FailureOr<SmallVector<Value>> origin =
        boxOrigin(rewriter, loc, op, op.getSource());
    if (failed(origin))
      return failure();
    int64_t rank = origin->size();
    OpBuilder::InsertionGuard g(rewriter);
    beginIssuingThread(rewriter, loc, k);
    Value dest = sharedAddress32(rewriter, loc, adaptor.getDest());
    Value bar = mbarrierAddress(rewriter, loc, adaptor.getBarrier(),
                                adaptor.getStage());
    // Multicast: the block of rank r in the cluster issues boxes j with
    // j % n == r, each to the same offset and barrier in all n blocks (mask
    // m: every rank).
    int64_t n = op.getMulticast() ? k.clusterSize : 1;
    // [$0] dest, [$1, {coords innermost first}], [$last] barrier.
    std::string str = "cp.async.bulk.tensor." + std::to_string(rank) +
                      "d.shared::cluster.global.mbarrier::complete_tx::bytes" +
                      (n > 1 ? ".multicast::cluster" : "") + " [$0], [$1, " +
                      coordOperands(2, rank) + "], [$" +
                      std::to_string(2 + rank) + "]" + (n > 1 ? ", m" : "") +
                      ";";
    std::string cons = "r,l";
    for (int64_t i = 0; i <= rank; ++i)
      cons += ",r";
    auto multicastBox = [&](int64_t j) {
      return "{\n.reg .b32 r;\n.reg .b16 m;\n.reg .pred p;\n"
             "mov.u32 r, %cluster_ctarank;\nsetp.eq.u32 p, r, " +
             std::to_string(j % n) + ";\nmov.b16 m, " +
             std::to_string((int64_t(1) << n) - 1) + ";\n@p " + str + "\n}";
    };
    int64_t box = 0;
    forEachBox(rewriter, loc, *origin, op.getDest().getType().getShape(),
               op.getMap().getType(), dest,
               [&](Value smem, ArrayRef<Value> coords) {
                 SmallVector<Value> args{smem, adaptor.getMap()};
                 args.append(coords.begin(), coords.end());
                 args.push_back(bar);
                 inlinePtx(rewriter, loc, {}, args,
                           n > 1 ? multicastBox(box) : str, cons);
                 ++box;
               });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : ArgusPattern<TmaStoreOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    if (!k.target->hasTma())
      return op.emitOpError() << "TMA copies exist on NVIDIA sm_90 only, the "
                                 "kernel is lowered for "
                              << k.chip << "; hint: use argus.store";
    FailureOr<SmallVector<Value>> origin =
        boxOrigin(rewriter, loc, op, op.getDest());
    if (failed(origin))
      return failure();
    int64_t rank = origin->size();
    OpBuilder::InsertionGuard g(rewriter);
    beginIssuingThread(rewriter, loc, k);
    Value src = sharedAddress32(rewriter, loc, adaptor.getSource());
    // [$0, {coords innermost first}], [$last] source; the tensor map clips
    // what lies outside the tensor.
    std::string str = "cp.async.bulk.tensor." + std::to_string(rank) +
                      "d.global.shared::cta.bulk_group [$0, " +
                      coordOperands(1, rank) + "], [$" +
                      std::to_string(1 + rank) + "];";
    std::string cons = "l";
    for (int64_t i = 0; i <= rank; ++i)
      cons += ",r";
    forEachBox(rewriter, loc, *origin, op.getSource().getType().getShape(),
               op.getMap().getType(), src,
               [&](Value smem, ArrayRef<Value> coords) {
                 SmallVector<Value> args{adaptor.getMap()};
                 args.append(coords.begin(), coords.end());
                 args.push_back(smem);
                 inlinePtx(rewriter, loc, {}, args, str, cons);
               });
    // The boxes form one bulk group, retired by argus.tma_store_wait.
    inlinePtx(rewriter, loc, {}, {}, "cp.async.bulk.commit_group;", "");
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : ArgusPattern<TmaStoreWaitOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    if (!k.target->hasTma())
      return op.emitOpError() << "bulk store groups exist on NVIDIA sm_90 "
                                 "only, the kernel is lowered for "
                              << k.chip;
    // Only the issuing thread has bulk groups to wait for.
    OpBuilder::InsertionGuard g(rewriter);
    beginIssuingThread(rewriter, loc, k);
    inlinePtx(rewriter, loc, {}, {},
              "cp.async.bulk.wait_group.read " +
                  std::to_string(op.getPending()) + ";",
              "");
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
  patterns.add<TensorMapLowering, TmaLoadLowering, TmaStoreLowering,
               TmaStoreWaitLowering, FenceProxyAsyncLowering>(
      tc, patterns.getContext());
}
