//===- KernelOutlining.cpp - argus kernels into gpu.module / gpu.func -----===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Each argus kernel (func.func with argus.kernel) becomes a gpu.func kernel in
// the gpu.module of its chip, with the argus ABI: a memref argument is a
// pointer and its sizes (the row-major descriptor is rebuilt in the kernel),
// an index argument an i64, then one parameter per argus.tensor_map (the
// 128-byte CUtensorMap by value, a grid constant), and the probe buffer
// comes last.
//
//===----------------------------------------------------------------------===//

#include "LoweringPatterns.h"

#include "argus/Analysis/GridRule.h"
#include "argus/Analysis/WrittenArguments.h"
#include "argus/Dialect/Targets.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::argus;

/// The gpu.module `argus_<chip>`, created with the chip's target on first use.
static gpu::GPUModuleOp getOrCreateModule(ModuleOp top, StringRef chip) {
  std::string name = "argus_" + chip.str();
  if (auto m = top.lookupSymbol<gpu::GPUModuleOp>(name))
    return m;
  OpBuilder b(top.getContext());
  b.setInsertionPointToEnd(top.getBody());
  Attribute target =
      TargetInfo::get(chip).createTargetAttr(top.getContext(), chip);
  return gpu::GPUModuleOp::create(b, top.getLoc(), name,
                                  b.getArrayAttr({target}));
}

/// A memref<shape x elem, 1> over `ptr` with row-major strides from `sizes`.
static Value rowMajorMemRef(OpBuilder &b, Location loc, MemRefType mt,
                            Value ptr, ArrayRef<Value> sizes) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto ptrT = ptr.getType();
  int64_t r = mt.getRank();
  auto arr = LLVM::LLVMArrayType::get(i64, r);
  auto st = LLVM::LLVMStructType::getLiteral(ctx, {ptrT, ptrT, i64, arr, arr});
  Value desc = LLVM::PoisonOp::create(b, loc, st);
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
  desc = LLVM::InsertValueOp::create(b, loc, desc, zero, ArrayRef<int64_t>{2});
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
                                 addressSpace(ctx, kGlobalSpace));
  return UnrealizedConversionCastOp::create(b, loc, newType, desc).getResult(0);
}

