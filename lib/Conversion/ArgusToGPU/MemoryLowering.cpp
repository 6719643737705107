//===- MemoryLowering.cpp - argus memory ops to memref/vector/nvgpu -------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// view, gather_view, im2col_view, alloc, stage, transpose/reinterpret of shared
// tiles, transpose of global tiles (loads and stores swap the coordinates),
// load, store, copy, copy_async, commit_group, wait_group and barrier.
// Every thread evaluates the tile's (thread, slot) -> coordinate layout and
// unrolls over its slots, in the widest vector accesses the layouts allow.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"
#include "TileAccess.h"

#include "argus/Dialect/ReplicaUniformity.h"
#include "argus/Layout/Replication.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

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
    Location loc = op.getLoc();
    Value sv = memref::SubViewOp::create(rewriter, loc, adaptor.getTensor(),
                                         offsets, sizes, strides);
    if (sv.getType() != resultType)
      sv = memref::CastOp::create(rewriter, loc, resultType, sv);
    if (!op.getClipped()) {
      rewriter.replaceOp(op, sv);
      return success();
    }
    // A boundary tile: how many of its rows / columns lie inside the
    // tensor, cut at the view's bounds if it has them (none when the window
    // starts past the end).
    SmallVector<Value> inputs{sv};
    for (auto [k, off] : llvm::enumerate(adaptor.getOffsets())) {
      Value dim = memref::DimOp::create(rewriter, loc, adaptor.getTensor(),
                                        static_cast<int64_t>(k));
      if (!adaptor.getBounds().empty())
        dim =
            arith::MinUIOp::create(rewriter, loc, dim, adaptor.getBounds()[k]);
      Value inside = arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::ult, off, dim);
      Value rest = arith::SubIOp::create(rewriter, loc, dim, off);
      inputs.push_back(arith::SelectOp::create(rewriter, loc, inside, rest,
                                               cidx(rewriter, loc, 0)));
    }
    auto c =
        UnrealizedConversionCastOp::create(rewriter, loc, resultType, inputs);
    c->setAttr(kClipAttr, rewriter.getUnitAttr());
    rewriter.replaceOp(op, c.getResult(0));
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

struct Im2colViewLowering : ArgusPattern<Im2colViewOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(Im2colViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter()->convertType(op.getType());
    auto c = UnrealizedConversionCastOp::create(
        rewriter, op.getLoc(), resultType,
        ValueRange{adaptor.getTensor(), adaptor.getRow(), adaptor.getCol()});
    SmallVector<int64_t> geometry;
    for (ArrayRef<int64_t> g :
         {op.getWindow(), op.getStride(), op.getPad(), op.getDilation()})
      geometry.append(g.begin(), g.end());
    c->setAttr(kIm2colAttr, rewriter.getUnitAttr());
    c->setAttr(kIm2colGeometry, rewriter.getDenseI64ArrayAttr(geometry));
    rewriter.replaceOp(op, c.getResult(0));
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
    if (!fn || !mod) // argus-to-gpu reports ops outside kernels first
      return rewriter.notifyMatchFailure(op, "not in an outlined kernel");
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
/// A transposed global tile becomes a marker over the input's memref (or
/// clip marker) that loads and stores read with swapped coordinates.
template <typename OpT> struct SameBytesLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileType t = op.getType();
    Type resultType = this->getTypeConverter()->convertType(t);
    Value in = adaptor.getInput();
    if constexpr (std::is_same_v<OpT, TransposeOp>) {
      if (t.getMemorySpace() == MemorySpace::Global) {
        if (gatherOf(in) || im2colOf(in) || transposeOf(in))
          return op.emitOpError()
                 << "transposes a gathered, im2col or transposed global "
                    "view; only plain and clipped views are lowered";
        auto c = UnrealizedConversionCastOp::create(rewriter, op.getLoc(),
                                                    resultType, in);
        c->setAttr(kTransposeAttr, rewriter.getUnitAttr());
        rewriter.replaceOp(op, c.getResult(0));
        return success();
      }
    }
    if (t.getMemorySpace() != MemorySpace::Shared)
      return rewriter.notifyMatchFailure(op, "only shared tiles");
    if (in.getType() != resultType)
      in = memref::CastOp::create(rewriter, op.getLoc(), resultType, in);
    rewriter.replaceOp(op, in);
    return success();
  }
};

