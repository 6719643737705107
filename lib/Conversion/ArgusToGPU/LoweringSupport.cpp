//===- LoweringSupport.cpp - what every argus-to-gpu lowering uses --------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

using namespace mlir;
using namespace mlir::argus;

KernelInfo mlir::argus::getKernelInfo(Operation *op) {
  KernelInfo k;
  Operation *fn = isa<gpu::GPUFuncOp>(op)
                      ? op
                      : op->getParentOfType<gpu::GPUFuncOp>().getOperation();
  for (Operation *p = op; p && p != fn; p = p->getParentOp())
    if (auto role = p->getAttrOfType<DenseI64ArrayAttr>(kRoleAttr)) {
      k.roleFirstThread = role[0];
      k.roleThreads = role[1];
      k.roleBarrierId = role.size() > 2 ? role[2] : 0;
      break;
    }
  // Outside an outlined kernel (argus-to-gpu rejects such ops before any
  // pattern runs): the defaults, never a null function.
  if (fn)
    if (auto attr = fn->getAttrOfType<StringAttr>("argus_chip"))
      k.chip = attr.str();
  k.target = &TargetInfo::get(k.chip);
  k.warpSize = k.target->getWarpSize();
  if (!fn)
    return k;
  if (auto cl = fn->getAttrOfType<DenseI64ArrayAttr>(kClusterAttr))
    for (int64_t d : cl.asArrayRef())
      k.clusterSize *= d;
  if (auto blk = fn->getAttrOfType<DenseI64ArrayAttr>("argus_block"))
    for (auto [i, v] : llvm::enumerate(blk.asArrayRef()))
      if (i < 3)
        k.block[i] = v;
  return k;
}

Value mlir::argus::linearThreadId(OpBuilder &b, Location loc,
                                  const KernelInfo &k) {
  Value tid = blockThreadId(b, loc, k);
  if (k.roleFirstThread == 0)
    return tid;
  return arith::SubIOp::create(b, loc, tid, cidx(b, loc, k.roleFirstThread));
}

