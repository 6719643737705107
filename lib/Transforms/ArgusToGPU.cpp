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

#include "llvm/ADT/MapVector.h"

#include <limits>
#include <map>
#include <set>

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

int64_t numElements(TileType t) {
  int64_t n = 1;
  for (int64_t s : t.getShape())
    n *= s;
  return n;
}

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

constexpr StringLiteral kGatherAttr = "argus.gather";

/// argus.gather_view lowers to this marker cast of (tensor, row indices,
/// column); accesses through it read row indices[r] of the tensor.
UnrealizedConversionCastOp gatherOf(Value mem) {
  auto c = mem.getDefiningOp<UnrealizedConversionCastOp>();
  if (c && c->hasAttr(kGatherAttr) && c.getInputs().size() == 3)
    return c;
  return {};
}

/// Indices into the converted memref of a memory tile at `coord`; `mem` is
/// replaced by the memref to access (the whole tensor for gathered rows).
SmallVector<Value> memIndices(OpBuilder &b, Location loc, Value &mem,
                              TileType t, ValueRange coord) {
  if (t.getMemorySpace() == MemorySpace::Global) {
    if (auto g = gatherOf(mem)) {
      mem = g.getInputs()[0];
      Value id = vector::ExtractOp::create(b, loc, g.getInputs()[1],
                                           ArrayRef<OpFoldResult>{coord[0]});
      Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
      Value col = arith::AddIOp::create(b, loc, g.getInputs()[2], coord[1]);
      return {row, col};
    }
    return SmallVector<Value>(coord.begin(), coord.end());
  }
  return {emitMemOffset(b, loc, memLayout(t), t.getShape(), coord)};
}

Value loadElems(OpBuilder &b, Location loc, Value mem, TileType t,
                ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, mem, t, coord);
  if (n == 1)
    return memref::LoadOp::create(b, loc, mem, idx);
  auto vt = VectorType::get({n}, t.getElementType());
  auto op = vector::LoadOp::create(b, loc, vt, mem, idx);
  op.setAlignment(uint64_t(n * elemBytes(t.getElementType())));
  return op;
}

