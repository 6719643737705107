//===- MmaLowering.cpp - argus.mma to mma.sync, MFMA or wgmma -------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The matrix-core lowering reads the instruction descriptors of
// argus/Layout/Instructions.h: the value order of each operand's TV layout is
// the hardware register order, so the slots [reg + regs * rep, ...) of a
// fragment are exactly the instruction's operand registers.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

struct MmaLowering : ArgusPattern<MmaOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    FailureOr<L::MmaInstr> instr =
        lookupInstruction(op.getInstr(), [&] { return op.emitOpError(); });
    if (failed(instr))
      return failure();
    if (instr->target != k.target->getMmaTarget())
      return op.emitOpError()
             << "instruction " << op.getInstr() << " belongs to "
             << getInstructionTarget(*instr) << ", but the kernel is lowered "
             << "for " << k.chip
             << "; hint: matrix-core instructions are target-specific, write "
                "the kernel with an instruction of the target";
    if (instr->threads == 128 && k.target->hasWgmma() && !instr->aFromShared &&
        instr->bFromShared)
      return lowerWgmma(op, adaptor, rewriter, *instr, k);
    if (instr->threads != k.warpSize || instr->aFromShared ||
        instr->bFromShared)
      return op.emitOpError() << "lowering of " << op.getInstr()
                              << " (warpgroup / shared-memory operands) is "
                                 "not implemented yet";
    TileType ta = op.getA().getType(), tb = op.getB().getType(),
             tcT = op.getAcc().getType();
    auto fa = dyn_cast_or_null<FragmentAttr>(ta.getLayout());
    auto fb = dyn_cast_or_null<FragmentAttr>(tb.getLayout());
    auto fc = dyn_cast_or_null<FragmentAttr>(tcT.getLayout());
    if (!fa || !fb || !fc)
      return op.emitOpError() << "operands need #argus.frag layouts";
    // Repetitions per warp (TileLayouts.h): A (M x K), B (K x N), C (M x N).
    ArrayRef<int64_t> wa = fa.getWarps(), wb = fb.getWarps(),
                      wc = fc.getWarps();
    int64_t repAM = ta.getShape()[0] / (instr->M * wa[0]);
    int64_t repK = ta.getShape()[1] / instr->K;
    int64_t repBK = tb.getShape()[0] / instr->K;
    int64_t repBN = tb.getShape()[1] / (instr->N * wb[1]);
    int64_t repCM = tcT.getShape()[0] / (instr->M * wc[0]);
    int64_t repCN = tcT.getShape()[1] / (instr->N * wc[1]);
    if (repAM != repCM || repBN != repCN || repK != repBK)
      return op.emitOpError() << "operand fragments do not tile the same "
                                 "M x N x K problem";
    Value a =
        k.target->prepareMmaOperand(rewriter, loc, *instr, adaptor.getA());
    Value b =
        k.target->prepareMmaOperand(rewriter, loc, *instr, adaptor.getB());
    Value c = adaptor.getAcc();
    // Always a vector, even of one register (MFMA operands are vectors).
    auto slice = [&](Value vec, int64_t off, int64_t size) -> Value {
      return vector::ExtractStridedSliceOp::create(
          rewriter, loc, vec, ArrayRef<int64_t>{off}, ArrayRef<int64_t>{size},
          ArrayRef<int64_t>{1});
    };
    for (int64_t kk = 0; kk < repK; ++kk)
      for (int64_t rn = 0; rn < repCN; ++rn)
        for (int64_t rm = 0; rm < repCM; ++rm) {
          int64_t aOff = instr->aRegs * (rm + repAM * kk);
          int64_t bOff = instr->bRegs * (kk + repBK * rn);
          int64_t cOff = instr->cRegs * (rm + repCM * rn);
          Value av = slice(a, aOff, instr->aRegs);
          Value bv = slice(b, bOff, instr->bRegs);
          Value cv = slice(c, cOff, instr->cRegs);
          Value d = k.target->emitMma(rewriter, loc, *instr, av, bv, cv);
          c = vector::InsertStridedSliceOp::create(rewriter, loc, d, c,
                                                   ArrayRef<int64_t>{cOff},
                                                   ArrayRef<int64_t>{1});
        }
    rewriter.replaceOp(op, c);
    return success();
  }
};

} // namespace

void mlir::argus::populateMmaLoweringPatterns(const TypeConverter &tc,
                                              RewritePatternSet &patterns) {
  patterns.add<MmaLowering>(tc, patterns.getContext());
}
