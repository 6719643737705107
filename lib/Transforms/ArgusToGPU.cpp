//===- ArgusToGPU.cpp - lower argus kernels to gpu/nvgpu/amdgpu ----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Each argus kernel (func.func with argus.kernel) becomes a gpu.func kernel in
// a gpu.module for its target. Block-collective tile ops become per-thread
// code: every thread evaluates the tile's layout (thread, slot) -> logical
// coordinate (see argus/Dialect/TileLayouts.h) with index arithmetic and
// unrolls over its slots. Register tiles become vector<slots x elem>. The
// matrix-core lowering reads the instruction descriptors of
// argus/Layout/Instructions.h: the value order of each operand's TV layout is
// the hardware register order, so the slots [reg + regs * rep, ...) of a
// fragment are exactly the instruction's operand registers.
//
//===----------------------------------------------------------------------===//

#include "LayoutCodegen.h"

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/Instructions.h"
#include "argus/Dialect/TileLayouts.h"
#include "argus/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSTOGPU
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;
namespace L = ::argus::layout;

namespace {

constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;

struct KernelInfo {
  std::string chip;
  bool nvidia = true;
  int64_t warpSize = 32;
  SmallVector<int64_t, 3> block{1, 1, 1};
  int64_t numThreads() const { return block[0] * block[1] * block[2]; }
};

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

KernelInfo getKernelInfo(Operation *fn) {
  KernelInfo k;
  if (auto attr = fn->getAttrOfType<StringAttr>("argus_chip"))
    k.chip = attr.str();
  k.nvidia = !StringRef(k.chip).starts_with("gfx");
  k.warpSize = k.nvidia ? 32 : 64;
  if (auto blk = fn->getAttrOfType<DenseI64ArrayAttr>("argus_block"))
    for (auto [i, v] : llvm::enumerate(blk.asArrayRef()))
      if (i < 3)
        k.block[i] = v;
  return k;
}

Value linearThreadId(OpBuilder &b, Location loc, const KernelInfo &k) {
  Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (k.block[1] == 1 && k.block[2] == 1)
    return x;
  Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  Value yz = arith::AddIOp::create(
      b, loc, y, arith::MulIOp::create(b, loc, z, cidx(b, loc, k.block[1])));
  return arith::AddIOp::create(
      b, loc, x, arith::MulIOp::create(b, loc, yz, cidx(b, loc, k.block[0])));
}

/// The register layout of a tile; nullopt when it has none.
std::optional<L::Layout> regLayout(TileType t) {
  FailureOr<L::Layout> l = getRegisterLayout(t);
  if (failed(l))
    return std::nullopt;
  return *l;
}

L::SwizzledLayout memLayout(TileType t) {
  if (auto l = dyn_cast_or_null<LayoutAttr>(t.getLayout()))
    return l.getLayout();
  // Default: row-major over the logical shape.
  std::vector<L::IntTuple> shp(t.getShape().begin(), t.getShape().end());
  return L::SwizzledLayout(L::Layout::compactRowMajor(L::IntTuple::tuple(shp)));
}

int64_t memCosize(TileType t) { return memLayout(t).cosize(); }

int64_t elemBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// Compile-time offset of a memory tile element for the contiguity analysis:
/// global tiles are row-major with a large (unknown) row pitch.
int64_t analysisOffset(TileType t, ArrayRef<int64_t> coord) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    int64_t off = 0;
    for (size_t k = 0; k < coord.size(); ++k)
      off = off * (int64_t(1) << 24) + coord[k];
    return off;
  }
  return staticMemOffset(memLayout(t), t.getShape(), coord);
}

/// Largest vector width n (elements, at most 16 bytes) such that for every
/// thread, every group of n consecutive slots covers n consecutive,
/// n-aligned elements of each memory tile in `mems`.
int64_t vectorWidth(const ThreadCoords &tc, int64_t threads,
                    ArrayRef<TileType> mems, Type elem) {
  int64_t maxN = std::max<int64_t>(1, 16 / elemBytes(elem));
  for (int64_t n = maxN; n > 1; n /= 2) {
    if (tc.numSlots() % n != 0)
      continue;
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t)
      for (int64_t v0 = 0; v0 < tc.numSlots() && ok; v0 += n) {
        SmallVector<int64_t> c0 = tc.staticCoord(t, v0);
        for (TileType m : mems) {
          int64_t base = analysisOffset(m, c0);
          if (base % n != 0) {
            ok = false;
            break;
          }
          for (int64_t k = 1; k < n && ok; ++k)
            if (analysisOffset(m, tc.staticCoord(t, v0 + k)) != base + k)
              ok = false;
        }
      }
    if (ok)
      return n;
  }
  return 1;
}

