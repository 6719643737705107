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

/// |x| of a float vector: the sign bit cleared (no intrinsic, any width).
static Value floatAbs(OpBuilder &b, Location loc, Value x) {
  auto vt = cast<VectorType>(x.getType());
  unsigned w = vt.getElementType().getIntOrFloatBitWidth();
  auto it = VectorType::get(vt.getShape(), b.getIntegerType(w));
  Value bits = arith::BitcastOp::create(b, loc, it, x);
  Value mask = arith::ConstantOp::create(
      b, loc, it,
      DenseElementsAttr::get(
          it,
          b.getIntegerAttr(b.getIntegerType(w), APInt::getSignedMaxValue(w))));
  return arith::BitcastOp::create(b, loc, vt,
                                  arith::AndIOp::create(b, loc, bits, mask));
}

/// sqrt with IEEE rounding: llvm.sqrt (sqrt.rn.f32/f64, v_sqrt_f32/f64 with
/// the backend's scaling).
static Value ieeeSqrt(OpBuilder &b, Location loc, Value x) {
  unsigned w =
      cast<VectorType>(x.getType()).getElementType().getIntOrFloatBitWidth();
  return intrinsicPerSlot(b, loc, x,
                          w == 64 ? "llvm.sqrt.f64" : "llvm.sqrt.f32");
}

/// The hardware approximations the transcendental ops are built from, on
/// vectors of f32 (TargetInfo: ex2/lg2/rcp/rsqrt/tanh.approx on NVPTX,
/// v_exp/v_log/v_rcp/v_rsq on AMDGPU). None of them is a libdevice or OCML
/// call.
struct F32Math {
  OpBuilder &b;
  Location loc;
  const TargetInfo &ti;

  Value splat(Value like, double v) {
    return floatSplat(b, loc, cast<VectorType>(like.getType()), v);
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, double c) { return mul(x, splat(x, c)); }
  Value add(Value x, double c) { return add(x, splat(x, c)); }

