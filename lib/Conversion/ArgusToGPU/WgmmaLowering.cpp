//===- WgmmaLowering.cpp - argus.mma to wgmma.mma_async (sm_90a) ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

using namespace mlir;
using namespace mlir::argus;

// wgmma.m64nNk16 (f16/bf16) or wgmma.m64nNk8 (tf32: f32 in shared memory
// and registers, read at tf32 precision) with A from registers and B from
// shared memory (one warpgroup): B in one of the two canonical 128-byte
// swizzled layouts -- MN-major (N contiguous: 8 k-rows of 64 elements per
// 1024-byte atom, atoms SBO bytes apart along K and LBO bytes along N;
// imm-trans-b = 1; 16-bit elements only, tf32 has no transposed form) or
// K-major (K contiguous, as K^T of a row-major key tile; imm-trans-b = 0)
// -- checked element by element. Every k-step reads 32 bytes of each
// operand row. Per k-step: fence.proxy.async + barrier (the tile was
// written through the generic proxy), wgmma.fence, wgmma.mma_async
// (descriptor: start >> 4, LBO >> 4, SBO >> 4, swizzle 128B), commit, wait
// 0. The accumulators go through every asm block as tied operands, so
// nothing reads them before the wait.

/// The 128-byte swizzle atom (the layout library's K-major atom: 8 rows of
/// 128 bytes, Sw<3,4,3> on byte offsets): the element offset inside the
/// 1024-byte atom of (row, col) for `eb`-byte elements (2 or 4).
static int64_t sw128Atom(int64_t row, int64_t col, int64_t eb) {
  static const L::SwizzledLayout atoms[2] = {
      llvm::cantFail(L::smemSwizzleAtom(L::SmemSwizzle::B128, 16)).atom,
      llvm::cantFail(L::smemSwizzleAtom(L::SmemSwizzle::B128, 32)).atom};
  return atoms[eb == 4](
      L::IntTuple::tuple({int64_t(row % 8), int64_t(col % (128 / eb))}));
}

/// The MN-major operand (B as K x N, N contiguous): 8 k-rows of 64
/// elements per 1024-byte atom, atoms SBO bytes apart along K and LBO
/// bytes apart along N. nullopt when `tb` is not laid out so (or does not
/// hold 16-bit elements: wgmma transposes only those).
static std::optional<WgmmaSharedOperand> mnMajorOperand(TileType tb) {
  L::SwizzledLayout mem = memLayout(tb);
  int64_t kt = tb.getShape()[0], n = tb.getShape()[1];
  auto off = [&](int64_t r, int64_t c) {
    return staticMemOffset(mem, tb.getShape(), {r, c});
  };
  int64_t sboE = kt > 8 ? off(8, 0) : 512, lboE = n > 64 ? off(0, 64) : 0;
  if (elemBytes(tb.getElementType()) != 2 || n % 64 || kt % 16 || sboE % 512 ||
      lboE % 512)
    return std::nullopt;
  for (int64_t r = 0; r < kt; ++r)
    for (int64_t c = 0; c < n; ++c)
      if (off(r, c) != sw128Atom(r, c, 2) + (r / 8) * sboE + (c / 64) * lboE)
        return std::nullopt;
  WgmmaSharedOperand d;
  // MN-major: LBO = stride between 64-element atoms along N, SBO = stride
  // between 8-row groups along K (bytes >> 4); 128B swizzle.
  d.fixedBits =
      ((lboE * 2 >> 4) << 16) | ((sboE * 2 >> 4) << 32) | (int64_t(1) << 62);
  d.kStep16 = 2 * sboE * 2 >> 4;
  d.mnMajor = true;
  return d;
}