/// Indices into the converted memref of a memory tile at `coord`.
SmallVector<Value> memIndices(OpBuilder &b, Location loc, TileType t,
                              ValueRange coord) {
  if (t.getMemorySpace() == MemorySpace::Global)
    return SmallVector<Value>(coord.begin(), coord.end());
  return {emitMemOffset(b, loc, memLayout(t), t.getShape(), coord)};
}

Value loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, t, coord);
  if (n == 1)
    return memref::LoadOp::create(b, loc, mem, idx);
  auto vt = VectorType::get({n}, t.getElementType());
  auto op = vector::LoadOp::create(b, loc, vt, mem, idx);
  op.setAlignment(uint64_t(n * elemBytes(t.getElementType())));
  return op;
}

void storeElems(OpBuilder &b, Location loc, Value val, Value mem, TileType t,
                ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, t, coord);
  if (n == 1) {
    memref::StoreOp::create(b, loc, val, mem, idx);
    return;
  }
  auto op = vector::StoreOp::create(b, loc, val, mem, idx);
  op.setAlignment(uint64_t(n * elemBytes(t.getElementType())));
}

//===----------------------------------------------------------------------===//
// Type conversion
//===----------------------------------------------------------------------===//

struct ArgusTypeConverter : public TypeConverter {
  ArgusTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](TileType t) -> std::optional<Type> {
      Type elem = t.getElementType();
      if (!t.isMemory()) {
        std::optional<L::Layout> l = regLayout(t);
        if (!l)
          return std::nullopt;
        int64_t slots = l->rank() > 1 ? l->mode(1).size() : 1;
        return VectorType::get({slots}, elem);
      }
      MLIRContext *ctx = t.getContext();
      if (t.getMemorySpace() == MemorySpace::Global) {
        SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
        strides.back() = 1;
        auto layout =
            StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
        return MemRefType::get(
            t.getShape(), elem, layout,
            IntegerAttr::get(IntegerType::get(ctx, 64), kGlobalSpace));
      }
      auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1});
      return MemRefType::get(
          {memCosize(t)}, elem, layout,
          IntegerAttr::get(IntegerType::get(ctx, 64), kSharedSpace));
    });
    addConversion([](BufferType t) -> Type {
      MLIRContext *ctx = t.getContext();
      return MemRefType::get(
          {t.getStages() * memCosize(t.getTile())},
          t.getTile().getElementType(), MemRefLayoutAttrInterface(),
          IntegerAttr::get(IntegerType::get(ctx, 64), kSharedSpace));
    });
    auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                          Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(materialize);
    addTargetMaterialization(materialize);
  }
};

template <typename OpT> struct ArgusPattern : public OpConversionPattern<OpT> {
  ArgusPattern(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<OpT>(tc, ctx) {}
  KernelInfo kernel(Operation *op) const {
    return getKernelInfo(op->template getParentOfType<gpu::GPUFuncOp>());
  }
};

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

struct ViewLowering : ArgusPattern<ViewOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter()->convertType(op.getType());
    TileType t = op.getType();
    SmallVector<OpFoldResult> offsets(adaptor.getOffsets().begin(),
                                      adaptor.getOffsets().end());
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t s : t.getShape()) {
      sizes.push_back(rewriter.getIndexAttr(s));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<memref::SubViewOp>(
        op, cast<MemRefType>(resultType), adaptor.getTensor(), offsets, sizes,
        strides);
    return success();
  }
};

struct AllocLowering : ArgusPattern<AllocOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
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
          rewriter, op.getLoc(), name, rewriter.getStringAttr("private"), type,
          Attribute(), /*constant=*/false, rewriter.getI64IntegerAttr(128));
    }
    rewriter.replaceOpWithNewOp<memref::GetGlobalOp>(op, type, name);
    return success();
  }
};

struct StageLowering : ArgusPattern<StageOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(StageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    Location loc = op.getLoc();
    int64_t cos = type.getShape()[0];
    Value off = arith::MulIOp::create(rewriter, loc, adaptor.getIndex(),
                                      cidx(rewriter, loc, cos));
    rewriter.replaceOpWithNewOp<memref::SubViewOp>(
        op, type, adaptor.getBuffer(), ArrayRef<OpFoldResult>{off},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(cos)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    return success();
  }
};

/// transpose / reinterpret of shared tiles: the same bytes, another layout.
template <typename OpT> struct SameBytesLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileType t = op.getType();
    if (t.getMemorySpace() != MemorySpace::Shared)
      return rewriter.notifyMatchFailure(op, "only shared tiles");
    Type resultType = this->getTypeConverter()->convertType(t);
    Value in = adaptor.getInput();
    if (in.getType() != resultType)
      in = memref::CastOp::create(rewriter, op.getLoc(), resultType, in);
    rewriter.replaceOp(op, in);
    return success();
  }
};

