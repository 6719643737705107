//===- AsyncWgmmaLowering.cpp - mma_async, wgmma_commit, wgmma_wait -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// argus.mma_async: wgmma.fence, then the op's K/16 wgmma.mma_async
// instructions per warpgroup, neither committed nor waited for (A from
// shared memory K-major SW128 (.ss) or from registers, B from shared memory
// MN-major SW128, both validated element by element: WgmmaLowering.cpp).
// With a [W, 1] warp grid the role's warpgroup w computes rows
// 64w .. 64w + 63. The accumulators pass through every asm block as tied
// operands, through the wait too, so nothing reads them before
// wgmma.wait_group and ptxas sees the dependency.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "argus/Dialect/WgmmaGroups.h"

using namespace mlir;
using namespace mlir::argus;

/// `vals` (f32 scalars) through an asm block that names them $0.. as outputs
/// tied to the same inputs; `extraArgs` follow as $n.. ($2n.. in the string
/// after the tied inputs). Returns the outputs.
static SmallVector<Value> tiedAsm(OpBuilder &b, Location loc,
                                  ArrayRef<Value> vals, ValueRange extraArgs,
                                  StringRef str, StringRef extraCons) {
  int64_t n = vals.size();
  MLIRContext *ctx = b.getContext();
  std::string cons;
  for (int64_t i = 0; i < n; ++i)
    cons += (i ? ",=f" : "=f");
  for (int64_t i = 0; i < n; ++i)
    cons += "," + std::to_string(i);
  if (!extraCons.empty())
    cons += (cons.empty() ? "" : ",") + extraCons.str();
  SmallVector<Value> args(vals.begin(), vals.end());
  args.append(extraArgs.begin(), extraArgs.end());
  if (n == 0) {
    inlinePtx(b, loc, {}, args, str, cons);
    return {};
  }
  Type f32 = b.getF32Type();
  Type res =
      n == 1 ? f32
             : LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(n, f32));
  auto op = inlinePtx(b, loc, res, args, str, cons);
  if (n == 1)
    return {op.getResult(0)};
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0),
                                               ArrayRef<int64_t>{i}));
  return out;
}

static std::string regList(int64_t first, int64_t count) {
  std::string r = "{";
  for (int64_t i = 0; i < count; ++i)
    r += (i ? ", $" : "$") + std::to_string(first + i);
  return r + "}";
}