void storeElems(OpBuilder &b, Location loc, Value val, Value mem, TileType t,
                ValueRange coord, int64_t n) {
  SmallVector<Value> idx = memIndices(b, loc, mem, t, coord);
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
    // Static inner sizes of the tensor give static strides: cast them away
    // (every global tile is strided<[?, ..., 1], offset: ?>).
    Value sv = memref::SubViewOp::create(
        rewriter, op.getLoc(), adaptor.getTensor(), offsets, sizes, strides);
    if (sv.getType() != resultType)
      sv = memref::CastOp::create(rewriter, op.getLoc(), resultType, sv);
    rewriter.replaceOp(op, sv);
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
      // Swizzled tiles: 1024 bytes, so that the layout's XOR pattern is the
      // hardware's on absolute addresses (wgmma/TMA 128B swizzle atoms).
      int64_t align = memLayout(op.getType().getTile()).swizzle ? 1024 : 128;
      memref::GlobalOp::create(
          rewriter, op.getLoc(), name, rewriter.getStringAttr("private"), type,
          Attribute(), /*constant=*/false, rewriter.getI64IntegerAttr(align));
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

/// One ldmatrix.x{n}[.trans] covering register slots [slot, slot + 2n):
/// value j = v + 2m of the instruction (matrix m, value v) is slot slot + j.
struct LdMatrixGroup {
  int64_t slot;
  int n;
  bool trans;
};

/// The lane of a warp that holds row `r`, column 0 of an 8x8 matrix, and
/// the value (0/1) it holds it in (see lookupLdMatrix's TV layout).
std::pair<int, int> ldmRowOwner(int r, bool trans) {
  return trans ? std::make_pair(r / 2, r % 2) : std::make_pair(4 * r, 0);
}

/// Whether ldmatrix.x{n}[.trans] loads slots [s, s + 2n) of every thread:
/// for every warp and matrix, the 8 rows are 16-byte aligned runs of 8
/// consecutive elements of the shared layout (swizzle included), and every
/// lane's value (m, v) is the element the instruction gives it.
bool ldmatrixFits(const ThreadCoords &tc, int64_t threads, TileType src,
                  const L::SwizzledLayout &mem, int64_t s, int n, bool trans) {
  std::optional<L::LdMatrixInstr> instr = L::lookupLdMatrix(
      "ldmatrix.x" + std::to_string(n) + (trans ? ".trans" : ""));
  if (!instr || s + 2 * n > tc.numSlots() || threads % 32 != 0)
    return false;
  auto off = [&](int64_t t, int64_t slot) {
    return staticMemOffset(mem, src.getShape(), tc.staticCoord(t, slot));
  };
  for (int64_t w = 0; w < threads / 32; ++w)
    for (int m = 0; m < n; ++m) {
      int64_t rowStart[8];
      for (int r = 0; r < 8; ++r) {
        auto [lane, v] = ldmRowOwner(r, trans);
        rowStart[r] = off(32 * w + lane, s + 2 * m + v);
        if (rowStart[r] % 8 != 0)
          return false;
      }
      for (int lane = 0; lane < 32; ++lane)
        for (int v = 0; v < 2; ++v) {
          L::LdMatrixInstr::Elem e = instr->coord(lane, v + 2 * m);
          if (e.matrix != m ||
              off(32 * w + lane, s + 2 * m + v) != rowStart[e.row] + e.col)
            return false;
        }
    }
  return true;
}

/// Cover all slots of a 16-bit register tile loaded from shared memory with
/// ldmatrix instructions (widest first), or return nothing.
SmallVector<LdMatrixGroup> planLdMatrix(const ThreadCoords &tc, int64_t threads,
                                        TileType src) {
  SmallVector<LdMatrixGroup> plan;
  L::SwizzledLayout mem = memLayout(src);
  for (int64_t s = 0; s < tc.numSlots();) {
    bool found = false;
    for (int n : {4, 2, 1}) {
      for (bool trans : {false, true})
        if (ldmatrixFits(tc, threads, src, mem, s, n, trans)) {
          plan.push_back({s, n, trans});
          s += 2 * n;
          found = true;
          break;
        }
      if (found)
        break;
    }
    if (!found)
      return {};
  }
  return plan;
}

struct LoadLowering : ArgusPattern<LoadOp> {
  LoadLowering(const TypeConverter &tc, MLIRContext *ctx, bool useLdMatrix)
      : ArgusPattern(tc, ctx), useLdMatrix(useLdMatrix) {}
  bool useLdMatrix;

  /// ldmatrix: lane l supplies the address of row l % 8 of matrix
  /// (l / 8) mod n; that row's first element is held by lane
  /// ldmRowOwner(row) of the same warp, so its offset is evaluated from the
  /// layout for that thread (one candidate per matrix and value, selected).
  Value emitLdMatrix(ConversionPatternRewriter &rewriter, Location loc,
                     const LdMatrixGroup &g, const ThreadCoords &owner,
                     Value rowInMatrix, Value matrix, Value src, TileType st,
                     Value acc) const {
    Value addr;
    for (int m = 0; m < g.n; ++m)
      for (int v = 0; v < (g.trans ? 2 : 1); ++v) {
        Value mem = src;
        Value o = memIndices(rewriter, loc, mem, st,
                             owner.coord(rewriter, loc, g.slot + 2 * m + v))[0];
        if (!addr) {
          addr = o;
          continue;
        }
        Value c = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        matrix, cidx(rewriter, loc, m));
        if (g.trans)
          c = arith::AndIOp::create(
              rewriter, loc, c,
              arith::CmpIOp::create(
                  rewriter, loc, arith::CmpIPredicate::eq,
                  arith::RemUIOp::create(rewriter, loc, rowInMatrix,
                                         cidx(rewriter, loc, 2)),
                  cidx(rewriter, loc, v)));
        addr = arith::SelectOp::create(rewriter, loc, c, o, addr);
      }
    Type elem = st.getElementType();
    Value r = nvgpu::LdMatrixOp::create(
        rewriter, loc, VectorType::get({g.n, 2}, elem), src, ValueRange{addr},
        g.trans, uint32_t(g.n));
    r = vector::ShapeCastOp::create(rewriter, loc,
                                    VectorType::get({2 * g.n}, elem), r);
    return vector::InsertStridedSliceOp::create(
        rewriter, loc, r, acc, ArrayRef<int64_t>{g.slot}, ArrayRef<int64_t>{1});
  }

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
    SmallVector<LdMatrixGroup> plan;
    if (useLdMatrix && k.nvidia &&
        src.getMemorySpace() == MemorySpace::Shared &&
        dst.getElementType().getIntOrFloatBitWidth() == 16 &&
        tc.numThreads() == k.numThreads())
      plan = planLdMatrix(tc, k.numThreads(), src);
    if (!plan.empty()) {
      Value acc = arith::ConstantOp::create(rewriter, loc, vt,
                                            rewriter.getZeroAttr(vt));
      Value lane =
          arith::RemUIOp::create(rewriter, loc, tid, cidx(rewriter, loc, 32));
      Value warpBase = arith::SubIOp::create(rewriter, loc, tid, lane);
      Value row =
          arith::RemUIOp::create(rewriter, loc, lane, cidx(rewriter, loc, 8));
      Value mat8 =
          arith::DivUIOp::create(rewriter, loc, lane, cidx(rewriter, loc, 8));
      // Owner lanes: 4 * row (plain) or row / 2 (transposed).
      std::optional<ThreadCoords> plain, trans;
      for (const LdMatrixGroup &g : plan) {
        std::optional<ThreadCoords> &owner = g.trans ? trans : plain;
        if (!owner) {
          Value ol = g.trans
                         ? Value(arith::DivUIOp::create(rewriter, loc, row,
                                                        cidx(rewriter, loc, 2)))
                         : Value(arith::MulIOp::create(rewriter, loc, row,
                                                       cidx(rewriter, loc, 4)));
          owner.emplace(rewriter, loc, *tv, dst.getShape(),
                        arith::AddIOp::create(rewriter, loc, warpBase, ol));
        }
        Value matrix = arith::RemUIOp::create(rewriter, loc, mat8,
                                              cidx(rewriter, loc, g.n));
        acc = emitLdMatrix(rewriter, loc, g, *owner, row, matrix,
                           adaptor.getSource(), src, acc);
      }
      rewriter.replaceOp(op, acc);
      return success();
    }
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
        Value dMem = adaptor.getDest(), sMem = adaptor.getSource();
        SmallVector<Value> dIdx = memIndices(rewriter, loc, dMem, dst, c);
        SmallVector<Value> sIdx = memIndices(rewriter, loc, sMem, src, c);
        nvgpu::DeviceAsyncCopyOp::create(
            rewriter, loc, nvgpu::DeviceAsyncTokenType::get(op.getContext()),
            dMem, dIdx, sMem, sIdx, rewriter.getIndexAttr(n), Value(),
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

struct GatherViewLowering : ArgusPattern<GatherViewOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(GatherViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileType t = op.getType();
    if (t.getRank() != 2 || op.getIndices().getType().getRank() != 1)
      return op.emitOpError() << "lowering supports 2-d gathers of rows";
    Type resultType = getTypeConverter()->convertType(t);
    auto c = UnrealizedConversionCastOp::create(
        rewriter, op.getLoc(), resultType,
        ValueRange{adaptor.getTensor(), adaptor.getIndices(),
                   adaptor.getCol()});
    c->setAttr(kGatherAttr, rewriter.getUnitAttr());
    rewriter.replaceOp(op, c.getResult(0));
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
LogicalResult lowerWgmma(MmaOp op, MmaOp::Adaptor adaptor,
                         ConversionPatternRewriter &rewriter,
                         const L::MmaInstr &instr, const KernelInfo &k) {
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
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i64, v);
  };
  Value start = arith::ShRUIOp::create(
      rewriter, loc, arith::AndIOp::create(rewriter, loc, addr64, c64(0x3FFFF)),
      c64(4));
  int64_t fixed =
      ((lboE * 2 >> 4) << 16) | ((sboE * 2 >> 4) << 32) | (int64_t(1) << 62);
  Value desc0 = arith::OrIOp::create(rewriter, loc, start, c64(fixed));
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
      Value pair = vector::ExtractStridedSliceOp::create(
          rewriter, loc, a, ArrayRef<int64_t>{instr.aRegs * kk + 2 * r},
          ArrayRef<int64_t>{2}, ArrayRef<int64_t>{1});
      args.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, pair));
    }
    // The next 16 k-rows: 2 atoms of 8 rows further along K.
    args.push_back(arith::AddIOp::create(rewriter, loc, desc0,
                                         c64((2 * kk * sboE * 2) >> 4)));
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
    if (instr->threads == 128 && k.nvidia && !instr->aFromShared &&
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
          Value log2e = arith::ConstantOp::create(
              rewriter, loc, vt,
              DenseElementsAttr::get(
                  vt, rewriter.getFloatAttr(vt.getElementType(),
                                            1.4426950408889634)));
          x = arith::MulFOp::create(rewriter, loc, x, log2e);
        }
        // rocdl.exp2 (llvm.amdgcn.exp2) is scalar: one per slot.
        Value r = arith::ConstantOp::create(rewriter, loc, vt,
                                            rewriter.getZeroAttr(vt));
        for (int64_t i = 0; i < vt.getNumElements(); ++i) {
          Value e = vector::ExtractOp::create(rewriter, loc, x, i);
          e = ROCDL::ROCDLExp2::create(rewriter, loc, e.getType(), e);
          r = vector::InsertOp::create(rewriter, loc, e, r, i);
        }
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
// Redistribution: reduce, broadcast, convert_layout
//===----------------------------------------------------------------------===//

