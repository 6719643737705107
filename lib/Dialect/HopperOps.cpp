//===- HopperOps.cpp - verifiers of the sm_90a asynchronous ops -----------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Tensor maps, bulk tensor copies, mbarriers, warp roles and asynchronous
// wgmma: the structural rules an op can check alone. Ordering (which phase a
// wait completes, which copies it orders, when a stage may be reused) is the
// tag verifier's job.
//
//===----------------------------------------------------------------------===//

#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/ErrorKinds.h"
#include "argus/Dialect/TagFields.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::argus;

/// Ops that set up kernel-wide state (tensor maps, mbarriers) run once, at
/// the top level of the kernel body, before any role splits the warps.
static LogicalResult verifyKernelTopLevel(Operation *op, StringRef what) {
  Operation *parent = op->getParentOp();
  if (!isa_and_nonnull<FunctionOpInterface>(parent) ||
      !parent->hasAttr(ArgusDialect::getKernelAttrName()))
    return op->emitOpError()
           << what
           << " must be at the top level of an argus kernel, not inside '"
           << (parent ? parent->getName().getStringRef() : StringRef("nothing"))
           << "'";
  return success();
}

/// A constant stage index must address one of the ring's barriers.
static LogicalResult verifyBarrierStage(Operation *op, MBarrierType type,
                                        Value stage) {
  if (auto cst = stage.getDefiningOp<arith::ConstantIndexOp>())
    if (cst.value() < 0 || cst.value() >= type.getStages())
      return op->emitOpError()
             << "stage " << cst.value() << " is out of range for a ring of "
             << type.getStages() << " mbarriers";
  return success();
}

LogicalResult TensorMapOp::verify() {
  if (failed(verifyKernelTopLevel(*this, "a tensor map")))
    return failure();
  auto tensor = cast<MemRefType>(getTensor().getType());
  TensorMapType map = getResult().getType();
  if (!isa<BlockArgument>(getTensor()) ||
      getTensor().getParentBlock() != (*this)->getBlock())
    return emitOpError() << "the host encodes tensor maps from kernel "
                            "arguments; '"
                         << getName() << "' must describe one";
  if (tensor.getElementType() != map.getElementType())
    return emitOpError() << "tensor '" << getName() << "' holds "
                         << tensor.getElementType()
                         << " elements but the map moves "
                         << map.getElementType();
  if (tensor.getRank() != static_cast<int64_t>(map.getBox().size()))
    return emitOpError() << "tensor '" << getName() << "' has rank "
                         << tensor.getRank() << " but the box has "
                         << map.getBox().size() << " dimensions";
  if (!tensor.getLayout().isIdentity())
    return emitOpError() << "tensor maps describe row-major tensors; '"
                         << getName() << "' has layout " << tensor.getLayout();
  return success();
}

/// A bulk tensor copy between the global tile `global` (an argus.view,
/// optionally tagged, of the tensor `map` describes: its offsets are the
/// box coordinates) and the shared tile `shared` (laid out exactly where the
/// boxes go), from `source` to `dest`.
static LogicalResult verifyBulkCopy(Operation *op, Value source, Value dest,
                                    Value map) {
  TileType src = cast<TileType>(source.getType());
  TileType dst = cast<TileType>(dest.getType());
  bool toGlobal = isa<TmaStoreOp>(op);
  MemorySpace from = toGlobal ? MemorySpace::Shared : MemorySpace::Global;
  MemorySpace to = toGlobal ? MemorySpace::Global : MemorySpace::Shared;
  if (src.getMemorySpace() != from || dst.getMemorySpace() != to)
    return op->emitOpError()
           << "copies a " << stringifyMemorySpace(from) << " tile into a "
           << stringifyMemorySpace(to) << " tile, got "
           << stringifyMemorySpace(src.getMemorySpace()) << " -> "
           << stringifyMemorySpace(dst.getMemorySpace());
  if (src.getShape() != dst.getShape())
    return emitOpErrorOfKind(op, ErrorKind::Shape)
           << "shape mismatch: source is " << formatShape(src.getShape())
           << " but dest is " << formatShape(dst.getShape());
  Value global = toGlobal ? dest : source;
  ViewOp view = getViewThroughTags(global);
  if (!view)
    return op->emitOpError()
           << "the global tile must be an argus.view (optionally tagged): "
              "its offsets are the box coordinates";
  if (!view.getBounds().empty())
    return op->emitOpError()
           << "the global tile is clipped to bounds, but a bulk tensor copy "
              "clips at its tensor map's extent only; hint: copy it with "
              "argus.copy / argus.store, or drop the bounds";
  if (auto m = map.getDefiningOp<TensorMapOp>())
    if (m.getTensor() != view.getTensor())
      return op->emitOpError()
             << "the global tile views '" << view.getName()
             << "' but the tensor map describes '" << m.getName() << "'";
  return verifyTmaPlacement(toGlobal ? src : dst,
                            cast<TensorMapType>(map.getType()),
                            [&]() { return op->emitOpError(); });
}