namespace {

struct MmaAsyncLowering : ArgusPattern<MmaAsyncOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MmaAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    FailureOr<L::MmaInstr> instrOr =
        lookupInstruction(op.getInstr(), [&] { return op.emitOpError(); });
    if (failed(instrOr))
      return failure();
    const L::MmaInstr &instr = *instrOr;
    if (!k.target->hasWgmma() || instr.threads != 128 ||
        instr.target != L::MmaInstr::Target::SM90)
      return op.emitOpError()
             << "mma_async lowers wgmma instructions on sm_90a only, got "
             << op.getInstr() << " for " << k.chip
             << "; hint: use argus.mma for other instructions";
    TileType ta = op.getA().getType(), tb = op.getB().getType(),
             tc = op.getAcc().getType();
    auto fc = dyn_cast_or_null<FragmentAttr>(tc.getLayout());
    if (!fc || tc.getElementType() != rewriter.getF32Type())
      return op.emitOpError() << "the accumulator needs a wgmma C fragment "
                                 "(#argus.frag<..., c, ...>) of f32";
    ArrayRef<int64_t> warps = fc.getWarps();
    int64_t groups = warps[0];
    int64_t M = tc.getShape()[0], N = tc.getShape()[1], K = ta.getShape()[1];
    if (warps[1] != 1 || M != instr.M * groups || N != instr.N ||
        tb.getShape()[1] != N || ta.getShape()[0] != M ||
        tb.getShape()[0] != K || K % instr.K)
      return op.emitOpError()
             << "mma_async lowering supports one wgmma per warpgroup: a "
                "[W, 1] warp grid, A "
             << M << " x K with M = 64 W, B K x " << instr.N
             << ", K a multiple of " << instr.K
             << "; hint: split larger tiles into several "
                "mma_async ops";
    if (k.numThreads() != 128 * groups)
      return op.emitOpError()
             << "the fragments span " << groups << " warpgroup(s) ("
             << 128 * groups << " threads) but " << k.numThreads()
             << " threads execute the op; hint: run it in an argus.role of "
             << 4 * groups << " warps";
    if (tb.getMemorySpace() != MemorySpace::Shared)
      return op.emitOpError() << "wgmma reads B from shared memory";
    FailureOr<WgmmaSharedOperand> bDesc = wgmmaSharedB(op, tb);
    if (failed(bDesc))
      return failure();
    bool ss = instr.aFromShared;
    if (ss != (ta.getMemorySpace() == MemorySpace::Shared))
      return op.emitOpError()
             << op.getInstr() << " reads A from "
             << (ss ? "shared memory" : "registers") << " but A is a "
             << stringifyMemorySpace(ta.getMemorySpace()) << " tile";
    std::optional<WgmmaSharedOperand> aDesc;
    if (ss) {
      FailureOr<WgmmaSharedOperand> d = wgmmaSharedA(op, ta);
      if (failed(d))
        return failure();
      aDesc = *d;
    } else {
      auto fa = dyn_cast_or_null<FragmentAttr>(ta.getLayout());
      if (!fa || fa.getWarps()[0] != groups)
        return op.emitOpError() << "A in registers needs a wgmma A fragment "
                                   "with the accumulator's warp grid";
    }
    Type i32 = rewriter.getI32Type();
    Value descB = wgmmaDescriptor(rewriter, loc, adaptor.getB(), *bDesc);
    Value descA;
    if (ss) {
      descA = wgmmaDescriptor(rewriter, loc, adaptor.getA(), *aDesc);
      if (groups > 1) {
        // Warpgroup w of the role reads rows 64w.. of A.
        Value wg = arith::DivUIOp::create(rewriter, loc,
                                          linearThreadId(rewriter, loc, k),
                                          cidx(rewriter, loc, 128));
        Value wg64 = arith::IndexCastUIOp::create(rewriter, loc,
                                                  rewriter.getI64Type(), wg);
        descA = arith::AddIOp::create(
            rewriter, loc, descA,
            arith::MulIOp::create(
                rewriter, loc, wg64,
                constI64(rewriter, loc, aDesc->rows64Step16)));
      }
    }
    int64_t nc = instr.cRegs;
    SmallVector<Value> acc;
    for (int64_t i = 0; i < nc; ++i)
      acc.push_back(
          vector::ExtractOp::create(rewriter, loc, adaptor.getAcc(), i));
    acc = tiedAsm(rewriter, loc, acc, {}, "wgmma.fence.sync.aligned;", "");
    std::string name = wgmmaOpcode(instr);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
    SmallVector<Value> aRegisters;
    for (int64_t kk = 0; kk < K / instr.K; ++kk) {
      SmallVector<Value> args;
      std::string aOperand, cons;
      int64_t next = 2 * nc;
      if (ss) {
        int64_t step = aDesc->kOffset16(kk);
        args.push_back(
            step ? arith::AddIOp::create(rewriter, loc, descA,
                                         constI64(rewriter, loc, step))
                       .getResult()
                 : descA);
        aOperand = "$" + std::to_string(next++);
        cons = "l";
      } else {
        SmallVector<Value> regs =
            wgmmaARegisters(rewriter, loc, adaptor.getA(), instr, kk);
        llvm::append_range(args, regs);
        llvm::append_range(aRegisters, regs);
        aOperand = regList(next, 4);
        next += 4;
        cons = "r,r,r,r";
      }
      args.push_back(kk ? arith::AddIOp::create(
                              rewriter, loc, descB,
                              constI64(rewriter, loc, bDesc->kOffset16(kk)))
                              .getResult()
                        : descB);
      std::string bOperand = "$" + std::to_string(next++);
      args.push_back(one);
      std::string scaleD = "$" + std::to_string(next++);
      cons += ",l,r";
      // scale-d = 1 (D = A B + D).
      std::string str = "{\n.reg .pred p;\nsetp.ne.b32 p, " + scaleD +
                        ", 0;\n" + name + " " + regList(0, nc) + ", " +
                        aOperand + ", " + bOperand + ", p" +
                        wgmmaImmediates(instr, bDesc->mnMajor) + ";\n}";
      acc = tiedAsm(rewriter, loc, acc, args, str, cons);
    }
    keepUntilRetired(rewriter, op, aRegisters);
    Value d = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({nc}, rewriter.getF32Type()), acc);
    rewriter.replaceOp(op, d);
    return success();
  }

  /// The wgmma reads its A registers until its group retires. Left to
  /// SSA, they die at the wgmma, and a value defined before the retiring
  /// wait may take them (a loop-carried fragment coalesced with the next
  /// iteration's): an empty asm block right before that wait keeps them
  /// live. The verifier's `wgmma-register-operand` check proves that such a
  /// wait exists in the mma's block (lib/Verify/AsyncWgmma.cpp).
  static void keepUntilRetired(ConversionPatternRewriter &rewriter,
                               MmaAsyncOp op, ArrayRef<Value> registers) {
    bool uncounted = false;
    WgmmaWaitOp wait = retiringWait(op, uncounted);
    if (registers.empty() || !wait)
      return;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(wait);
    std::string cons;
    for (size_t i = 0; i < registers.size(); ++i)
      cons += i ? ",r" : "r";
    inlinePtx(rewriter, op.getLoc(), {}, registers,
              "// wgmma A registers live until the wait", cons);
  }
};