/// Row-major linear index of a coordinate.
int64_t rowMajor(ArrayRef<int64_t> c, ArrayRef<int64_t> shape) {
  int64_t r = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    r = r * shape[d] + c[d];
  return r;
}

Value rowMajorValue(OpBuilder &b, Location loc, ValueRange c,
                    ArrayRef<int64_t> shape) {
  Value r = c[0];
  for (size_t d = 1; d < shape.size(); ++d)
    r = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, r, cidx(b, loc, shape[d])), c[d]);
  return r;
}

SmallVector<int64_t> dropDim(ArrayRef<int64_t> c, int64_t dim) {
  SmallVector<int64_t> r(c.begin(), c.end());
  r.erase(r.begin() + dim);
  return r;
}

SmallVector<Value> dropDim(ArrayRef<Value> c, int64_t dim) {
  SmallVector<Value> r(c.begin(), c.end());
  r.erase(r.begin() + dim);
  return r;
}

constexpr StringLiteral kScratchPrefix = "__argus_xchg_";

/// The shared scratch of the kernel for element type `elem`: one buffer per
/// kernel and element type, sized by the largest exchange (created before
/// the conversion, see ArgusToGPUPass::createScratch). Exchanges use it one
/// after the other: each ends with a barrier.
Value getScratch(OpBuilder &b, Location loc, Operation *op, Type elem) {
  auto fn = op->getParentOfType<gpu::GPUFuncOp>();
  auto mod = op->getParentOfType<gpu::GPUModuleOp>();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << kScratchPrefix << fn.getName() << "_" << elem;
  auto g = dyn_cast_or_null<memref::GlobalOp>(
      SymbolTable::lookupSymbolIn(mod, name));
  if (!g)
    return Value();
  return memref::GetGlobalOp::create(b, loc, g.getType(), name);
}

std::string scratchName(StringRef fn, Type elem) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << kScratchPrefix << fn << "_" << elem;
  return name;
}

Value extractSlot(OpBuilder &b, Location loc, Value vec, int64_t i) {
  return vector::ExtractOp::create(b, loc, vec, i);
}