  Value exp2(Value x) { return ti.emitExp2F32(b, loc, x); }
  Value exp(Value x) { return exp2(mul(x, 1.4426950408889634)); }
  Value log2(Value x) { return ti.emitLog2F32(b, loc, x); }
  Value rcp(Value x) { return ti.emitRcpF32(b, loc, x); }
  Value rsqrt(Value x) { return ti.emitRsqrtF32(b, loc, x); }
  /// tanh: the target's instruction (NVPTX tanh.approx.f32); else
  /// sign(x) * (1 - 2 / (e^{2|x|} + 1)), and x - x^3/3 + 2x^5/15 for
  /// |x| < 2^-4 where that form cancels.
  Value tanh(Value x) {
    if (Value t = ti.emitTanhF32(b, loc, x))
      return t;
    Value ax = floatAbs(b, loc, x);
    Value e = exp(mul(ax, 2.0));
    Value big = sub(splat(x, 1.0), mul(rcp(add(e, 1.0)), 2.0));
    Value x2 = mul(x, x);
    Value small =
        mul(x, add(mul(x2, add(mul(x2, 2.0 / 15.0), -1.0 / 3.0)), 1.0));
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      splat(x, 0.0));
    Value signedBig = arith::SelectOp::create(
        b, loc, neg, arith::NegFOp::create(b, loc, big), big);
    Value isSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ax,
                                          splat(x, 0.0625));
    return arith::SelectOp::create(b, loc, isSmall, small, signedBig);
  }
  /// 1 / (1 + 2^(-x log2 e)).
  Value sigmoid(Value x) { return rcp(add(exp(mul(x, -1.0)), 1.0)); }
  /// 0.5 x (1 + erf(x / sqrt 2)), erf by Abramowitz & Stegun 7.1.26:
  /// erf(z) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) e^{-z^2},
  /// t = 1 / (1 + p z) for z >= 0 (odd symmetry for z < 0); absolute error
  /// below 1.5e-7.
  Value gelu(Value x) {
    Value z = mul(floatAbs(b, loc, x), 0.7071067811865476);
    Value t = rcp(add(mul(z, 0.3275911), 1.0));
    Value poly = splat(x, 1.061405429);
    for (double a : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
      poly = add(mul(poly, t), a);
    poly = mul(poly, t);
    Value e = exp(mul(mul(z, z), -1.0));
    Value erfAbs = sub(splat(x, 1.0), mul(poly, e));
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      splat(x, 0.0));
    Value erf = arith::SelectOp::create(
        b, loc, neg, arith::NegFOp::create(b, loc, erfAbs), erfAbs);
    return mul(mul(x, 0.5), add(erf, 1.0));
  }
};

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
    Value in = adaptor.getInput();
    if (!in)
      return rewriter.notifyMatchFailure(op, "input not converted");
    Location loc = op.getLoc();
    if (!isa<FloatType>(op.getType().getElementType())) {
      // Integer negation is 0 - x.
      if constexpr (std::is_same_v<FOp, arith::NegFOp>) {
        auto vt = cast<VectorType>(in.getType());
        Value zero = arith::ConstantOp::create(
            rewriter, loc, vt,
            DenseElementsAttr::get(
                vt, rewriter.getIntegerAttr(vt.getElementType(), 0)));
        rewriter.replaceOpWithNewOp<arith::SubIOp>(op, zero, in);
        return success();
      }
      // exp and exp2 of integers: the op verifier (Argus_FloatTiles)
      // rejects them before any lowering.
      return rewriter.notifyMatchFailure(op, "exp of an integer tile");
    }
    // math.exp/exp2 would become libdevice or OCML calls: the target's exp2
    // approximation where it has one for the element type (TargetInfo::
    // emitFastExp), else the math op.
    if constexpr (std::is_same_v<FOp, math::ExpOp> ||
                  std::is_same_v<FOp, math::Exp2Op>) {
      if (Value r = this->kernel(op).target->emitFastExp(
              rewriter, loc, in, std::is_same_v<FOp, math::ExpOp>)) {
        rewriter.replaceOp(op, r);
        return success();
      }
    }
    rewriter.replaceOp(op, FOp::create(rewriter, loc, in.getType(), in));
    return success();
  }
};

