//===- WgmmaLowering.cpp - argus.mma to wgmma.mma_async (sm_90a) ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

using namespace mlir;
using namespace mlir::argus;

/// wgmma.m64nNk16 with A from registers and B from shared memory (one
/// warpgroup): B must be the canonical MN-major (N contiguous) 128-byte
/// swizzled layout -- 8 k-rows of 64 elements per 1024-byte atom
/// (Sw<3,3,3> on 16-bit elements), atoms at SBO bytes along K and LBO
/// bytes along N -- which is checked element by element. Per k-step:
/// fence.proxy.async + barrier (the tile was written through the generic
/// proxy), wgmma.fence, wgmma.mma_async (descriptor: start >> 4, LBO >> 4,
/// SBO >> 4, swizzle 128B; imm-trans-b = 1), commit, wait 0. The
/// accumulators go through every asm block as tied operands, so nothing
/// reads them before the wait.
LogicalResult mlir::argus::lowerWgmma(MmaOp op, MmaOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter,
                                      const L::MmaInstr &instr,
                                      const KernelInfo &k) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  TileType ta = op.getA().getType(), tb = op.getB().getType(),
           tcT = op.getAcc().getType();
  auto fa = dyn_cast_or_null<FragmentAttr>(ta.getLayout());
  auto fc = dyn_cast_or_null<FragmentAttr>(tcT.getLayout());
  if (k.numThreads() != 128 || !fa || !fc ||
      tb.getMemorySpace() != MemorySpace::Shared ||
      ta.getShape()[0] != instr.M || tcT.getShape()[0] != instr.M ||
      tcT.getShape()[1] != instr.N || tb.getShape()[1] != instr.N ||
      ta.getShape()[1] != tb.getShape()[0] || ta.getShape()[1] % instr.K ||
      elemBytes(ta.getElementType()) != 2)
    return op.emitOpError()
           << "wgmma lowering supports one warpgroup (128 threads), A "
              "(64 x K) in registers, B (K x N) in shared memory, 16-bit "
              "inputs, one instruction along M and N";
  // B: the canonical MN-major SW128 layout.
  L::SwizzledLayout mem = memLayout(tb);
  int64_t kt = tb.getShape()[0], n = tb.getShape()[1];
  auto off = [&](int64_t r, int64_t c) {
    return staticMemOffset(mem, tb.getShape(), {r, c});
  };
  int64_t sboE = kt > 8 ? off(8, 0) : 512, lboE = n > 64 ? off(0, 64) : 0;
  bool canonical =
      n % 64 == 0 && kt % 8 == 0 && sboE % 512 == 0 && lboE % 512 == 0;
  for (int64_t r = 0; r < kt && canonical; ++r)
    for (int64_t c = 0; c < n && canonical; ++c) {
      int64_t a = (r % 8) * 64 + c % 64;
      a ^= ((a >> 6) & 7) << 3;
      if (off(r, c) != a + (r / 8) * sboE + (c / 64) * lboE)
        canonical = false;
    }
  if (!canonical)
    return op.emitOpError()
           << "wgmma lowering needs B in the 128-byte-swizzled MN-major "
              "layout (Sw<3,3,3> o (K,(64,N/64)):(64,(1,LBO)), 8-row "
              "atoms of 1024 bytes)";
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type(),
       f32 = rewriter.getF32Type();
  auto asmOp = [&](TypeRange res, ValueRange args, StringRef str,
                   StringRef cons) {
    return LLVM::InlineAsmOp::create(
        rewriter, loc, res, args, str, cons, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  };
  asmOp({}, {}, "fence.proxy.async.shared::cta;", "");
  gpu::BarrierOp::create(rewriter, loc);
  // Descriptor of B's first k-step.
  Value memB = adaptor.getB();
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, memB);
  auto md = memref::ExtractStridedMetadataOp::create(rewriter, loc, memB);
  Value addr =
      arith::AddIOp::create(rewriter, loc, base,
                            arith::MulIOp::create(rewriter, loc, md.getOffset(),
                                                  cidx(rewriter, loc, 2)));
  Value addr64 = arith::IndexCastUIOp::create(rewriter, loc, i64, addr);
  Value start = arith::ShRUIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, addr64,
                            constI64(rewriter, loc, 0x3FFFF)),
      constI64(rewriter, loc, 4));
  int64_t fixed =
      ((lboE * 2 >> 4) << 16) | ((sboE * 2 >> 4) << 32) | (int64_t(1) << 62);
  Value desc0 = arith::OrIOp::create(rewriter, loc, start,
                                     constI64(rewriter, loc, fixed));
  // Accumulators as 64 scalars, tied through every asm block.
  int64_t nc = instr.cRegs;
  Value c = adaptor.getAcc();
  SmallVector<Value> acc;
  for (int64_t i = 0; i < nc; ++i)
    acc.push_back(vector::ExtractOp::create(rewriter, loc, c, i));
  SmallVector<Type> accFields(nc, f32);
  Type accTypes = LLVM::LLVMStructType::getLiteral(ctx, accFields);
  std::string outs, tied;
  for (int64_t i = 0; i < nc; ++i) {
    outs += (i ? ",=f" : "=f");
    tied += "," + std::to_string(i);
  }
  auto unpack = [&](LLVM::InlineAsmOp a) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < nc; ++i)
      r.push_back(LLVM::ExtractValueOp::create(rewriter, loc, a.getResult(0),
                                               ArrayRef<int64_t>{i}));
    return r;
  };
  auto regList = [&](int64_t first, int64_t count) {
    std::string r = "{";
    for (int64_t i = 0; i < count; ++i)
      r += (i ? ", $" : "$") + std::to_string(first + i);
    return r + "}";
  };
  acc = unpack(asmOp(accTypes, acc, "wgmma.fence.sync.aligned;", outs + tied));
  Value a = adaptor.getA();
  Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
  std::string name = "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(instr.N) + "k16.f32." + instr.aType + "." +
                     instr.bType;
  for (int64_t kk = 0; kk < ta.getShape()[1] / instr.K; ++kk) {
    SmallVector<Value> args(acc);
    for (int64_t r = 0; r < 4; ++r) {
      Value pair = extractSlots(rewriter, loc, a, instr.aRegs * kk + 2 * r, 2);
      args.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, pair));
    }
    // The next 16 k-rows: 2 atoms of 8 rows further along K.
    args.push_back(arith::AddIOp::create(
        rewriter, loc, desc0,
        constI64(rewriter, loc, (2 * kk * sboE * 2) >> 4)));
    args.push_back(one);
    std::string str = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                      std::to_string(2 * nc + 5) + ", 0;\n" + name + " " +
                      regList(0, nc) + ", " + regList(2 * nc, 4) + ", $" +
                      std::to_string(2 * nc + 4) + ", p, 1, 1, 1;\n}";
    acc = unpack(asmOp(accTypes, args, str, outs + tied + ",r,r,r,r,l,r"));
  }
  acc = unpack(asmOp(accTypes, acc,
                     "wgmma.commit_group.sync.aligned;\n"
                     "wgmma.wait_group.sync.aligned 0;",
                     outs + tied));
  Value d = vector::FromElementsOp::create(rewriter, loc,
                                           VectorType::get({nc}, f32), acc);
  rewriter.replaceOp(op, d);
  return success();
}