/// Largest n (<= 16 bytes) such that every group of n consecutive slots of
/// every thread is n consecutive, n-aligned row-major elements of `shape`.
int64_t rowMajorVectorWidth(const ThreadCoords &tc, int64_t threads,
                            ArrayRef<int64_t> shape, Type elem) {
  int64_t maxN = std::max<int64_t>(1, 16 / elemBytes(elem));
  for (int64_t n = maxN; n > 1; n /= 2) {
    if (tc.numSlots() % n != 0)
      continue;
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t)
      for (int64_t v0 = 0; v0 < tc.numSlots() && ok; v0 += n) {
        int64_t base = rowMajor(tc.staticCoord(t, v0), shape);
        if (base % n != 0)
          ok = false;
        for (int64_t k = 1; k < n && ok; ++k)
          if (rowMajor(tc.staticCoord(t, v0 + k), shape) != base + k)
            ok = false;
      }
    if (ok)
      return n;
  }
  return 1;
}

/// Every thread writes its slots to the scratch at their row-major index
/// (replicated elements are written with equal values).
void writeTileToScratch(OpBuilder &b, Location loc, Value vec,
                        const ThreadCoords &tc, int64_t threads,
                        ArrayRef<int64_t> shape, Value scratch) {
  Type elem = cast<VectorType>(vec.getType()).getElementType();
  int64_t n = rowMajorVectorWidth(tc, threads, shape, elem);
  for (int64_t v = 0; v < tc.numSlots(); v += n) {
    Value idx = rowMajorValue(b, loc, tc.coord(b, loc, v), shape);
    if (n == 1) {
      memref::StoreOp::create(b, loc, extractSlot(b, loc, vec, v), scratch,
                              idx);
      continue;
    }
    Value x = vector::ExtractStridedSliceOp::create(
        b, loc, vec, ArrayRef<int64_t>{v}, ArrayRef<int64_t>{n},
        ArrayRef<int64_t>{1});
    vector::StoreOp::create(b, loc, x, scratch, idx)
        .setAlignment(uint64_t(n * elemBytes(elem)));
  }
}

/// Output slot v of every thread takes input slot cands[v][i] when the
/// input coordinate of that slot (projected) is the output coordinate.
/// Returns false when some thread holds no input slot for some output slot,
/// or there are too many candidates.
bool planRegisterGather(const ThreadCoords &tin, const ThreadCoords &tout,
                        int64_t threads, int64_t dim, bool broadcast,
                        SmallVector<SmallVector<int64_t>> &cands) {
  cands.assign(tout.numSlots(), {});
  for (int64_t t = 0; t < threads; ++t) {
    // input coordinate -> first slot holding it, for this thread
    std::map<SmallVector<int64_t>, int64_t> held;
    for (int64_t u = tin.numSlots() - 1; u >= 0; --u)
      held[tin.staticCoord(t, u)] = u;
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      SmallVector<int64_t> c = tout.staticCoord(t, v);
      if (broadcast)
        c = dropDim(c, dim);
      auto it = held.find(c);
      if (it == held.end())
        return false;
      if (!llvm::is_contained(cands[v], it->second)) {
        cands[v].push_back(it->second);
        if (cands[v].size() > 4)
          return false;
      }
    }
  }
  return true;
}

/// Redistribute the register tile `in` (layout `tin`) to the layout `tout`;
/// with `broadcast`, output coordinates drop dimension `dim` to find their
/// input element. In registers when every thread already holds what it
/// needs (the slot is chosen by comparing coordinates at run time when it
/// depends on the thread), else through the shared scratch.
Value redistribute(ConversionPatternRewriter &b, Location loc, Operation *op,
                   Value in, TileType inT, const ThreadCoords &tin,
                   TileType outT, VectorType outVT, const ThreadCoords &tout,
                   int64_t threads, bool broadcast, int64_t dim) {
  SmallVector<SmallVector<int64_t>> cands;
  Value acc = arith::ConstantOp::create(b, loc, outVT, b.getZeroAttr(outVT));
  if (planRegisterGather(tin, tout, threads, dim, broadcast, cands)) {
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      Value x = extractSlot(b, loc, in, cands[v][0]);
      if (cands[v].size() > 1) {
        SmallVector<Value> oc = tout.coord(b, loc, v);
        if (broadcast)
          oc = dropDim(oc, dim);
        for (size_t i = 1; i < cands[v].size(); ++i) {
          SmallVector<Value> ic = tin.coord(b, loc, cands[v][i]);
          Value eq = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
          for (size_t d = 0; d < ic.size(); ++d)
            eq = arith::AndIOp::create(
                b, loc, eq,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ic[d],
                                      oc[d]));
          x = arith::SelectOp::create(b, loc, eq,
                                      extractSlot(b, loc, in, cands[v][i]), x);
        }
      }
      acc = vector::InsertOp::create(b, loc, x, acc, v);
    }
    return acc;
  }
  Value scratch = getScratch(b, loc, op, inT.getElementType());
  if (!scratch)
    return Value();
  writeTileToScratch(b, loc, in, tin, threads, inT.getShape(), scratch);
  gpu::BarrierOp::create(b, loc);
  int64_t n = broadcast ? 1
                        : rowMajorVectorWidth(tout, threads, outT.getShape(),
                                              outT.getElementType());
  for (int64_t v = 0; v < tout.numSlots(); v += n) {
    SmallVector<Value> oc = tout.coord(b, loc, v);
    if (broadcast)
      oc = dropDim(oc, dim);
    Value idx = rowMajorValue(b, loc, oc, inT.getShape());
    if (n == 1) {
      acc = vector::InsertOp::create(
          b, loc, memref::LoadOp::create(b, loc, scratch, idx), acc, v);
      continue;
    }
    auto vt = VectorType::get({n}, outT.getElementType());
    auto ld = vector::LoadOp::create(b, loc, vt, scratch, idx);
    ld.setAlignment(uint64_t(n * elemBytes(outT.getElementType())));
    acc = vector::InsertStridedSliceOp::create(
        b, loc, ld, acc, ArrayRef<int64_t>{v}, ArrayRef<int64_t>{1});
  }
  gpu::BarrierOp::create(b, loc);
  return acc;
}