/// sqrt, rsqrt, log, log2, tanh, sigmoid, gelu: f16 and bf16 elements are
/// widened to f32, computed with F32Math, and narrowed. f64 has no hardware
/// approximation without libdevice/OCML: only sqrt (llvm.sqrt, sqrt.rn.f64)
/// and rsqrt (1 / sqrt) lower; the others are a located error.
template <typename OpT> struct TranscendentalLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value in = adaptor.getInput();
    if (!in)
      return rewriter.notifyMatchFailure(op, "input not converted");
    Location loc = op.getLoc();
    const TargetInfo &ti = *this->kernel(op).target;
    auto vt = cast<VectorType>(in.getType());
    auto ft = cast<FloatType>(vt.getElementType());
    constexpr bool isSqrt = std::is_same_v<OpT, SqrtOp>;
    constexpr bool isRsqrt = std::is_same_v<OpT, RsqrtOp>;
    if (ft.getWidth() > 32) {
      if constexpr (isSqrt || isRsqrt) {
        Value r = ieeeSqrt(rewriter, loc, in);
        if constexpr (isRsqrt)
          r = arith::DivFOp::create(rewriter, loc,
                                    floatSplat(rewriter, loc, vt, 1.0), r);
        rewriter.replaceOp(op, r);
        return success();
      }
      return op.emitOpError()
             << "on " << ft << " needs the " << ti.getMathLibraryName()
             << " library, which argus does not link; hint: argus.convert "
                "the tile to f32 first";
    }
    Type f32 = rewriter.getF32Type();
    auto vf32 = VectorType::get(vt.getShape(), f32);
    Value x = in;
    if (ft.getWidth() < 32)
      x = arith::ExtFOp::create(rewriter, loc, vf32, x);
    F32Math m{rewriter, loc, ti};
    Value r;
    if constexpr (isSqrt)
      r = ieeeSqrt(rewriter, loc, x);
    else if constexpr (isRsqrt)
      r = m.rsqrt(x);
    else if constexpr (std::is_same_v<OpT, LogOp>)
      r = m.mul(m.log2(x), 0.6931471805599453);
    else if constexpr (std::is_same_v<OpT, Log2Op>)
      r = m.log2(x);
    else if constexpr (std::is_same_v<OpT, TanhOp>)
      r = m.tanh(x);
    else if constexpr (std::is_same_v<OpT, SigmoidOp>)
      r = m.sigmoid(x);
    else
      r = m.gelu(x);
    if (ft.getWidth() < 32)
      r = arith::TruncFOp::create(rewriter, loc, vt, r);
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// abs and relu, on integer and float tiles (float abs clears the sign bit,
/// relu is arith's NaN-propagating maximumf: no library call).
template <typename OpT> struct AbsReluLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value in = adaptor.getInput();
    if (!in)
      return rewriter.notifyMatchFailure(op, "input not converted");
    Location loc = op.getLoc();
    auto vt = cast<VectorType>(in.getType());
    Type e = vt.getElementType();
    constexpr bool isAbs = std::is_same_v<OpT, AbsOp>;
    if (e.isInteger(1))
      return op.emitOpError() << "is not defined on masks (i1 tiles)";
    if (isa<FloatType>(e)) {
      if constexpr (isAbs)
        rewriter.replaceOp(op, floatAbs(rewriter, loc, in));
      else
        rewriter.replaceOpWithNewOp<arith::MaximumFOp>(
            op, in, floatSplat(rewriter, loc, vt, 0.0));
      return success();
    }
    Value zero = arith::ConstantOp::create(
        rewriter, loc, vt,
        DenseElementsAttr::get(vt, rewriter.getIntegerAttr(e, 0)));
    if constexpr (isAbs)
      rewriter.replaceOpWithNewOp<arith::MaxSIOp>(
          op, in, arith::SubIOp::create(rewriter, loc, zero, in));
    else
      rewriter.replaceOpWithNewOp<arith::MaxSIOp>(op, in, zero);
    return success();
  }
};

/// A scalar broadcast to every slot (an index narrowed to the element type).
struct SplatLowering : ArgusPattern<SplatOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vt = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!vt)
      return failure();
    Value v = adaptor.getValue();
    if (v.getType() != vt.getElementType())
      v = arith::IndexCastOp::create(rewriter, op.getLoc(), vt.getElementType(),
                                     v);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vt, v);
    return success();
  }
};

struct CmpLowering : ArgusPattern<CmpOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(CmpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value l = adaptor.getLhs(), r = adaptor.getRhs();
    if (isa<FloatType>(op.getLhs().getType().getElementType())) {
      arith::CmpFPredicate p = arith::CmpFPredicate::OLT;
      switch (op.getPredicate()) {
      case CmpPredicate::Lt:
        p = arith::CmpFPredicate::OLT;
        break;
      case CmpPredicate::Le:
        p = arith::CmpFPredicate::OLE;
        break;
      case CmpPredicate::Gt:
        p = arith::CmpFPredicate::OGT;
        break;
      case CmpPredicate::Ge:
        p = arith::CmpFPredicate::OGE;
        break;
      case CmpPredicate::Eq:
        p = arith::CmpFPredicate::OEQ;
        break;
      case CmpPredicate::Ne:
        p = arith::CmpFPredicate::UNE;
        break;
      }
      rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, p, l, r);
      return success();
    }
    arith::CmpIPredicate p = arith::CmpIPredicate::slt;
    switch (op.getPredicate()) {
    case CmpPredicate::Lt:
      p = arith::CmpIPredicate::slt;
      break;
    case CmpPredicate::Le:
      p = arith::CmpIPredicate::sle;
      break;
    case CmpPredicate::Gt:
      p = arith::CmpIPredicate::sgt;
      break;
    case CmpPredicate::Ge:
      p = arith::CmpIPredicate::sge;
      break;
    case CmpPredicate::Eq:
      p = arith::CmpIPredicate::eq;
      break;
    case CmpPredicate::Ne:
      p = arith::CmpIPredicate::ne;
      break;
    }
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, p, l, r);
    return success();
  }
};