Value mlir::argus::blockThreadId(OpBuilder &b, Location loc,
                                 const KernelInfo &k) {
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

std::optional<RegisterThreads> mlir::argus::registerThreads(OpBuilder &b,
                                                            Location loc,
                                                            const KernelInfo &k,
                                                            TileType t) {
  std::optional<L::Layout> tv = regLayout(t);
  if (!tv)
    return std::nullopt;
  Value tid = linearThreadId(b, loc, k);
  return RegisterThreads{*tv, tid,
                         ThreadCoords(b, loc, *tv, t.getShape(), tid)};
}

Value mlir::argus::constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value mlir::argus::constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value mlir::argus::zeroVector(OpBuilder &b, Location loc, VectorType vt) {
  return arith::ConstantOp::create(b, loc, vt, b.getZeroAttr(vt));
}

Value mlir::argus::floatSplat(OpBuilder &b, Location loc, VectorType vt,
                              double v) {
  return arith::ConstantOp::create(
      b, loc, vt,
      DenseElementsAttr::get(vt, b.getFloatAttr(vt.getElementType(), v)));
}

Value mlir::argus::perSlot(OpBuilder &b, Location loc, Value x,
                           function_ref<Value(Value)> f) {
  auto vt = cast<VectorType>(x.getType());
  Value r = zeroVector(b, loc, vt);
  for (int64_t i = 0; i < vt.getNumElements(); ++i) {
    Value e = vector::ExtractOp::create(b, loc, x, i);
    r = vector::InsertOp::create(b, loc, f(e), r, i);
  }
  return r;
}

Value mlir::argus::intrinsicPerSlot(OpBuilder &b, Location loc, Value x,
                                    StringRef name) {
  Type t = cast<VectorType>(x.getType()).getElementType();
  return perSlot(b, loc, x, [&](Value e) {
    return LLVM::CallIntrinsicOp::create(b, loc, t, b.getStringAttr(name),
                                         ValueRange{e})
        .getResult(0);
  });
}

std::optional<L::Layout> mlir::argus::regLayout(TileType t) {
  FailureOr<L::Layout> l = getRegisterLayout(t);
  if (failed(l))
    return std::nullopt;
  return *l;
}

L::SwizzledLayout mlir::argus::memLayout(TileType t) {
  if (auto l = dyn_cast_or_null<LayoutAttr>(t.getLayout()))
    return l.getLayout();
  // Default: row-major over the logical shape.
  std::vector<L::IntTuple> shp(t.getShape().begin(), t.getShape().end());
  return L::SwizzledLayout(L::Layout::compactRowMajor(L::IntTuple::tuple(shp)));
}

int64_t mlir::argus::memCosize(TileType t) { return memLayout(t).cosize(); }

int64_t mlir::argus::numElements(TileType t) {
  int64_t n = 1;
  for (int64_t s : t.getShape())
    n *= s;
  return n;
}

int64_t mlir::argus::elemBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

Attribute mlir::argus::addressSpace(MLIRContext *ctx, unsigned space) {
  return IntegerAttr::get(IntegerType::get(ctx, 64), space);
}

MemRefType mlir::argus::sharedArrayType(int64_t n, Type elem) {
  return MemRefType::get({n}, elem, MemRefLayoutAttrInterface(),
                         addressSpace(elem.getContext(), kSharedSpace));
}

Value mlir::argus::extractSlots(OpBuilder &b, Location loc, Value vec,
                                int64_t v, int64_t n) {
  if (n == 1)
    return vector::ExtractOp::create(b, loc, vec, v);
  return vector::ExtractStridedSliceOp::create(
      b, loc, vec, ArrayRef<int64_t>{v}, ArrayRef<int64_t>{n},
      ArrayRef<int64_t>{1});
}

Value mlir::argus::insertSlots(OpBuilder &b, Location loc, Value x, Value acc,
                               int64_t v, int64_t n) {
  if (n == 1)
    return vector::InsertOp::create(b, loc, x, acc, v);
  return vector::InsertStridedSliceOp::create(
      b, loc, x, acc, ArrayRef<int64_t>{v}, ArrayRef<int64_t>{1});
}

Value mlir::argus::loadRun(OpBuilder &b, Location loc, Value mem,
                           ValueRange idx, Type elem, int64_t n) {
  if (n == 1)
    return memref::LoadOp::create(b, loc, mem, idx);
  auto vt = VectorType::get({n}, elem);
  auto op = vector::LoadOp::create(b, loc, vt, mem, idx);
  op.setAlignment(uint64_t(n * elemBytes(elem)));
  return op;
}

void mlir::argus::storeRun(OpBuilder &b, Location loc, Value val, Value mem,
                           ValueRange idx, Type elem, int64_t n) {
  if (n == 1) {
    memref::StoreOp::create(b, loc, val, mem, idx);
    return;
  }
  auto op = vector::StoreOp::create(b, loc, val, mem, idx);
  op.setAlignment(uint64_t(n * elemBytes(elem)));
}

LLVM::InlineAsmOp mlir::argus::inlinePtx(OpBuilder &b, Location loc,
                                         TypeRange results, ValueRange args,
                                         StringRef asmString,
                                         StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, args, asmString, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

void mlir::argus::clusterBarrier(OpBuilder &b, Location loc) {
  inlinePtx(b, loc, {}, {},
            "barrier.cluster.arrive.release.aligned;\n"
            "barrier.cluster.wait.acquire.aligned;",
            "");
}

Value mlir::argus::sharedAddress32(OpBuilder &b, Location loc, Value mem) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, mem);
  auto mt = cast<MemRefType>(mem.getType());
  Value bytes = arith::MulIOp::create(
      b, loc, md.getOffset(), cidx(b, loc, elemBytes(mt.getElementType())));
  Value addr = arith::AddIOp::create(b, loc, base, bytes);
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), addr);
}