struct ConvertLayoutLowering : ArgusPattern<ConvertLayoutOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType(), outT = op.getType();
    std::optional<L::Layout> li = regLayout(inT), lo = regLayout(outT);
    if (!li || !lo)
      return failure();
    auto outVT = cast<VectorType>(getTypeConverter()->convertType(outT));
    Value tid = linearThreadId(rewriter, loc, k);
    ThreadCoords tin(rewriter, loc, *li, inT.getShape(), tid);
    ThreadCoords tout(rewriter, loc, *lo, outT.getShape(), tid);
    if (tin.numThreads() != k.numThreads() ||
        tout.numThreads() != k.numThreads())
      return op.emitOpError() << "lowering needs layouts over all "
                              << k.numThreads() << " threads of the block";
    Value r = redistribute(rewriter, loc, op, adaptor.getInput(), inT, tin,
                           outT, outVT, tout, k.numThreads(), false, 0);
    if (!r)
      return op.emitOpError() << "no shared scratch for the exchange";
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct BroadcastLowering : ArgusPattern<BroadcastOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType(), outT = op.getType();
    std::optional<L::Layout> li = regLayout(inT), lo = regLayout(outT);
    if (!li || !lo)
      return failure();
    auto outVT = cast<VectorType>(getTypeConverter()->convertType(outT));
    Value tid = linearThreadId(rewriter, loc, k);
    ThreadCoords tin(rewriter, loc, *li, inT.getShape(), tid);
    ThreadCoords tout(rewriter, loc, *lo, outT.getShape(), tid);
    if (tin.numThreads() != k.numThreads() ||
        tout.numThreads() != k.numThreads())
      return op.emitOpError() << "lowering needs layouts over all "
                              << k.numThreads() << " threads of the block";
    Value r =
        redistribute(rewriter, loc, op, adaptor.getInput(), inT, tin, outT,
                     outVT, tout, k.numThreads(), true, int64_t(op.getDim()));
    if (!r)
      return op.emitOpError() << "no shared scratch for the exchange";
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// The static plan of a reduction (see ReduceLowering).
struct ReducePlan {
  /// Slots of each in-thread group (same output coordinate in every thread).
  SmallVector<SmallVector<int64_t>> groups;
  /// Lane xor masks combined with shuffles.
  SmallVector<int64_t> masks;
  /// Some output coordinate is held by several warps.
  bool crossWarp = false;
  /// Register distribution: output slot -> candidate groups.
  SmallVector<SmallVector<int64_t>> cands;
  bool inRegisters = false;
};