struct WgmmaCommitLowering : ArgusPattern<WgmmaCommitOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(WgmmaCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!kernel(op).target->hasWgmma())
      return op.emitOpError() << "wgmma groups exist on sm_90a only";
    inlinePtx(rewriter, op.getLoc(), {}, {}, "wgmma.commit_group.sync.aligned;",
              "");
    rewriter.eraseOp(op);
    return success();
  }
};

struct WgmmaWaitLowering : ArgusPattern<WgmmaWaitOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(WgmmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!kernel(op).target->hasWgmma())
      return op.emitOpError() << "wgmma groups exist on sm_90a only";
    // Every value's registers go through the wait, tied.
    SmallVector<Value> regs;
    SmallVector<int64_t> sizes;
    for (auto [orig, v] : llvm::zip(op.getValues(), adaptor.getValues())) {
      auto vt = cast<VectorType>(v.getType());
      if (!vt.getElementType().isF32())
        return op.emitOpError()
               << "waits for " << orig.getType()
               << ", but only f32 accumulators are tied through the wait";
      sizes.push_back(vt.getNumElements());
      for (int64_t i = 0; i < vt.getNumElements(); ++i)
        regs.push_back(vector::ExtractOp::create(rewriter, loc, v, i));
    }
    regs = tiedAsm(rewriter, loc, regs, {},
                   "wgmma.wait_group.sync.aligned " +
                       std::to_string(op.getPending()) + ";",
                   "");
    SmallVector<Value> results;
    int64_t at = 0;
    for (int64_t n : sizes) {
      results.push_back(vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({n}, rewriter.getF32Type()),
          ArrayRef<Value>(regs).slice(at, n)));
      at += n;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::argus::populateAsyncWgmmaLoweringPatterns(
    const TypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<MmaAsyncLowering, WgmmaCommitLowering, WgmmaWaitLowering>(
      tc, patterns.getContext());
}