FailureOr<gpu::GPUFuncOp>
mlir::argus::outlineKernel(ModuleOp top, func::FuncOp fn,
                           const KernelOutlining &options) {
  auto kattr = fn->getAttrOfType<KernelAttr>("argus.kernel");
  std::string chip =
      options.target.empty() ? kattr.getTarget().str() : options.target;
  // A chip LLVM does not know would only warn there and yield code for a
  // default processor.
  if (!isKernelTarget(chip))
    return emitError(fn.getLoc())
           << "argus-to-gpu: unknown target chip '" << chip << "'; hint: use "
           << formatKernelTargets();
  if (chip == "sm_90")
    chip = "sm_90a"; // the examples' instructions need the arch-specific PTX
  if (fn.getBody().getBlocks().size() != 1)
    return fn.emitOpError() << "argus-to-gpu: kernels must have one block";
  gpu::GPUModuleOp mod = getOrCreateModule(top, chip);
  MLIRContext *ctx = fn.getContext();
  auto ptrT = LLVM::LLVMPointerType::get(ctx, kGlobalSpace);
  Type i64 = IntegerType::get(ctx, 64);
  bool withProbes = options.probes && fn->hasAttr("argus_probes");
  // The parameters and, for the host, what each carries (the launch ABI).
  llvm::BitVector written = writtenArguments(fn);
  SmallVector<Type> argTypes;
  SmallVector<Attribute> params;
  auto addParam = [&](Type lowered, KernelArgKind kind, int64_t arg,
                      int64_t dim, Type type, bool w) {
    argTypes.push_back(lowered);
    params.push_back(
        KernelParamAttr::get(ctx, kind, arg, dim, type, BoolAttr::get(ctx, w)));
  };
  for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes())) {
    int64_t arg = i;
    if (auto mt = dyn_cast<MemRefType>(t)) {
      addParam(ptrT, KernelArgKind::Buffer, arg, -1, mt.getElementType(),
               written.test(i));
      for (int64_t d = 0; d < mt.getRank(); ++d)
        addParam(i64, KernelArgKind::Size, arg, d, i64, false);
    } else if (isa<IndexType>(t)) {
      addParam(i64, KernelArgKind::Index, arg, -1, i64, false);
    } else {
      addParam(t, KernelArgKind::Scalar, arg, -1, t, false);
    }
  }
  // Tensor maps, in op order: the generic address of a 128-byte, 64-byte
  // aligned by-value parameter (byval + nvvm.grid_constant are set on the
  // llvm.func, where the NVVM dialect accepts them: argus-tensor-map-params).
  SmallVector<TensorMapOp> maps;
  for (Operation &op : fn.getBody().front())
    if (auto m = dyn_cast<TensorMapOp>(op))
      maps.push_back(m);
  unsigned firstMapParam = argTypes.size();
  for (auto [i, m] : llvm::enumerate(maps))
    addParam(LLVM::LLVMPointerType::get(ctx), KernelArgKind::TensorMap,
             cast<BlockArgument>(m.getTensor()).getArgNumber(), i,
             m.getResult().getType().getElementType(), false);
  if (withProbes)
    addParam(ptrT, KernelArgKind::ProbeBuffer, -1, -1, IntegerType::get(ctx, 8),
             true);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(mod.getBody());
  auto gfn = gpu::GPUFuncOp::create(b, fn.getLoc(), fn.getName(),
                                    FunctionType::get(ctx, argTypes, {}));
  gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  SmallVector<int64_t> block(kattr.getBlock());
  block.resize(3, 1);
  gfn.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {int32_t(block[0]), int32_t(block[1]), int32_t(block[2])}));
  if (options.minBlocksPerSM > 0)
    TargetInfo::get(chip).setMinBlocksPerSM(gfn, options.minBlocksPerSM);
  if (kattr.getClusterSize() > 1) {
    SmallVector<int64_t> cluster{kattr.getClusterDim(0), kattr.getClusterDim(1),
                                 kattr.getClusterDim(2)};
    gfn->setAttr(kClusterAttr, b.getDenseI64ArrayAttr(cluster));
    gfn.setKnownClusterSizeAttr(b.getDenseI32ArrayAttr(
        {int32_t(cluster[0]), int32_t(cluster[1]), int32_t(cluster[2])}));
  }
  gfn->setAttr("argus_chip", b.getStringAttr(chip));
  gfn->setAttr("argus_block", b.getDenseI64ArrayAttr(block));
  // Read off the assumptions before the lowering erases them.
  gfn->setAttr("argus_grid", gridRule(fn));
  if (ArrayAttr indices = indexRules(fn); !indices.empty())
    gfn->setAttr("argus_indices", indices);
  gfn->setAttr(kKernelParamsAttr, b.getArrayAttr(params));
  if (auto p = fn->getAttr("argus_probes"))
    if (withProbes)
      gfn->setAttr("argus_probes", p);
  // The tensor-map ABI the host encodes the maps from (docs/Lowering.md).
  SmallVector<Attribute> mapInfo;
  for (auto [i, m] : llvm::enumerate(maps)) {
    unsigned param = firstMapParam + i;
    m->setAttr(kTensorMapParamAttr, b.getI64IntegerAttr(param));
    TensorMapType t = m.getResult().getType();
    mapInfo.push_back(TensorMapParamAttr::get(
        ctx, param, m.getName(),
        cast<BlockArgument>(m.getTensor()).getArgNumber(),
        b.getDenseI64ArrayAttr(t.getBox()), t.getElementType(), t.getSwizzle(),
        "zero", "value"));
    gfn.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(),
                   b.getI64IntegerAttr(64));
  }
  if (!mapInfo.empty())
    gfn->setAttr(kTensorMapsAttr, b.getArrayAttr(mapInfo));

  Block &entry = gfn.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  unsigned next = 0;
  Location loc = fn.getLoc();
  for (BlockArgument arg : fn.getArguments()) {
    Type t = arg.getType();
    if (auto mt = dyn_cast<MemRefType>(t)) {
      Value ptr = entry.getArgument(next++);
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < mt.getRank(); ++d)
        sizes.push_back(entry.getArgument(next++));
      map.map(arg, rowMajorMemRef(b, loc, mt, ptr, sizes));
    } else if (isa<IndexType>(t)) {
      map.map(arg, arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                              entry.getArgument(next++)));
    } else {
      map.map(arg, entry.getArgument(next++));
    }
  }
  for (Operation &op : fn.getBody().front().without_terminator())
    b.clone(op, map);
  // A block of a cluster may not exit while another may still multicast
  // into its shared memory or arrive on its mbarriers.
  if (kattr.getClusterSize() > 1)
    clusterBarrier(b, loc);
  gpu::ReturnOp::create(b, loc);
  fn.erase();
  return gfn;
}