struct SelectLowering : ArgusPattern<SelectOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::SelectOp>(
        op, adaptor.getMask(), adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

/// Each slot's coordinate along `dim`, from the register layout (the same
/// (thread, slot) -> coordinate function loads and stores use).
struct IotaLowering : ArgusPattern<IotaOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<RegisterThreads> rt =
        registerThreads(rewriter, loc, kernel(op), op.getType());
    if (!rt)
      return failure();
    auto vt = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value acc = zeroVector(rewriter, loc, vt);
    for (int64_t v = 0; v < rt->coords.numSlots(); ++v) {
      Value c = rt->coords.coord(rewriter, loc, v)[op.getDim()];
      c = arith::IndexCastOp::create(rewriter, loc, vt.getElementType(), c);
      acc = vector::InsertOp::create(rewriter, loc, c, acc, v);
    }
    rewriter.replaceOp(op, acc);
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
    Type ei = from.getElementType(), eo = to.getElementType();
    auto fi = dyn_cast<FloatType>(ei);
    auto fo = dyn_cast<FloatType>(eo);
    Value x = adaptor.getInput();
    // Integers are signed (i1: a mask, true is 1).
    if (!fi && fo) {
      if (ei.isInteger(1))
        rewriter.replaceOpWithNewOp<arith::UIToFPOp>(op, to, x);
      else
        rewriter.replaceOpWithNewOp<arith::SIToFPOp>(op, to, x);
      return success();
    }
    if (fi && !fo) {
      rewriter.replaceOpWithNewOp<arith::FPToSIOp>(op, to, x);
      return success();
    }
    if (!fi && !fo) {
      unsigned wi = ei.getIntOrFloatBitWidth(), wo = eo.getIntOrFloatBitWidth();
      if (wi > wo)
        rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, to, x);
      else if (wi < wo && wi == 1)
        rewriter.replaceOpWithNewOp<arith::ExtUIOp>(op, to, x);
      else if (wi < wo)
        rewriter.replaceOpWithNewOp<arith::ExtSIOp>(op, to, x);
      else
        rewriter.replaceOp(op, x);
      return success();
    }
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
      EraseLowering<ReducedOp>, EraseLowering<AssumeIndicesOp>,
      EraseLowering<RegionBeginOp>, EraseLowering<RegionEndOp>,
      BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
      BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
      BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
      BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp>,
      BinaryLowering<MaxOp, arith::MaximumFOp, arith::MaxSIOp>,
      BinaryLowering<MinOp, arith::MinimumFOp, arith::MinSIOp>,
      TranscendentalLowering<SqrtOp>, TranscendentalLowering<RsqrtOp>,
      TranscendentalLowering<LogOp>, TranscendentalLowering<Log2Op>,
      TranscendentalLowering<TanhOp>, TranscendentalLowering<SigmoidOp>,
      TranscendentalLowering<GeluOp>, AbsReluLowering<AbsOp>,
      AbsReluLowering<ReluOp>, SplatLowering, CmpLowering, SelectLowering,
      IotaLowering, UnaryFloatLowering<ExpOp, math::ExpOp>,
      UnaryFloatLowering<Exp2Op, math::Exp2Op>,
      UnaryFloatLowering<NegOp, arith::NegFOp>, ScaleLowering, ConvertLowering>(
      tc, patterns.getContext());
}