/// Whether the clipped view `clip` of `tile` holds the whole tile (its
/// extent in every dimension is at least the tile's): a tile inside the
/// tensor, not a boundary one.
static Value wholeTile(OpBuilder &b, Location loc,
                       UnrealizedConversionCastOp clip, TileType tile) {
  Value whole = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (auto [ext, size] :
       llvm::zip(clip.getInputs().drop_front(), tile.getShape()))
    whole = arith::AndIOp::create(
        b, loc, whole,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, ext,
                              cidx(b, loc, size)));
  return whole;
}

struct LoadLowering : ArgusPattern<LoadOp> {
  LoadLowering(const TypeConverter &tc, MLIRContext *ctx, bool useLdMatrix)
      : ArgusPattern(tc, ctx), useLdMatrix(useLdMatrix) {}
  bool useLdMatrix;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    Location loc = op.getLoc();
    TileType src = op.getSource().getType(), dst = op.getType();
    std::optional<RegisterThreads> rt = registerThreads(rewriter, loc, k, dst);
    if (!rt)
      return failure();
    auto vt = cast<VectorType>(getTypeConverter()->convertType(dst));
    const ThreadCoords &tc = rt->coords;
    if (useLdMatrix) {
      if (Value r = loadWithLdMatrix(rewriter, loc, k, rt->layout, rt->tid, tc,
                                     adaptor.getSource(), src, dst, vt)) {
        rewriter.replaceOp(op, r);
        return success();
      }
    }
    // A transposed global source: the input tile at swapped coordinates.
    Value source0 = adaptor.getSource();
    bool swapped = false;
    if (auto tr = transposeOf(source0)) {
      source0 = tr.getInputs()[0];
      src = transposedGlobal(op.getSource()).second;
      if (!src)
        return op.emitOpError()
               << "loads through a transposed global view that reaches it "
                  "through a loop or branch; hint: transpose the view where "
                  "it is loaded";
      swapped = true;
    }
    int64_t n =
        swapped ? transposedVectorWidth(tc, k.numThreads(), src,
                                        dst.getElementType())
                : vectorWidth(tc, k.numThreads(), {src}, dst.getElementType());
    auto loadAll = [&](Value source) {
      Value acc = zeroVector(rewriter, loc, vt);
      for (int64_t v = 0; v < tc.numSlots(); v += n) {
        SmallVector<Value> c = tc.coord(rewriter, loc, v);
        if (swapped)
          std::swap(c[0], c[1]);
        Value x =
            loadElems(rewriter, loc, source, src, c, n,
                      op.getOther().value_or(TypedAttr()),
                      swapped ? std::nullopt
                              : gatherRowSlot(op.getSource(), tc,
                                              rt->layout.mode(0).size(), v));
        acc = insertSlots(rewriter, loc, x, acc, v, n);
      }
      return acc;
    };
    auto clip = clipOf(source0);
    if (!clip) {
      rewriter.replaceOp(op, loadAll(source0));
      return success();
    }
    // A boundary tile, as for stores: the tiles inside the tensor load
    // without a check per element (a branch around every vector load keeps
    // the loads of a row from being issued together).
    Value whole = wholeTile(rewriter, loc, clip, src);
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{vt}, whole,
                                  /*withElse=*/true);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(rewriter, loc, loadAll(clip.getInputs()[0]));
    rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(rewriter, loc, loadAll(source0));
    rewriter.replaceOp(op, ifOp.getResult(0));
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
    std::optional<RegisterThreads> rt = registerThreads(rewriter, loc, k, src);
    if (!rt)
      return failure();
    const ThreadCoords &tc = rt->coords;
    std::optional<AtomicKind> atomic = op.getAtomic();
    // A transposed global destination: the input tile at swapped
    // coordinates.
    Value dest0 = adaptor.getDest();
    bool swapped = false;
    if (auto tr = transposeOf(dest0)) {
      if (atomic)
        return op.emitOpError() << "accumulates into a transposed global "
                                   "view; hint: store into the view itself";
      dest0 = tr.getInputs()[0];
      dst = transposedGlobal(op.getDest()).second;
      if (!dst)
        return op.emitOpError()
               << "stores through a transposed global view that reaches it "
                  "through a loop or branch; hint: transpose the view where "
                  "it is stored";
      swapped = true;
    }
    // Atomics are scalar read-modify-writes.
    int64_t n = atomic    ? 1
                : swapped ? transposedVectorWidth(tc, k.numThreads(), dst,
                                                  src.getElementType())
                          : vectorWidth(tc, k.numThreads(), {dst},
                                        src.getElementType());
    if (atomic && L::isReplicated(rt->layout) && !op->hasAttr(kStoreOnceAttr))
      return op.emitOpError()
             << "accumulates a replicated register tile whose replicas are "
                "not known to be equal: every replica would add its value; "
                "hint: accumulate a tile computed by argus.reduce, a load or "
                "elementwise ops of such tiles, or argus.convert_layout it "
                "to a layout without replicas (argus.copy_layout)";
    // A replicated tile whose replicas hold equal values stores each global
    // element once, from its first holder (argus/Layout/Replication.h; the
    // verifier's model too). Other replicated tiles store from every holder.
    std::vector<int64_t> masks(tc.numSlots(), 0);
    if (dst.getMemorySpace() == MemorySpace::Global &&
        L::isReplicated(rt->layout) && op->hasAttr(kStoreOnceAttr)) {
      std::optional<std::vector<int64_t>> m = L::firstHolderMasks(rt->layout);
      if (!m)
        return op.emitOpError()
               << "stores a register tile whose layout holds an element in "
                  "two slots of one thread; hint: convert_layout to a "
                  "layout that replicates over threads only";
      masks = *m;
      for (int64_t v = 0; v < tc.numSlots(); v += n)
        for (int64_t i = 1; i < n; ++i)
          if (masks[v + i] != masks[v])
            n = 1;
    }
    auto storeAll = [&](Value dest) {
      for (int64_t v = 0; v < tc.numSlots(); v += n) {
        OpBuilder::InsertionGuard g(rewriter);
        if (masks[v]) {
          Value bits = arith::AndIOp::create(rewriter, loc, rt->tid,
                                             cidx(rewriter, loc, masks[v]));
          Value writer =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    bits, cidx(rewriter, loc, 0));
          auto ifOp = scf::IfOp::create(rewriter, loc, writer, false);
          rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
        }
        Value x = extractSlots(rewriter, loc, adaptor.getValue(), v, n);
        SmallVector<Value> c = tc.coord(rewriter, loc, v);
        if (swapped)
          std::swap(c[0], c[1]);
        if (atomic)
          atomicElem(rewriter, loc, *atomic, x, dest, dst, c);
        else
          storeElems(rewriter, loc, x, dest, dst, c, n,
                     swapped ? std::nullopt
                             : gatherRowSlot(op.getDest(), tc,
                                             rt->layout.mode(0).size(), v));
      }
    };
    auto clip = clipOf(dest0);
    if (!clip) {
      storeAll(dest0);
      rewriter.eraseOp(op);
      return success();
    }
    // A boundary tile: the tiles inside the tensor (all but the last row
    // and column of tiles) store without a check per element.
    Value whole = wholeTile(rewriter, loc, clip, dst);
    auto ifOp = scf::IfOp::create(rewriter, loc, whole, /*withElse=*/true);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    storeAll(clip.getInputs()[0]);
    rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
    storeAll(dest0);
    rewriter.setInsertionPointAfter(ifOp);
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
    // Boundary tiles and im2col windows read only what exists (zero
    // outside): an asynchronous copy of such a source zero-fills with
    // cp.async's source size, other copies go element by element.
    bool clipped = clipOf(adaptor.getSource()) || clipOf(adaptor.getDest()) ||
                   im2colOf(adaptor.getSource());
    bool async = std::is_same_v<OpT, CopyAsyncOp> && k.target->hasAsyncCopy() &&
                 !clipOf(adaptor.getDest()) &&
                 src.getMemorySpace() == MemorySpace::Global &&
                 dst.getMemorySpace() == MemorySpace::Shared &&
                 (bytes == 4 || bytes == 8 || bytes == 16);
    for (int64_t v = 0; v < tc.numSlots(); v += n) {
      SmallVector<Value> c = tc.coord(rewriter, loc, v);
      if (async && clipped) {
        if (copyBoundedAsync(rewriter, loc, op, adaptor, tc, c, v, n,
                             layoutThreads))
          continue;
      } else if (async) {
        Value dMem = adaptor.getDest(), sMem = adaptor.getSource();
        SmallVector<Value> dIdx =
            memIndices(rewriter, loc, dMem, dst, c,
                       gatherRowSlot(op.getDest(), tc, layoutThreads, v));
        SmallVector<Value> sIdx =
            memIndices(rewriter, loc, sMem, src, c,
                       gatherRowSlot(op.getSource(), tc, layoutThreads, v));
        nvgpu::DeviceAsyncCopyOp::create(
            rewriter, loc, nvgpu::DeviceAsyncTokenType::get(op.getContext()),
            dMem, dIdx, sMem, sIdx, rewriter.getIndexAttr(n), Value(),
            bytes == 16 ? rewriter.getUnitAttr() : UnitAttr());
        continue;
      }
      Value x = loadElems(rewriter, loc, adaptor.getSource(), src, c, n, {},
                          gatherRowSlot(op.getSource(), tc, layoutThreads, v));
      storeElems(rewriter, loc, x, adaptor.getDest(), dst, c, n,
                 gatherRowSlot(op.getDest(), tc, layoutThreads, v));
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// One cp.async of the run at `c` from a clipped or im2col source: the
  /// elements that exist, zero-filled to n; zeros stored when none does;
  /// element by element when the run is not a prefix of existing elements.
  /// False (nothing emitted) when the source is neither.
  static bool copyBoundedAsync(ConversionPatternRewriter &rewriter,
                               Location loc, OpT op,
                               typename OpT::Adaptor adaptor,
                               const ThreadCoords &tc, ArrayRef<Value> c,
                               int64_t v, int64_t n, int64_t layoutThreads) {
    TileType src = op.getSource().getType(), dst = op.getDest().getType();
    std::optional<BoundedRun> run =
        boundedRun(rewriter, loc, adaptor.getSource(), c, n);
    if (!run)
      return false;
    std::optional<int64_t> dSlot =
        gatherRowSlot(op.getDest(), tc, layoutThreads, v);
    std::optional<int64_t> sSlot =
        gatherRowSlot(op.getSource(), tc, layoutThreads, v);
    OpBuilder::InsertionGuard guard(rewriter);
    scf::IfOp exact;
    if (run->exact) {
      exact = scf::IfOp::create(rewriter, loc, run->exact, true);
      rewriter.setInsertionPointToStart(&exact.getThenRegion().front());
    }
    Value any = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                      run->count, cidx(rewriter, loc, 0));
    auto some = scf::IfOp::create(rewriter, loc, any, true);
    rewriter.setInsertionPointToStart(&some.getThenRegion().front());
    Value dMem = adaptor.getDest();
    SmallVector<Value> dIdx = memIndices(rewriter, loc, dMem, dst, c, dSlot);
    int64_t bytes = n * elemBytes(src.getElementType());
    nvgpu::DeviceAsyncCopyOp::create(
        rewriter, loc, nvgpu::DeviceAsyncTokenType::get(op.getContext()), dMem,
        dIdx, run->mem, run->idx, rewriter.getIndexAttr(n), run->count,
        bytes == 16 ? rewriter.getUnitAttr() : UnitAttr());
    // Nothing exists (the padding, past the matrix or the tensor): the
    // source address may be anywhere, so store the zeros instead.
    rewriter.setInsertionPointToStart(&some.getElseRegion().front());
    Type elem = src.getElementType();
    TypedAttr zero = cast<TypedAttr>(rewriter.getZeroAttr(elem));
    Value zeros = arith::ConstantOp::create(
        rewriter, loc,
        n == 1 ? zero
               : DenseElementsAttr::get(VectorType::get({n}, elem), zero));
    storeElems(rewriter, loc, zeros, adaptor.getDest(), dst, c, n, dSlot);
    if (!exact)
      return true;
    rewriter.setInsertionPointToStart(&exact.getElseRegion().front());
    Value x =
        loadElems(rewriter, loc, adaptor.getSource(), src, c, n, {}, sSlot);
    storeElems(rewriter, loc, x, adaptor.getDest(), dst, c, n, dSlot);
    return true;
  }
};