struct LoadLowering : ArgusPattern<LoadOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType src = op.getSource().getType(), dst = op.getType();
    std::optional<L::Layout> tv = regLayout(dst);
    if (!tv)
      return failure();
    auto vt = cast<VectorType>(getTypeConverter()->convertType(dst));
    Value tid = linearThreadId(rewriter, loc, k);
    ThreadCoords tc(rewriter, loc, *tv, dst.getShape(), tid);
    int64_t n = vectorWidth(tc, k.numThreads(), {src}, dst.getElementType());
    Value acc =
        arith::ConstantOp::create(rewriter, loc, vt, rewriter.getZeroAttr(vt));
    for (int64_t v = 0; v < tc.numSlots(); v += n) {
      Value x = loadElems(rewriter, loc, adaptor.getSource(), src,
                          tc.coord(rewriter, loc, v), n);
      if (n == 1)
        acc = vector::InsertOp::create(rewriter, loc, x, acc, v);
      else
        acc = vector::InsertStridedSliceOp::create(
            rewriter, loc, x, acc, ArrayRef<int64_t>{v}, ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct StoreLowering : ArgusPattern<StoreOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType src = op.getValue().getType(), dst = op.getDest().getType();
    std::optional<L::Layout> tv = regLayout(src);
    if (!tv)
      return failure();
    Value tid = linearThreadId(rewriter, loc, k);
    ThreadCoords tc(rewriter, loc, *tv, src.getShape(), tid);
    int64_t n = vectorWidth(tc, k.numThreads(), {dst}, src.getElementType());
    for (int64_t v = 0; v < tc.numSlots(); v += n) {
      Value x;
      if (n == 1)
        x = vector::ExtractOp::create(rewriter, loc, adaptor.getValue(), v);
      else
        x = vector::ExtractStridedSliceOp::create(
            rewriter, loc, adaptor.getValue(), ArrayRef<int64_t>{v},
            ArrayRef<int64_t>{n}, ArrayRef<int64_t>{1});
      storeElems(rewriter, loc, x, adaptor.getDest(), dst,
                 tc.coord(rewriter, loc, v), n);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// argus.copy and argus.copy_async.
template <typename OpT> struct CopyLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = this->kernel(op);
    Location loc = op.getLoc();
    TileType src = op.getSource().getType(), dst = op.getDest().getType();
    L::SwizzledLayout tvs = op.getThreads().getLayout();
    if (tvs.swizzle)
      return rewriter.notifyMatchFailure(op, "swizzled thread layout");
    L::Layout tv = tvs.layout;
    if (tv.rank() != 2)
      return rewriter.notifyMatchFailure(op, "thread layout must be rank 2");
    int64_t layoutThreads = tv.mode(0).size();
    if (layoutThreads > k.numThreads())
      return op.emitOpError() << "copy layout needs " << layoutThreads
                              << " threads, the block has " << k.numThreads();
    Value tid = linearThreadId(rewriter, loc, k);
    // Threads beyond the layout do not copy.
    std::optional<scf::IfOp> guard;
    if (layoutThreads < k.numThreads()) {
      Value in = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                       tid, cidx(rewriter, loc, layoutThreads));
      guard = scf::IfOp::create(rewriter, loc, in, /*withElse=*/false);
      rewriter.setInsertionPointToStart(&guard->getThenRegion().front());
    }
    ThreadCoords tc(rewriter, loc, tv, src.getShape(), tid);
    Type elem = src.getElementType();
    int64_t n = vectorWidth(tc, layoutThreads, {src, dst}, elem);
    int64_t bytes = n * elemBytes(elem);
    bool async = std::is_same_v<OpT, CopyAsyncOp> && k.nvidia &&
                 src.getMemorySpace() == MemorySpace::Global &&
                 dst.getMemorySpace() == MemorySpace::Shared &&
                 (bytes == 4 || bytes == 8 || bytes == 16);
    for (int64_t v = 0; v < tc.numSlots(); v += n) {
      SmallVector<Value> c = tc.coord(rewriter, loc, v);
      if (async) {
        SmallVector<Value> dIdx = memIndices(rewriter, loc, dst, c);
        SmallVector<Value> sIdx = memIndices(rewriter, loc, src, c);
        nvgpu::DeviceAsyncCopyOp::create(
            rewriter, loc, nvgpu::DeviceAsyncTokenType::get(op.getContext()),
            adaptor.getDest(), dIdx, adaptor.getSource(), sIdx,
            rewriter.getIndexAttr(n), Value(),
            bytes == 16 ? rewriter.getUnitAttr() : UnitAttr());
        continue;
      }
      Value x = loadElems(rewriter, loc, adaptor.getSource(), src, c, n);
      storeElems(rewriter, loc, x, adaptor.getDest(), dst, c, n);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct CommitGroupLowering : ArgusPattern<CommitGroupOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(CommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (kernel(op).nvidia)
      NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitGroupLowering : ArgusPattern<WaitGroupOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(WaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (kernel(op).nvidia)
      NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(),
                                       int32_t(op.getPending()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : ArgusPattern<BarrierOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

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
    bool instrNvidia = instr->target == L::MmaInstr::Target::SM90;
    if (instrNvidia != k.nvidia)
      return op.emitOpError()
             << "instruction " << op.getInstr() << " belongs to "
             << getInstructionTarget(*instr) << ", but the kernel is lowered "
             << "for " << k.chip
             << "; hint: matrix-core instructions are target-specific, write "
                "the kernel with an instruction of the target";
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
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();
    Type aElem = ta.getElementType(), cElem = tcT.getElementType();
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
          Value d;
          if (k.nvidia) {
            // m16n8k16: A 4 x f16x2, B 2 x f16x2, C 2 x f32x2.
            auto a2 = VectorType::get({instr->aRegs / 2, 2}, aElem);
            auto b2 = VectorType::get({instr->bRegs / 2, 2}, aElem);
            auto c2 = VectorType::get({instr->cRegs / 2, 2}, cElem);
            Value r = nvgpu::MmaSyncOp::create(
                rewriter, loc,
                vector::ShapeCastOp::create(rewriter, loc, a2, av),
                vector::ShapeCastOp::create(rewriter, loc, b2, bv),
                vector::ShapeCastOp::create(rewriter, loc, c2, cv),
                ArrayRef<int64_t>{instr->M, instr->N, instr->K});
            d = vector::ShapeCastOp::create(rewriter, loc, cv.getType(), r);
          } else {
            d = amdgpu::MFMAOp::create(rewriter, loc, cv.getType(),
                                       uint32_t(instr->M), uint32_t(instr->N),
                                       uint32_t(instr->K), /*blocks=*/1u, av,
                                       bv, cv);
          }
          c = vector::InsertStridedSliceOp::create(rewriter, loc, d, c,
                                                   ArrayRef<int64_t>{cOff},
                                                   ArrayRef<int64_t>{1});
        }
    rewriter.replaceOp(op, c);
    return success();
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
    if (!isa<FloatType>(op.getType().getElementType()))
      return rewriter.notifyMatchFailure(op, "float tiles only");
    rewriter.replaceOpWithNewOp<FOp>(op, adaptor.getInput());
    return success();
  }
};

struct ScaleLowering : ArgusPattern<ScaleOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vt = cast<VectorType>(adaptor.getInput().getType());
    auto ft = dyn_cast<FloatType>(vt.getElementType());
    if (!ft)
      return rewriter.notifyMatchFailure(op, "float tiles only");
    Value f = arith::ConstantOp::create(
        rewriter, op.getLoc(), vt,
        DenseElementsAttr::get(
            vt, rewriter.getFloatAttr(ft, op.getFactor().convertToDouble())));
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

//===----------------------------------------------------------------------===//
// Probes
//===----------------------------------------------------------------------===//

struct ProbePlan {
  SmallVector<int64_t> warps, blocks;
  int64_t iterLo = 0, iterHi = -1;
  std::string clock = "default";
};

ProbePlan getProbePlan(Operation *fn) {
  ProbePlan p;
  auto dict = fn->getAttrOfType<DictionaryAttr>("argus_probes");
  if (!dict)
    return p;
  if (auto w = dict.getAs<DenseI64ArrayAttr>("warps"))
    p.warps.assign(w.asArrayRef().begin(), w.asArrayRef().end());
  if (auto b = dict.getAs<DenseI64ArrayAttr>("blocks"))
    p.blocks.assign(b.asArrayRef().begin(), b.asArrayRef().end());
  if (auto lo = dict.getAs<IntegerAttr>("iteration_lo"))
    p.iterLo = lo.getInt();
  if (auto hi = dict.getAs<IntegerAttr>("iteration_hi"))
    p.iterHi = hi.getInt();
  if (auto c = dict.getAs<StringAttr>("clock"))
    p.clock = c.str();
  return p;
}

/// Per-kernel probe state, computed once at kernel entry: the slot of this
/// warp, the header's capacity, the address of the slot's first record, and
/// the slot's counters, kept in shared memory while the kernel runs (one
/// writer per slot: lane 0 of the warp) and written back at the end.
struct ProbeContext {
  Value buf, warp, lane, block, valid, capacity, recBase, slotPtr, counts;
};

Value linearBlockId(OpBuilder &b, Location loc, const KernelInfo &k) {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value bz = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value gx, gy;
  if (k.nvidia) {
    gx = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    gy = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
  } else {
    // gpu.grid_dim lowers to an OCKL call on ROCDL, which needs the ROCm
    // device libraries: read the grid size (in work-items) from the HSA
    // dispatch packet instead (grid_size_x/y at bytes 12/16).
    auto ptr4 = LLVM::LLVMPointerType::get(ctx, 4);
    Value dp = LLVM::CallIntrinsicOp::create(
                   b, loc, ptr4, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
                   ValueRange{})
                   .getResult(0);
    auto gridDim = [&](int64_t off, int64_t blockDim) -> Value {
      Value p = LLVM::GEPOp::create(
          b, loc, ptr4, b.getI8Type(), dp,
          ValueRange{arith::ConstantIntOp::create(b, loc, i64, off)});
      Value items = LLVM::LoadOp::create(b, loc, i32, p);
      Value idx = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), items);
      return arith::CeilDivUIOp::create(b, loc, idx, cidx(b, loc, blockDim));
    };
    gx = gridDim(12, k.block[0]);
    gy = gridDim(16, k.block[1]);
  }
  return arith::AddIOp::create(
      b, loc, bx,
      arith::MulIOp::create(
          b, loc, gx,
          arith::AddIOp::create(b, loc, by,
                                arith::MulIOp::create(b, loc, gy, bz))));
}

ProbeContext emitProbePrelude(OpBuilder &b, Location loc, Value buf,
                              const KernelInfo &k, gpu::GPUModuleOp mod,
                              StringRef fnName) {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto ptrT = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto gep = [&](Value base, Value byteOff) -> Value {
    return LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), base,
                               ValueRange{byteOff});
  };
  ProbeContext pc;
  pc.buf = buf;
  Value tid = linearThreadId(b, loc, k);
  pc.warp = arith::DivUIOp::create(b, loc, tid, cidx(b, loc, k.warpSize));
  pc.lane = arith::RemUIOp::create(b, loc, tid, cidx(b, loc, k.warpSize));
  pc.block = linearBlockId(b, loc, k);
  int64_t wpb = (k.numThreads() + k.warpSize - 1) / k.warpSize;
  Value numSlots = LLVM::LoadOp::create(b, loc, i32, gep(buf, c64(8)));
  pc.capacity = LLVM::LoadOp::create(b, loc, i32, gep(buf, c64(12)));
  Value slot = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, pc.block, cidx(b, loc, wpb)),
      pc.warp);
  Value slot32 = arith::IndexCastUIOp::create(b, loc, i32, slot);
  pc.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot32,
                                   numSlots);
  Value slot64 = arith::ExtUIOp::create(b, loc, i64, slot32);
  pc.slotPtr = gep(
      buf, arith::AddIOp::create(
               b, loc, c64(64), arith::MulIOp::create(b, loc, slot64, c64(8))));
  Value numSlots64 = arith::ExtUIOp::create(b, loc, i64, numSlots);
  Value recordsOff = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc,
                            arith::MulIOp::create(b, loc, numSlots64, c64(8)),
                            c64(64 + 31)),
      c64(~int64_t(31)));
  Value cap64 = arith::ExtUIOp::create(b, loc, i64, pc.capacity);
  pc.recBase = gep(
      buf,
      arith::AddIOp::create(
          b, loc, recordsOff,
          arith::MulIOp::create(
              b, loc, arith::MulIOp::create(b, loc, slot64, cap64), c64(32))));
  // The warp's counters in shared memory: (count, dropped) per warp.
  auto countsType = MemRefType::get(
      {2 * wpb}, i32, MemRefLayoutAttrInterface(),
      IntegerAttr::get(IntegerType::get(ctx, 64), kSharedSpace));
  std::string name = ("__argus_probe_counts_" + fnName).str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(mod.getBody());
    memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                             countsType, Attribute(), false,
                             b.getI64IntegerAttr(8));
  }
  pc.counts = memref::GetGlobalOp::create(b, loc, countsType, name);
  Value writer = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, pc.lane,
                            cidx(b, loc, 0)),
      pc.valid);
  auto ifOp = scf::IfOp::create(b, loc, writer, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value c = LLVM::LoadOp::create(b, loc, i32, pc.slotPtr);
  Value d = LLVM::LoadOp::create(b, loc, i32, gep(pc.slotPtr, c64(4)));
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  memref::StoreOp::create(b, loc, c, pc.counts, ValueRange{w2});
  memref::StoreOp::create(
      b, loc, d, pc.counts,
      ValueRange{arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1))});
  return pc;
}