/// The K-major operand: `rows` x `cols` with K along the columns, each row
/// 128 bytes of an atom (64 16-bit or 32 32-bit elements), swizzled, 8-row
/// groups SBO bytes apart, atoms along K `katom` bytes apart. `off(row,
/// col)` is the element offset of the operand element at (row along M or N,
/// col along K). Returns the first misplaced element in `bad` when not
/// canonical.
template <typename OffsetFn>
static std::optional<WgmmaSharedOperand>
kMajorOperand(int64_t rows, int64_t cols, Type elem, OffsetFn off,
              int64_t bad[2]) {
  int64_t eb = elemBytes(elem);
  if (eb != 2 && eb != 4)
    return std::nullopt;
  int64_t atomCols = 128 / eb, atomE = 1024 / eb;
  int64_t sboE = rows > 8 ? off(8, 0) : atomE,
          katomE = cols > atomCols ? off(0, atomCols) : 0;
  if (rows % 64 || cols % atomCols || sboE % atomE || katomE % atomE)
    return std::nullopt;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (off(r, c) !=
          sw128Atom(r, c, eb) + (r / 8) * sboE + (c / atomCols) * katomE) {
        bad[0] = r;
        bad[1] = c;
        return std::nullopt;
      }
  WgmmaSharedOperand d;
  // K-major swizzled: LBO unused (1 by convention), SBO = stride between
  // 8-row groups; 128B swizzle.
  d.fixedBits =
      (int64_t(1) << 16) | ((sboE * eb >> 4) << 32) | (int64_t(1) << 62);
  // One k-step = 32 bytes along the 128-byte row (the hardware swizzles
  // the advanced address), then the next atom along K.
  d.kStep16 = 2;
  d.kAtom16 = katomE * eb >> 4;
  d.rows64Step16 = 8 * sboE * eb >> 4;
  d.mnMajor = false;
  return d;
}

int64_t mlir::argus::WgmmaSharedOperand::kOffset16(int64_t kk) const {
  if (mnMajor)
    return kStep16 * kk;
  // Four 32-byte k-steps per 128-byte atom row.
  return (kk / 4) * kAtom16 + (kk % 4) * kStep16;
}

FailureOr<WgmmaSharedOperand> mlir::argus::wgmmaSharedB(Operation *op,
                                                        TileType tb) {
  if (std::optional<WgmmaSharedOperand> d = mnMajorOperand(tb))
    return *d;
  // K-major B (the transpose of an N x K tile with K contiguous, as K^T in
  // S = Q K^T): the A-like layout of the transposed tile.
  L::SwizzledLayout mem = memLayout(tb);
  int64_t bad[2] = {-1, -1};
  auto offT = [&](int64_t n, int64_t k) {
    return staticMemOffset(mem, tb.getShape(), {k, n});
  };
  if (std::optional<WgmmaSharedOperand> d = kMajorOperand(
          tb.getShape()[1], tb.getShape()[0], tb.getElementType(), offT, bad))
    return *d;
  if (elemBytes(tb.getElementType()) == 4)
    return op->emitOpError()
           << "wgmma lowering needs a tf32 B in the 128-byte-swizzled K-major "
              "layout (the transpose of an N x K tile laid out Sw<3,2,3> o "
              "(N,32):(32,1) per 32-column atom, N a multiple of 64, K of "
              "32); wgmma cannot transpose 32-bit operands; hint: keep B as "
              "N x K in memory (C = A B^T), load it with a TMA copy with a "
              "32-element box and swizzle 128, and pass argus.transpose of "
              "the stage";
  return op->emitOpError()
         << "wgmma lowering needs B in a 128-byte-swizzled layout, either "
            "MN-major (Sw<3,3,3> o (K,(64,N/64)):(64,(1,LBO)), 8-row atoms "
            "of 1024 bytes) or K-major (the transpose of an N x K tile laid "
            "out Sw<3,3,3> o (N,64):(64,1) per 64-column atom), 16-bit "
            "elements, N and K multiples of 64 (K-major) or of 64 and 16 "
            "(MN-major); hint: lay B out as a TMA copy with 64-element boxes "
            "and swizzle 128 writes it";
}