FailureOr<ReducePlan> planReduce(const ThreadCoords &tin,
                                 const ThreadCoords &tout, int64_t threads,
                                 int64_t warpSize, int64_t dim,
                                 ArrayRef<int64_t> inShape,
                                 ArrayRef<int64_t> outShape, std::string &why) {
  ReducePlan p;
  int64_t S = tin.numSlots();
  auto key = [&](int64_t t, int64_t u) {
    return rowMajor(dropDim(tin.staticCoord(t, u), dim), outShape);
  };
  auto elemId = [&](int64_t t, int64_t u) {
    return rowMajor(tin.staticCoord(t, u), inShape);
  };
  // 1. In-thread groups, from thread 0, checked for every thread.
  SmallVector<int64_t> groupOf(S, -1);
  for (int64_t u = 0; u < S; ++u) {
    for (size_t g = 0; g < p.groups.size() && groupOf[u] < 0; ++g)
      if (key(0, p.groups[g][0]) == key(0, u))
        groupOf[u] = g;
    if (groupOf[u] < 0) {
      groupOf[u] = p.groups.size();
      p.groups.push_back({});
    }
    p.groups[groupOf[u]].push_back(u);
  }
  for (int64_t t = 0; t < threads; ++t)
    for (int64_t u = 0; u < S; ++u)
      for (int64_t w = u + 1; w < S; ++w)
        if ((key(t, u) == key(t, w)) != (groupOf[u] == groupOf[w])) {
          why = "the slots that share an output coordinate differ between "
                "threads";
          return failure();
        }
  // Distinct elements per (thread, group); replicated slots count once.
  auto elems = [&](int64_t t, int64_t g) {
    std::set<int64_t> s;
    for (int64_t u : p.groups[g])
      s.insert(elemId(t, u));
    return s;
  };
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g)
      if (int64_t(elems(t, g).size()) != int64_t(p.groups[g].size())) {
        why = "a thread holds an element twice";
        return failure();
      }
  // 2. Lane masks: the key is kept and the combined lanes hold disjoint
  // elements.
  for (int64_t m = 1; m < warpSize; m <<= 1) {
    SmallVector<int64_t> orbit{0};
    for (int64_t a : p.masks) {
      size_t n = orbit.size();
      for (size_t i = 0; i < n; ++i)
        orbit.push_back(orbit[i] ^ a);
    }
    bool ok = true;
    for (int64_t t = 0; t < threads && ok; ++t) {
      int64_t tm = t ^ m;
      if (tm >= threads) {
        ok = false;
        break;
      }
      for (size_t g = 0; g < p.groups.size() && ok; ++g) {
        if (key(tm, p.groups[g][0]) != key(t, p.groups[g][0])) {
          ok = false;
          break;
        }
        std::set<int64_t> mine;
        for (int64_t x : orbit) {
          std::set<int64_t> s = elems(t ^ x, g);
          mine.insert(s.begin(), s.end());
        }
        for (int64_t x : orbit)
          for (int64_t e : elems(tm ^ x, g))
            if (mine.count(e))
              ok = false;
      }
    }
    if (ok)
      p.masks.push_back(m);
  }
  SmallVector<int64_t> orbit{0};
  for (int64_t a : p.masks) {
    size_t n = orbit.size();
    for (size_t i = 0; i < n; ++i)
      orbit.push_back(orbit[i] ^ a);
  }
  // Per warp and output coordinate: the elements the warp holds, and the
  // elements each lane has combined; they must agree.
  int64_t warps = (threads + warpSize - 1) / warpSize;
  std::map<std::pair<int64_t, int64_t>, std::set<int64_t>> perWarp;
  std::map<int64_t, std::set<int64_t>> warpsOfKey;
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g) {
      std::set<int64_t> s = elems(t, g);
      perWarp[{t / warpSize, key(t, p.groups[g][0])}].insert(s.begin(),
                                                             s.end());
      warpsOfKey[key(t, p.groups[g][0])].insert(t / warpSize);
    }
  for (int64_t t = 0; t < threads; ++t)
    for (size_t g = 0; g < p.groups.size(); ++g) {
      std::set<int64_t> got;
      for (int64_t x : orbit) {
        std::set<int64_t> s = elems(t ^ x, g);
        got.insert(s.begin(), s.end());
      }
      if (got != perWarp[{t / warpSize, key(t, p.groups[g][0])}]) {
        why = "the lanes of a warp that hold one output element cannot be "
              "combined with xor shuffles";
        return failure();
      }
    }
  // 3. Across warps: the warps' element sets of a key must be disjoint.
  for (auto &[k, ws] : warpsOfKey) {
    if (ws.size() < 2)
      continue;
    p.crossWarp = true;
    std::set<int64_t> seen;
    for (int64_t w : ws)
      for (int64_t e : perWarp[{w, k}])
        if (!seen.insert(e).second) {
          why = "several warps hold the same element";
          return failure();
        }
  }
  (void)warps;
  // 4. Register distribution.
  if (!p.crossWarp) {
    p.inRegisters = true;
    p.cands.assign(tout.numSlots(), {});
    for (int64_t t = 0; t < threads && p.inRegisters; ++t)
      for (int64_t v = 0; v < tout.numSlots() && p.inRegisters; ++v) {
        int64_t want = rowMajor(tout.staticCoord(t, v), outShape);
        int64_t found = -1;
        for (size_t g = 0; g < p.groups.size() && found < 0; ++g)
          if (key(t, p.groups[g][0]) == want)
            found = g;
        if (found < 0) {
          p.inRegisters = false;
        } else if (!llvm::is_contained(p.cands[v], found)) {
          p.cands[v].push_back(found);
          if (p.cands[v].size() > 4)
            p.inRegisters = false;
        }
      }
  }
  return p;
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  bool fp = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Sum:
    return fp ? Value(arith::AddFOp::create(b, loc, x, y))
              : Value(arith::AddIOp::create(b, loc, x, y));
  case ReduceKind::Max:
    return fp ? Value(arith::MaximumFOp::create(b, loc, x, y))
              : Value(arith::MaxSIOp::create(b, loc, x, y));
  case ReduceKind::Min:
    return fp ? Value(arith::MinimumFOp::create(b, loc, x, y))
              : Value(arith::MinSIOp::create(b, loc, x, y));
  }
  return x;
}

Value identity(OpBuilder &b, Location loc, ReduceKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    double v = kind == ReduceKind::Sum ? 0.0
               : kind == ReduceKind::Max
                   ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, v));
  }
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = kind == ReduceKind::Sum   ? APInt(w, 0)
            : kind == ReduceKind::Max ? APInt::getSignedMinValue(w)
                                      : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