/// Write the warp's counters back to its slot (before the kernel returns).
void emitProbeEpilogue(OpBuilder &b, Location loc, const ProbeContext &pc) {
  Type i64 = b.getI64Type();
  Value writer = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, pc.lane,
                            cidx(b, loc, 0)),
      pc.valid);
  auto ifOp = scf::IfOp::create(b, loc, writer, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  Value c = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w2});
  Value d = memref::LoadOp::create(
      b, loc, pc.counts,
      ValueRange{arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1))});
  LLVM::StoreOp::create(b, loc, c, pc.slotPtr);
  Value dp = LLVM::GEPOp::create(
      b, loc, pc.slotPtr.getType(), b.getI8Type(), pc.slotPtr,
      ValueRange{arith::ConstantIntOp::create(b, loc, i64, 4)});
  LLVM::StoreOp::create(b, loc, d, dp);
}

/// Expand one probed marker into the record-writing code of ProbeFormat.h:
/// lane 0 of each selected warp reads the timer and appends a record to its
/// slot, or counts a drop when the slot is full.
void emitProbe(OpBuilder &b, Operation *marker, int64_t id, bool isEnd,
               const ProbeContext &pc, const KernelInfo &k,
               const ProbePlan &plan, Operation *fnOp) {
  Location loc = marker->getLoc();
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto ptrT = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  auto toI32 = [&](Value idx) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i32, idx);
  };
  Value cond = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, pc.lane,
                            cidx(b, loc, 0)),
      pc.valid);
  auto anyOf = [&](Value x, ArrayRef<int64_t> set) {
    Value r = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    for (int64_t s : set)
      r = arith::OrIOp::create(b, loc, r,
                               arith::CmpIOp::create(b, loc,
                                                     arith::CmpIPredicate::eq,
                                                     x, cidx(b, loc, s)));
    return r;
  };
  if (!plan.warps.empty())
    cond = arith::AndIOp::create(b, loc, cond, anyOf(pc.warp, plan.warps));
  if (!plan.blocks.empty())
    cond = arith::AndIOp::create(b, loc, cond, anyOf(pc.block, plan.blocks));
  // Iteration of the innermost enclosing loop of the kernel.
  Value iter = c32(0xFFFFFFFFll);
  auto loop = marker->getParentOfType<scf::ForOp>();
  if (loop && fnOp->isProperAncestor(loop)) {
    Value rel = arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                      loop.getLowerBound());
    Value it = arith::DivUIOp::create(b, loc, rel, loop.getStep());
    iter = toI32(it);
    if (plan.iterLo > 0)
      cond = arith::AndIOp::create(
          b, loc, cond,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, it,
                                cidx(b, loc, plan.iterLo)));
    if (plan.iterHi >= 0)
      cond = arith::AndIOp::create(
          b, loc, cond,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, it,
                                cidx(b, loc, plan.iterHi)));
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // The timer first, so the record's time is as close to the marker as can be.
  Value ts, hw;
  if (k.nvidia) {
    ts = plan.clock == "clock64"
             ? Value(NVVM::Clock64Op::create(b, loc, i64))
             : Value(NVVM::GlobalTimerOp::create(b, loc, i64));
    hw = NVVM::SmIdOp::create(b, loc, i32);
  } else {
    StringRef name = plan.clock == "memrealtime" ? "llvm.amdgcn.s.memrealtime"
                                                 : "llvm.amdgcn.s.memtime";
    ts = LLVM::CallIntrinsicOp::create(b, loc, i64, b.getStringAttr(name),
                                       ValueRange{})
             .getResult(0);
    // HW_ID (hwreg 4), all 32 bits: simm16 = 4 | (31 << 11).
    hw = LLVM::CallIntrinsicOp::create(b, loc, i32,
                                       b.getStringAttr("llvm.amdgcn.s.getreg"),
                                       ValueRange{c32(4 | (31 << 11))})
             .getResult(0);
  }
  Value w2 = arith::MulIOp::create(b, loc, pc.warp, cidx(b, loc, 2));
  Value count = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w2});
  Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, count,
                                     pc.capacity);
  auto fullIf = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&fullIf.getThenRegion().front());
    Value w21 = arith::AddIOp::create(b, loc, w2, cidx(b, loc, 1));
    Value dropped = memref::LoadOp::create(b, loc, pc.counts, ValueRange{w21});
    memref::StoreOp::create(b, loc,
                            arith::AddIOp::create(b, loc, dropped, c32(1)),
                            pc.counts, ValueRange{w21});
  }
  b.setInsertionPointToStart(&fullIf.getElseRegion().front());
  Value off =
      arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, count),
                            arith::ConstantIntOp::create(b, loc, i64, 32));
  Value rec = LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), pc.recBase,
                                  ValueRange{off});
  // Two 16-byte stores: {id, flags, block, warp}, {iteration, hw, ts}.
  auto v4 = VectorType::get({4}, i32);
  Value tsLo = arith::TruncIOp::create(b, loc, i32, ts);
  Value tsHi = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(b, loc, ts,
                             arith::ConstantIntOp::create(b, loc, i64, 32)));
  Value first = vector::FromElementsOp::create(
      b, loc, v4,
      ValueRange{c32(id), c32(isEnd ? 1 : 0), toI32(pc.block), toI32(pc.warp)});
  Value second = vector::FromElementsOp::create(
      b, loc, v4, ValueRange{iter, hw, tsLo, tsHi});
  LLVM::StoreOp::create(b, loc, first, rec, /*alignment=*/16);
  Value rec2 = LLVM::GEPOp::create(
      b, loc, ptrT, b.getI8Type(), rec,
      ValueRange{arith::ConstantIntOp::create(b, loc, i64, 16)});
  LLVM::StoreOp::create(b, loc, second, rec2, /*alignment=*/16);
  memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, count, c32(1)),
                          pc.counts, ValueRange{w2});
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ArgusToGPUPass
    : public ::mlir::argus::impl::ArgusToGPUBase<ArgusToGPUPass> {
  using ArgusToGPUBase::ArgusToGPUBase;

  gpu::GPUModuleOp getOrCreateModule(ModuleOp top, StringRef chip) {
    std::string name = "argus_" + chip.str();
    if (auto m = top.lookupSymbol<gpu::GPUModuleOp>(name))
      return m;
    OpBuilder b(top.getContext());
    b.setInsertionPointToEnd(top.getBody());
    MLIRContext *ctx = top.getContext();
    Attribute target;
    if (chip.starts_with("gfx"))
      target = ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3,
                                           "amdgcn-amd-amdhsa", chip);
    else
      target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3,
                                         "nvptx64-nvidia-cuda", chip);
    return gpu::GPUModuleOp::create(b, top.getLoc(), name,
                                    b.getArrayAttr({target}));
  }

  LogicalResult convertKernel(ModuleOp top, func::FuncOp fn) {
    auto kattr = fn->getAttrOfType<KernelAttr>("argus.kernel");
    std::string chip = target.empty() ? kattr.getTarget().str() : target;
    if (chip == "sm_90")
      chip = "sm_90a"; // the examples' instructions need the arch-specific PTX
    if (fn.getBody().getBlocks().size() != 1)
      return fn.emitOpError() << "argus-to-gpu: kernels must have one block";
    // Unsupported ops: say so clearly instead of failing to legalize.
    WalkResult unsupported = fn.walk([&](Operation *op) {
      if (isa<ReduceOp, BroadcastOp, ConvertLayoutOp, GatherViewOp>(op)) {
        op->emitOpError() << "is not lowered by argus-to-gpu yet";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return failure();

    gpu::GPUModuleOp mod = getOrCreateModule(top, chip);
    MLIRContext *ctx = fn.getContext();
    auto ptrT = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
    Type i64 = IntegerType::get(ctx, 64);
    bool withProbes = probes && fn->hasAttr("argus_probes");
    SmallVector<Type> argTypes;
    for (Type t : fn.getArgumentTypes()) {
      if (auto mt = dyn_cast<MemRefType>(t)) {
        argTypes.push_back(ptrT);
        argTypes.append(mt.getRank(), i64);
      } else if (isa<IndexType>(t)) {
        argTypes.push_back(i64);
      } else {
        argTypes.push_back(t);
      }
    }
    if (withProbes)
      argTypes.push_back(ptrT);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(mod.getBody());
    auto gfn = gpu::GPUFuncOp::create(b, fn.getLoc(), fn.getName(),
                                      FunctionType::get(ctx, argTypes, {}));
    gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    SmallVector<int64_t> block(kattr.getBlock());
    block.resize(3, 1);
    gfn.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
        {int32_t(block[0]), int32_t(block[1]), int32_t(block[2])}));
    gfn->setAttr("argus_chip", b.getStringAttr(chip));
    gfn->setAttr("argus_block", b.getDenseI64ArrayAttr(block));
    if (auto p = fn->getAttr("argus_probes"))
      if (withProbes)
        gfn->setAttr("argus_probes", p);

    Block &entry = gfn.getBody().front();
    b.setInsertionPointToStart(&entry);
    IRMapping map;
    unsigned next = 0;
    Location loc = fn.getLoc();
    for (BlockArgument arg : fn.getArguments()) {
      Type t = arg.getType();
      if (auto mt = dyn_cast<MemRefType>(t)) {
        int64_t r = mt.getRank();
        Value ptr = entry.getArgument(next++);
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < r; ++d)
          sizes.push_back(entry.getArgument(next++));
        auto arr = LLVM::LLVMArrayType::get(i64, r);
        auto st =
            LLVM::LLVMStructType::getLiteral(ctx, {ptrT, ptrT, i64, arr, arr});
        Value desc = LLVM::PoisonOp::create(b, loc, st);
        desc = LLVM::InsertValueOp::create(b, loc, desc, ptr,
                                           ArrayRef<int64_t>{0});
        desc = LLVM::InsertValueOp::create(b, loc, desc, ptr,
                                           ArrayRef<int64_t>{1});
        Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
        desc = LLVM::InsertValueOp::create(b, loc, desc, zero,
                                           ArrayRef<int64_t>{2});
        Value stride = LLVM::ConstantOp::create(b, loc, i64, 1);
        SmallVector<Value> strides(r);
        for (int64_t d = r - 1; d >= 0; --d) {
          strides[d] = stride;
          stride = LLVM::MulOp::create(b, loc, stride, sizes[d]);
        }
        for (int64_t d = 0; d < r; ++d) {
          desc = LLVM::InsertValueOp::create(b, loc, desc, sizes[d],
                                             ArrayRef<int64_t>{3, d});
          desc = LLVM::InsertValueOp::create(b, loc, desc, strides[d],
                                             ArrayRef<int64_t>{4, d});
        }
        auto newType = MemRefType::get(mt.getShape(), mt.getElementType(),
                                       MemRefLayoutAttrInterface(),
                                       IntegerAttr::get(i64, kGlobalSpace));
        Value m = UnrealizedConversionCastOp::create(b, loc, newType, desc)
                      .getResult(0);
        map.map(arg, m);
      } else if (isa<IndexType>(t)) {
        map.map(arg, arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                entry.getArgument(next++)));
      } else {
        map.map(arg, entry.getArgument(next++));
      }
    }
    for (Operation &op : fn.getBody().front().without_terminator())
      b.clone(op, map);
    gpu::ReturnOp::create(b, loc);
    fn.erase();

    // Probes: expand probed markers, erase the others.
    KernelInfo k = getKernelInfo(gfn);
    ProbePlan plan = getProbePlan(gfn);
    SmallVector<Operation *> markers;
    gfn.walk([&](Operation *op) {
      if (isa<RegionBeginOp, RegionEndOp>(op))
        markers.push_back(op);
    });
    std::optional<ProbeContext> pc;
    bool anyProbe = withProbes && llvm::any_of(markers, [](Operation *m) {
                      return m->hasAttr("argus_probe");
                    });
    if (anyProbe) {
      // The prelude goes right after the argument set-up, before the body.
      Operation *firstBodyOp = nullptr;
      for (Operation &op : entry)
        if (!isa<LLVM::PoisonOp, LLVM::InsertValueOp, LLVM::ConstantOp,
                 LLVM::MulOp, UnrealizedConversionCastOp, arith::IndexCastOp>(
                op)) {
          firstBodyOp = &op;
          break;
        }
      OpBuilder pb(firstBodyOp);
      pc = emitProbePrelude(pb, loc, entry.getArguments().back(), k, mod,
                            gfn.getName());
      OpBuilder eb(entry.getTerminator());
      emitProbeEpilogue(eb, loc, *pc);
    }
    for (Operation *m : markers) {
      if (pc && m->hasAttr("argus_probe")) {
        OpBuilder pb(m);
        if (auto begin = dyn_cast<RegionBeginOp>(m))
          emitProbe(pb, m, begin.getId(), false, *pc, k, plan, gfn);
        else
          emitProbe(pb, m, cast<RegionEndOp>(m).getId(), true, *pc, k, plan,
                    gfn);
      }
      m->erase();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    top.walk([&](func::FuncOp fn) {
      if (fn->hasAttr("argus.kernel"))
        kernels.push_back(fn);
    });
    if (kernels.empty())
      return;
    top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                 UnitAttr::get(ctx));
    for (func::FuncOp fn : kernels)
      if (failed(convertKernel(top, fn)))
        return signalPassFailure();

    ArgusTypeConverter tc;
    RewritePatternSet patterns(ctx);
    ConversionTarget tgt(*ctx);
    tgt.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    tgt.addIllegalDialect<ArgusDialect>();
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, tgt);
    patterns
        .add<ViewLowering, AllocLowering, StageLowering,
             SameBytesLowering<TransposeOp>, SameBytesLowering<ReinterpretOp>,
             LoadLowering, StoreLowering, CopyLowering<CopyOp>,
             CopyLowering<CopyAsyncOp>, CommitGroupLowering, WaitGroupLowering,
             BarrierLowering, MmaLowering, FillLowering, TagLowering,
             EraseLowering<TagAssertOp>, EraseLowering<RegionBeginOp>,
             EraseLowering<RegionEndOp>,
             BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
             BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
             BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
             BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp>,
             BinaryLowering<MaxOp, arith::MaximumFOp, arith::MaxSIOp>,
             UnaryFloatLowering<ExpOp, math::ExpOp>,
             UnaryFloatLowering<Exp2Op, math::Exp2Op>,
             UnaryFloatLowering<NegOp, arith::NegFOp>, ScaleLowering,
             ConvertLowering>(tc, ctx);
    if (failed(applyPartialConversion(top, tgt, std::move(patterns))))
      return signalPassFailure();
    // The bookkeeping attributes are not needed past this point.
    top.walk([](gpu::GPUFuncOp f) {
      f->removeAttr("argus_chip");
      f->removeAttr("argus_block");
      f->removeAttr("argus_probes");
    });
  }
};

} // namespace