/// commit_group / wait_group: cp.async groups where the target has cp.async
/// (NVIDIA); elsewhere the copies were synchronous, so nothing.
template <typename OpT> struct AsyncGroupLowering : ArgusPattern<OpT> {
  using ArgusPattern<OpT>::ArgusPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (this->kernel(op).target->hasAsyncCopy()) {
      if constexpr (std::is_same_v<OpT, CommitGroupOp>)
        NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
      else
        NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(),
                                         int32_t(op.getPending()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : ArgusPattern<BarrierOp> {
  using ArgusPattern::ArgusPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = kernel(op);
    if (!k.roleThreads) {
      rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
      return success();
    }
    // A role's barrier: its own named barrier over its threads only.
    if (!k.target->hasNamedBarriers())
      return op.emitOpError()
             << "synchronises a warp role, which needs named barriers; "
             << k.chip
             << " has only the block-wide s_barrier; hint: move the "
                "barrier out of the role";
    if (k.roleBarrierId > 15)
      return op.emitOpError()
             << "synchronises warp role number " << k.roleBarrierId
             << " but there are 16 named barriers (0 is the block's); hint: "
                "use at most 15 roles";
    inlinePtx(rewriter, op.getLoc(), {}, {},
              "bar.sync " + std::to_string(k.roleBarrierId) + ", " +
                  std::to_string(k.roleThreads) + ";",
              "");
    rewriter.eraseOp(op);
    return success();
  }
};

/// `bar.sync` / `bar.arrive` on hardware barrier 8 + slot.
template <typename Op> struct NamedBarrierLowering : ArgusPattern<Op> {
  using ArgusPattern<Op>::ArgusPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelInfo k = this->kernel(op);
    if (!k.target->hasNamedBarriers())
      return op.emitOpError() << "needs named barriers; " << k.chip
                              << " has only the block-wide s_barrier";
    if (int64_t(op.getThreads()) > k.blockThreads())
      return op.emitOpError()
             << "counts " << op.getThreads() << " threads but the block has "
             << k.blockThreads();
    // Roles synchronise on barriers 1, 2, ...: they must stay below 8.
    int64_t maxRole = 0;
    op->template getParentOfType<gpu::GPUFuncOp>().walk([&](Operation *p) {
      if (auto role = p->getAttrOfType<DenseI64ArrayAttr>(kRoleAttr);
          role && role.size() > 2)
        maxRole = std::max(maxRole, role[2]);
    });
    if (maxRole > 7)
      return op.emitOpError()
             << "named barrier slots use hardware barriers 8-15, but warp "
                "role "
             << maxRole << " synchronises on barrier " << maxRole
             << "; hint: use at most 7 roles with named barriers";
    Location loc = op.getLoc();
    Value id = arith::AddIOp::create(
        rewriter, loc,
        arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI32Type(),
                                     adaptor.getSlot()),
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 8));
    bool sync = std::is_same_v<Op, NamedBarrierSyncOp>;
    inlinePtx(rewriter, loc, {}, {id},
              std::string(sync ? "bar.sync" : "bar.arrive") + " $0, " +
                  std::to_string(op.getThreads()) + ";",
              "r");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::argus::markStoreOnce(gpu::GPUFuncOp gfn) {
  gfn.walk([&](StoreOp st) {
    TileType src = st.getValue().getType(), dst = st.getDest().getType();
    std::optional<L::Layout> l = regLayout(src);
    if (dst.getMemorySpace() == MemorySpace::Global && l &&
        L::isReplicated(*l) && isReplicaUniform(st.getValue()))
      st->setAttr(kStoreOnceAttr, UnitAttr::get(st.getContext()));
  });
}

void mlir::argus::populateMemoryLoweringPatterns(const TypeConverter &tc,
                                                 RewritePatternSet &patterns,
                                                 bool useLdMatrix) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<ViewLowering, GatherViewLowering, Im2colViewLowering, AllocLowering,
           StageLowering, SameBytesLowering<TransposeOp>,
           SameBytesLowering<ReinterpretOp>, StoreLowering,
           CopyLowering<CopyOp>, CopyLowering<CopyAsyncOp>,
           AsyncGroupLowering<CommitGroupOp>, AsyncGroupLowering<WaitGroupOp>,
           BarrierLowering, NamedBarrierLowering<NamedBarrierSyncOp>,
           NamedBarrierLowering<NamedBarrierArriveOp>>(tc, ctx);
  patterns.add<LoadLowering>(tc, ctx, useLdMatrix);
}