/// argus.reduce: (1) each thread combines its slots per output coordinate,
/// (2) xor shuffles combine the lanes of a warp that hold the same output
/// coordinates, (3) if several warps hold an output coordinate, their
/// partials meet in the shared scratch, (4) the result layout is filled
/// from registers when every thread holds its outputs, else from the
/// scratch. Every step is checked at compile time over all (thread, slot).
struct ReduceLowering : ArgusPattern<ReduceOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType inT = op.getInput().getType(), outT = op.getType();
    std::optional<L::Layout> li = regLayout(inT), lo = regLayout(outT);
    if (!li || !lo)
      return failure();
    auto outVT = cast<VectorType>(getTypeConverter()->convertType(outT));
    int64_t dim = op.getDim();
    int64_t T = k.numThreads();
    Value tid = linearThreadId(rewriter, loc, k);
    ThreadCoords tin(rewriter, loc, *li, inT.getShape(), tid);
    ThreadCoords tout(rewriter, loc, *lo, outT.getShape(), tid);
    if (tin.numThreads() != T || tout.numThreads() != T)
      return op.emitOpError()
             << "lowering needs layouts over all " << T << " threads";
    std::string why;
    FailureOr<ReducePlan> plan = planReduce(
        tin, tout, T, k.warpSize, dim, inT.getShape(), outT.getShape(), why);
    if (failed(plan))
      return op.emitOpError() << "cannot be lowered: " << why;
    ReduceKind kind = op.getKind();
    Value in = adaptor.getInput();
    Type elem = outT.getElementType();
    SmallVector<Value> part;
    for (auto &g : plan->groups) {
      Value x = extractSlot(rewriter, loc, in, g[0]);
      for (size_t i = 1; i < g.size(); ++i)
        x = combine(rewriter, loc, kind, x,
                    extractSlot(rewriter, loc, in, g[i]));
      part.push_back(x);
    }
    for (int64_t m : plan->masks)
      for (Value &x : part) {
        Value y =
            gpu::ShuffleOp::create(rewriter, loc, x, int32_t(m),
                                   int32_t(k.warpSize), gpu::ShuffleMode::XOR)
                .getShuffleResult();
        x = combine(rewriter, loc, kind, x, y);
      }
    auto keyCoord = [&](int64_t slot) {
      return dropDim(tin.coord(rewriter, loc, slot), dim);
    };
    Value acc = arith::ConstantOp::create(rewriter, loc, outVT,
                                          rewriter.getZeroAttr(outVT));
    if (plan->inRegisters) {
      for (int64_t v = 0; v < tout.numSlots(); ++v) {
        auto &c = plan->cands[v];
        Value x = part[c[0]];
        if (c.size() > 1) {
          SmallVector<Value> oc = tout.coord(rewriter, loc, v);
          for (size_t i = 1; i < c.size(); ++i) {
            SmallVector<Value> kc = keyCoord(plan->groups[c[i]][0]);
            Value eq = arith::ConstantIntOp::create(rewriter, loc,
                                                    rewriter.getI1Type(), 1);
            for (size_t d = 0; d < kc.size(); ++d)
              eq = arith::AndIOp::create(
                  rewriter, loc, eq,
                  arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        kc[d], oc[d]));
            x = arith::SelectOp::create(rewriter, loc, eq, part[c[i]], x);
          }
        }
        acc = vector::InsertOp::create(rewriter, loc, x, acc, v);
      }
      rewriter.replaceOp(op, acc);
      return success();
    }
    Value scratch = getScratch(rewriter, loc, op, elem);
    if (!scratch)
      return op.emitOpError() << "no shared scratch for the exchange";
    int64_t outSize = numElements(outT);
    int64_t warps = plan->crossWarp ? (T + k.warpSize - 1) / k.warpSize : 1;
    Value warpOff = cidx(rewriter, loc, 0);
    if (plan->crossWarp) {
      // Identity first: a warp that holds no element of an output writes
      // nothing there.
      Value id = identity(rewriter, loc, kind, elem);
      for (int64_t i = 0; i < warps * outSize; i += T) {
        Value idx =
            arith::AddIOp::create(rewriter, loc, tid, cidx(rewriter, loc, i));
        if (i + T <= warps * outSize) {
          memref::StoreOp::create(rewriter, loc, id, scratch, idx);
          continue;
        }
        auto inside =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, idx,
                                  cidx(rewriter, loc, warps * outSize));
        auto ifOp = scf::IfOp::create(rewriter, loc, inside, false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
        memref::StoreOp::create(rewriter, loc, id, scratch, idx);
      }
      gpu::BarrierOp::create(rewriter, loc);
      warpOff = arith::MulIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc, tid,
                                 cidx(rewriter, loc, k.warpSize)),
          cidx(rewriter, loc, outSize));
    }
    for (size_t g = 0; g < part.size(); ++g) {
      Value idx = arith::AddIOp::create(
          rewriter, loc, warpOff,
          rowMajorValue(rewriter, loc, keyCoord(plan->groups[g][0]),
                        outT.getShape()));
      memref::StoreOp::create(rewriter, loc, part[g], scratch, idx);
    }
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t v = 0; v < tout.numSlots(); ++v) {
      Value o = rowMajorValue(rewriter, loc, tout.coord(rewriter, loc, v),
                              outT.getShape());
      Value x;
      for (int64_t w = 0; w < warps; ++w) {
        Value y = memref::LoadOp::create(
            rewriter, loc, scratch,
            ValueRange{arith::AddIOp::create(
                rewriter, loc, o, cidx(rewriter, loc, w * outSize))});
        x = x ? combine(rewriter, loc, kind, x, y) : y;
      }
      acc = vector::InsertOp::create(rewriter, loc, x, acc, v);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, acc);
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

  /// convert_layout followed only by a narrowing convert exchanges the
  /// narrow values instead (the conversion is elementwise, so it commutes
  /// with the redistribution): half the shared scratch for f32 -> f16.
  void narrowExchanges(gpu::GPUFuncOp gfn) {
    SmallVector<ConvertLayoutOp> cls;
    gfn.walk([&](ConvertLayoutOp c) { cls.push_back(c); });
    for (ConvertLayoutOp cl : cls) {
      if (!cl->hasOneUse())
        continue;
      auto cv = dyn_cast<ConvertOp>(*cl->getUsers().begin());
      if (!cv)
        continue;
      TileType in = cl.getInput().getType(), out = cv.getType();
      if (out.getElementType().getIntOrFloatBitWidth() >=
          in.getElementType().getIntOrFloatBitWidth())
        continue;
      OpBuilder b(cl);
      auto narrowIn =
          TileType::get(in.getContext(), in.getShape(), out.getElementType(),
                        in.getMemorySpace(), in.getLayout());
      Value c = ConvertOp::create(b, cl.getLoc(), narrowIn, cl.getInput());
      Value x = ConvertLayoutOp::create(b, cl.getLoc(), out, c);
      cv.replaceAllUsesWith(x);
      cv.erase();
      cl.erase();
    }
  }

  /// One shared scratch per element type for the kernel's exchanges
  /// (reduce, broadcast, convert_layout), sized by the largest.
  void createScratch(gpu::GPUFuncOp gfn, gpu::GPUModuleOp mod) {
    KernelInfo k = getKernelInfo(gfn);
    int64_t warps = (k.numThreads() + k.warpSize - 1) / k.warpSize;
    llvm::MapVector<Type, int64_t> need;
    gfn.walk([&](Operation *op) {
      int64_t n = 0;
      Type e;
      if (auto c = dyn_cast<ConvertLayoutOp>(op)) {
        n = numElements(c.getInput().getType());
        e = c.getType().getElementType();
      } else if (auto c = dyn_cast<BroadcastOp>(op)) {
        n = numElements(c.getInput().getType());
        e = c.getType().getElementType();
      } else if (auto c = dyn_cast<ReduceOp>(op)) {
        n = warps * numElements(c.getType());
        e = c.getType().getElementType();
      } else {
        return;
      }
      need[e] = std::max(need[e], n);
    });
    OpBuilder b(mod.getBody(), mod.getBody()->begin());
    for (auto [e, n] : need) {
      auto type = MemRefType::get(
          {n}, e, MemRefLayoutAttrInterface(),
          IntegerAttr::get(IntegerType::get(gfn.getContext(), 64),
                           kSharedSpace));
      memref::GlobalOp::create(b, gfn.getLoc(), scratchName(gfn.getName(), e),
                               b.getStringAttr("private"), type, Attribute(),
                               /*constant=*/false, b.getI64IntegerAttr(16));
    }
  }

  LogicalResult convertKernel(ModuleOp top, func::FuncOp fn) {
    auto kattr = fn->getAttrOfType<KernelAttr>("argus.kernel");
    std::string chip = target.empty() ? kattr.getTarget().str() : target;
    if (chip == "sm_90")
      chip = "sm_90a"; // the examples' instructions need the arch-specific PTX
    if (fn.getBody().getBlocks().size() != 1)
      return fn.emitOpError() << "argus-to-gpu: kernels must have one block";
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
    if (minBlocksPerSM > 0 && !StringRef(chip).starts_with("gfx"))
      gfn->setAttr("nvvm.minctasm", b.getI32IntegerAttr(minBlocksPerSM));
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
    narrowExchanges(gfn);
    createScratch(gfn, mod);

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
             StoreLowering, CopyLowering<CopyOp>, CopyLowering<CopyAsyncOp>,
             CommitGroupLowering, WaitGroupLowering, BarrierLowering,
             MmaLowering, FillLowering, TagLowering, EraseLowering<TagAssertOp>,
             EraseLowering<RegionBeginOp>, EraseLowering<RegionEndOp>,
             BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
             BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
             BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
             BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp>,
             BinaryLowering<MaxOp, arith::MaximumFOp, arith::MaxSIOp>,
             UnaryFloatLowering<ExpOp, math::ExpOp>,
             UnaryFloatLowering<Exp2Op, math::Exp2Op>,
             UnaryFloatLowering<NegOp, arith::NegFOp>, ScaleLowering,
             ConvertLowering>(tc, ctx);
    patterns.add<LoadLowering>(tc, ctx, ldmatrix.getValue());
    patterns.add<GatherViewLowering, ReduceLowering, BroadcastLowering,
                 ConvertLayoutLowering>(tc, ctx);
    if (failed(applyPartialConversion(top, tgt, std::move(patterns))))
      return signalPassFailure();
    // Gather views whose accesses are all lowered.
    SmallVector<UnrealizedConversionCastOp> gathers;
    top.walk([&](UnrealizedConversionCastOp c) {
      if (c->hasAttr(kGatherAttr))
        gathers.push_back(c);
    });
    for (UnrealizedConversionCastOp c : gathers) {
      if (!c->use_empty())
        return (void)(c.emitError("a gathered view is used by an op that "
                                  "cannot read it (copy, load, store only)"),
                      signalPassFailure());
      c.erase();
    }
    // The bookkeeping attributes are not needed past this point.
    top.walk([](gpu::GPUFuncOp f) {
      f->removeAttr("argus_chip");
      f->removeAttr("argus_block");
      f->removeAttr("argus_probes");
    });
  }
};

} // namespace