FailureOr<WgmmaSharedOperand> mlir::argus::wgmmaSharedA(Operation *op,
                                                        TileType ta) {
  L::SwizzledLayout mem = memLayout(ta);
  auto off = [&](int64_t r, int64_t c) {
    return staticMemOffset(mem, ta.getShape(), {r, c});
  };
  int64_t bad[2] = {-1, -1};
  if (std::optional<WgmmaSharedOperand> d = kMajorOperand(
          ta.getShape()[0], ta.getShape()[1], ta.getElementType(), off, bad))
    return *d;
  InFlightDiagnostic diag =
      op->emitOpError()
      << "wgmma lowering needs A in shared memory in the 128-byte-swizzled "
         "K-major layout (Sw<3,3,3> o (M,64):(64,1) per 64-column atom "
         "for 16-bit elements, Sw<3,2,3> o (M,32):(32,1) per 32-column atom "
         "for tf32; rows of 128 bytes, 8-row groups 1024 bytes apart, M a "
         "multiple of 64 and K of the atom width)";
  int64_t eb = elemBytes(ta.getElementType());
  if (bad[0] >= 0) {
    int64_t atomCols = 128 / eb;
    int64_t sboE = ta.getShape()[0] > 8 ? off(8, 0) : 1024 / eb,
            katomE = ta.getShape()[1] > atomCols ? off(0, atomCols) : 0;
    diag << "; element (" << bad[0] << ", " << bad[1] << ") is at "
         << off(bad[0], bad[1]) << " instead of "
         << sw128Atom(bad[0], bad[1], eb) + (bad[0] / 8) * sboE +
                (bad[1] / atomCols) * katomE;
  }
  diag << "; hint: a TMA copy with a 128-byte box row (" << 128 / eb
       << " elements) and swizzle 128 writes this layout";
  return diag;
}

Value mlir::argus::wgmmaDescriptor(OpBuilder &b, Location loc, Value mem,
                                   const WgmmaSharedOperand &d) {
  Value addr = arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                      sharedAddress32(b, loc, mem));
  // Start address field: bits 0-13, (address & 0x3FFFF) >> 4.
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, constI64(b, loc, 0x3FFFF)),
      constI64(b, loc, 4));
  return arith::OrIOp::create(b, loc, start, constI64(b, loc, d.fixedBits));
}

std::string mlir::argus::wgmmaOpcode(const L::MmaInstr &instr) {
  return "wgmma.mma_async.sync.aligned.m64n" + std::to_string(instr.N) + "k" +
         std::to_string(instr.K) + ".f32." + instr.aType + "." + instr.bType;
}

std::string mlir::argus::wgmmaImmediates(const L::MmaInstr &instr,
                                         bool mnMajorB) {
  // imm-scale-a/b = 1; the transpose immediates exist for 16-bit inputs
  // only (imm-trans-a with A from shared memory, always K-major here).
  std::string r = ", 1, 1";
  if (instr.aType == "tf32")
    return r;
  if (instr.aFromShared)
    r += ", 0";
  return r + (mnMajorB ? ", 1" : ", 0");
}

SmallVector<Value> mlir::argus::wgmmaARegisters(OpBuilder &b, Location loc,
                                                Value a,
                                                const L::MmaInstr &instr,
                                                int64_t kk) {
  // Four 32-bit registers per k-step: pairs of 16-bit elements, or one
  // f32 each (tf32).
  Type i32 = b.getI32Type();
  int64_t perReg = instr.aRegs / 4;
  SmallVector<Value> regs;
  for (int64_t r = 0; r < 4; ++r) {
    Value v = extractSlots(b, loc, a, instr.aRegs * kk + perReg * r, perReg);
    regs.push_back(LLVM::BitcastOp::create(b, loc, i32, v));
  }
  return regs;
}

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
      ta.getShape()[1] != tb.getShape()[0] || ta.getShape()[1] % instr.K)
    return op.emitOpError()
           << "wgmma lowering supports one warpgroup (128 threads), A "
              "(64 x K) in registers, B (K x N) in shared memory, one "
              "instruction along M and N";
  FailureOr<WgmmaSharedOperand> bDesc = wgmmaSharedB(op, tb);
  if (failed(bDesc))
    return failure();
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
  Value desc0 = wgmmaDescriptor(rewriter, loc, adaptor.getB(), *bDesc);
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
  std::string name = wgmmaOpcode(instr);
  for (int64_t kk = 0; kk < ta.getShape()[1] / instr.K; ++kk) {
    SmallVector<Value> args(acc);
    llvm::append_range(args, wgmmaARegisters(rewriter, loc, a, instr, kk));
    // The next k-step: 32 bytes further along B's K.
    args.push_back(arith::AddIOp::create(
        rewriter, loc, desc0, constI64(rewriter, loc, bDesc->kOffset16(kk))));
    args.push_back(one);
    std::string str = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                      std::to_string(2 * nc + 5) + ", 0;\n" + name + " " +
                      regList(0, nc) + ", " + regList(2 * nc, 4) + ", $" +
                      std::to_string(2 * nc + 4) + ", p" +
                      wgmmaImmediates(instr, bDesc->mnMajor) + ";\n}";
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