LogicalResult TmaStoreOp::verify() {
  return verifyBulkCopy(*this, getSource(), getDest(), getMap());
}

/// `what` reaches the other blocks of a cluster: the kernel must have one.
static LogicalResult verifyClusterKernel(Operation *op, StringRef what) {
  KernelAttr kernel = getEnclosingKernel(op);
  if (kernel && kernel.getClusterSize() > 1)
    return success();
  return op->emitOpError()
         << what
         << " needs a kernel with a thread-block cluster of several blocks; "
            "hint: add `cluster = [2]` to the kernel's #argus.kernel";
}

LogicalResult TmaLoadOp::verify() {
  if (failed(verifyBulkCopy(*this, getSource(), getDest(), getMap())))
    return failure();
  if (getMulticast() &&
      failed(verifyClusterKernel(*this, "a multicast bulk copy")))
    return failure();
  return verifyBarrierStage(*this, getBarrier().getType(), getStage());
}

LogicalResult MBarrierAllocOp::verify() {
  if (getName().empty())
    return emitOpError() << "mbarrier rings need a non-empty name";
  if (failed(verifyKernelTopLevel(*this, "an mbarrier ring")))
    return failure();
  // The arrival count is 20 bits wide in the hardware.
  if (getArrivals() >= (int64_t(1) << 20))
    return emitOpError() << "an mbarrier counts at most 2^20 - 1 arrivals, got "
                         << getArrivals();
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (getCluster() &&
      failed(verifyClusterKernel(*this, "an arrival on every block's barrier")))
    return failure();
  return verifyBarrierStage(*this, getBarrier().getType(), getStage());
}

LogicalResult MBarrierArriveExpectTxOp::verify() {
  // The pending transaction count is 20 bits wide.
  if (getBytes() >= (int64_t(1) << 20))
    return emitOpError() << "an mbarrier phase counts at most 2^20 - 1 "
                            "transaction bytes, got "
                         << getBytes();
  return verifyBarrierStage(*this, getBarrier().getType(), getStage());
}

LogicalResult MBarrierWaitOp::verify() {
  if (auto cst = getParity().getDefiningOp<arith::ConstantIndexOp>())
    if (cst.value() != 0 && cst.value() != 1)
      return emitOpError() << "parity must be 0 or 1, got " << cst.value();
  return verifyBarrierStage(*this, getBarrier().getType(), getStage());
}

/// A named barrier's slot (0-7 when constant) and thread count (whole
/// warps, at most a block).
static LogicalResult verifyNamedBarrier(Operation *op, Value slot,
                                        int64_t threads) {
  if (auto cst = slot.getDefiningOp<arith::ConstantIndexOp>())
    if (cst.value() < 0 || cst.value() > 7)
      return op->emitOpError()
             << "named barrier slot " << cst.value()
             << " is out of range; slots are 0-7 (hardware barriers 8-15)";
  if (threads % 32 || threads > 1024)
    return op->emitOpError()
           << "a named barrier counts whole warps (a multiple of 32, at most "
              "1024 threads), got "
           << threads;
  return success();
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getSlot(), getThreads());
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getSlot(), getThreads());
}

LogicalResult RoleOp::verify() {
  if (failed(verifyKernelTopLevel(*this, "a warp role")))
    return failure();
  KernelAttr kernel = getEnclosingKernel(*this);
  int64_t warps = kernel.getNumThreads() / kernel.getWarpSize();
  if (getEndWarp() <= getFirstWarp() || getEndWarp() > warps)
    return emitOpError() << "warps " << getFirstWarp() << " to " << getEndWarp()
                         << " are not a non-empty range of the "
                         << "block's " << warps << " warps";
  for (Operation &other : *(*this)->getBlock()) {
    auto role = dyn_cast<RoleOp>(other);
    if (!role || role == *this)
      continue;
    if (role.getFirstWarp() < getEndWarp() &&
        getFirstWarp() < role.getEndWarp())
      return emitOpError() << "warps " << getFirstWarp() << " to "
                           << getEndWarp() << " overlap those of role '"
                           << role.getName() << "' (" << role.getFirstWarp()
                           << " to " << role.getEndWarp() << ")";
  }
  if (std::optional<int64_t> regs = getRegs()) {
    if (*regs < 24 || *regs > 256 || *regs % 8)
      return emitOpError() << "setmaxnreg takes a multiple of 8 in [24, 256], "
                              "got "
                           << *regs;
    if (!kernel.getTarget().starts_with("sm_9") || getFirstWarp() % 4 ||
        getEndWarp() % 4)
      return emitOpError() << "a register budget is set per warpgroup "
                              "(sm_90a setmaxnreg): the role must be whole "
                              "warpgroups (warps a multiple of 4) on an sm_90a "
                              "kernel";
  }
  return success();
}

LogicalResult WgmmaWaitOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            ValueRange operands, DictionaryAttr,
                                            OpaqueProperties, RegionRange,
                                            SmallVectorImpl<Type> &types) {
  for (Value v : operands)
    types.push_back(v.getType());
  return success();
}
