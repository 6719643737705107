//===- ElementwiseLowering.cpp - argus elementwise ops on register tiles --===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// A register tile is vector<slots x elem> in every thread, so elementwise
// ops become arith/math ops on those vectors; tags and tag assertions are
// proof bookkeeping and vanish.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

struct FillLowering : ArgusPattern<FillOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vt = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!vt)
      return failure();
    Type e = vt.getElementType();
    TypedAttr v;
    if (auto ft = dyn_cast<FloatType>(e))
      v = rewriter.getFloatAttr(ft, op.getValue().convertToDouble());
    else
      v = rewriter.getIntegerAttr(e, int64_t(op.getValue().convertToDouble()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, vt, DenseElementsAttr::get(vt, v));
    return success();
  }
};

template <typename OpT, typename FOp, typename IOp>
struct BinaryLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<FloatType>(op.getType().getElementType()))
      rewriter.replaceOpWithNewOp<FOp>(op, adaptor.getLhs(), adaptor.getRhs());
    else
      rewriter.replaceOpWithNewOp<IOp>(op, adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

template <typename OpT, typename FOp>
struct UnaryFloatLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType().getElementType()))
      return rewriter.notifyMatchFailure(op, "float tiles only");
    Value in = adaptor.getInput();
    if (!in)
      return rewriter.notifyMatchFailure(op, "input not converted");
    Location loc = op.getLoc();
    // AMDGPU: math.exp/exp2 would become OCML calls (ROCm device
    // libraries); use the llvm.exp2 intrinsic (v_exp_f32) directly.
    if constexpr (std::is_same_v<FOp, math::ExpOp> ||
                  std::is_same_v<FOp, math::Exp2Op>) {
      if (!this->kernel(op).nvidia) {
        auto vt = cast<VectorType>(in.getType());
        Value x = in;
        if constexpr (std::is_same_v<FOp, math::ExpOp>) {
          Value log2e = floatSplat(rewriter, loc, vt, 1.4426950408889634);
          x = arith::MulFOp::create(rewriter, loc, x, log2e);
        }
        // rocdl.exp2 (llvm.amdgcn.exp2) is scalar: one per slot.
        Value r = zeroVector(rewriter, loc, vt);
        for (int64_t i = 0; i < vt.getNumElements(); ++i) {
          Value e = vector::ExtractOp::create(rewriter, loc, x, i);
          e = ROCDL::ROCDLExp2::create(rewriter, loc, e.getType(), e);
          r = vector::InsertOp::create(rewriter, loc, e, r, i);
        }
        rewriter.replaceOp(op, r);
        return success();
      }
    }
    // NVPTX: math.exp/exp2 would become libdevice calls (__nv_expf,
    // __nv_exp2f) that a PTX module without libdevice cannot resolve. For
    // elements up to 32 bits call llvm.nvvm.ex2.approx on f32 per slot,
    // i.e. ex2.approx.f32 (exp(x) = exp2(x * log2 e), as CUDA's __expf);
    // f64 keeps the libdevice call.
    if constexpr (std::is_same_v<FOp, math::ExpOp> ||
                  std::is_same_v<FOp, math::Exp2Op>) {
      auto vt = cast<VectorType>(in.getType());
      auto ft = cast<FloatType>(vt.getElementType());
      if (this->kernel(op).nvidia && ft.getWidth() <= 32) {
        Type f32 = rewriter.getF32Type();
        auto vf32 = VectorType::get(vt.getShape(), f32);
        Value x = in;
        if (ft.getWidth() < 32)
          x = arith::ExtFOp::create(rewriter, loc, vf32, x);
        if constexpr (std::is_same_v<FOp, math::ExpOp>)
          x = arith::MulFOp::create(
              rewriter, loc, x,
              floatSplat(rewriter, loc, vf32, 1.4426950408889634));
        Value r = zeroVector(rewriter, loc, vf32);
        for (int64_t i = 0; i < vt.getNumElements(); ++i) {
          Value e = vector::ExtractOp::create(rewriter, loc, x, i);
          e = LLVM::CallIntrinsicOp::create(
                  rewriter, loc, f32,
                  rewriter.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                  ValueRange{e})
                  .getResult(0);
          r = vector::InsertOp::create(rewriter, loc, e, r, i);
        }
        if (ft.getWidth() < 32)
          r = arith::TruncFOp::create(rewriter, loc, vt, r);
        rewriter.replaceOp(op, r);
        return success();
      }
    }
    rewriter.replaceOp(op, FOp::create(rewriter, loc, in.getType(), in));
    return success();
  }
};

struct ScaleLowering : ArgusPattern<ScaleOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vt = cast<VectorType>(adaptor.getInput().getType());
    if (!isa<FloatType>(vt.getElementType()))
      return rewriter.notifyMatchFailure(op, "float tiles only");
    Value f =
        floatSplat(rewriter, op.getLoc(), vt, op.getFactor().convertToDouble());
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, adaptor.getInput(), f);
    return success();
  }
};

struct ConvertLowering : ArgusPattern<ConvertOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto to = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    auto from = cast<VectorType>(adaptor.getInput().getType());
    auto fi = dyn_cast<FloatType>(from.getElementType());
    auto fo = dyn_cast<FloatType>(to.getElementType());
    if (!fi || !fo)
      return rewriter.notifyMatchFailure(op, "float conversions only");
    if (fi.getWidth() > fo.getWidth())
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, to, adaptor.getInput());
    else if (fi.getWidth() < fo.getWidth())
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, to, adaptor.getInput());
    else
      rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

struct TagLowering : ArgusPattern<TagOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(TagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

template <typename OpT> struct EraseLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// A kernel precondition becomes a check at kernel entry: a launch outside
/// the verified domain traps instead of computing a wrong answer.
struct AssumeLowering : ArgusPattern<AssumeOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value one =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1);
    Value violated =
        arith::XOrIOp::create(rewriter, loc, adaptor.getCondition(), one);
    auto ifOp = scf::IfOp::create(rewriter, loc, violated,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    LLVM::Trap::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::argus::populateElementwiseLoweringPatterns(
    const TypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<
      FillLowering, TagLowering, AssumeLowering, EraseLowering<TagAssertOp>,
      EraseLowering<RegionBeginOp>, EraseLowering<RegionEndOp>,
      BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
      BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
      BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
      BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp>,
      BinaryLowering<MaxOp, arith::MaximumFOp, arith::MaxSIOp>,
      UnaryFloatLowering<ExpOp, math::ExpOp>,
      UnaryFloatLowering<Exp2Op, math::Exp2Op>,
      UnaryFloatLowering<NegOp, arith::NegFOp>, ScaleLowering, ConvertLowering>(
      tc, patterns.getContext());
}
