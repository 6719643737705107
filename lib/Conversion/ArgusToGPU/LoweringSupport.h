//===- LoweringSupport.h - what every argus-to-gpu pattern uses -*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The kernel facts the lowering reads off a gpu.func (its chip, the chip's
// TargetInfo, the block shape, the warp role an op runs in), the tile
// layouts, the type conversion of argus tiles to vectors and memrefs, the
// base of the conversion patterns, and the small IR builders the pattern
// files share (thread ids, constants, slot and run access, per-slot
// intrinsics).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGSUPPORT_H
#define ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGSUPPORT_H

#include "LayoutCodegen.h"

#include "argus/Conversion/ArgusToGPU/KernelABI.h"
#include "argus/Conversion/ArgusToGPU/TargetInfo.h"
#include "argus/Conversion/Passes.h"
#include "argus/Dialect/ArgusDialect.h"
#include "argus/Dialect/TileLayouts.h"

#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <string>

namespace mlir::argus {

namespace L = ::argus::layout;

constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;

/// The target facts of a kernel, recorded on its gpu.func while it is
/// lowered (`argus_chip`, `argus_block`), and the warp role an op runs in
/// (the `argus_role` of the enclosing scf.if that RoleLowering made).
struct KernelInfo {
  std::string chip;
  /// What differs between vendors (TargetInfo.h): TargetInfo::get(chip).
  const TargetInfo *target = &TargetInfo::get("");
  int64_t warpSize = 32;
  SmallVector<int64_t, 3> block{1, 1, 1};
  /// Blocks per thread-block cluster (1 without a cluster).
  int64_t clusterSize = 1;
  /// Inside a role: its first thread and thread count (0: no role).
  int64_t roleFirstThread = 0;
  int64_t roleThreads = 0;
  /// Inside a role: its named barrier (1 + the role's index in the kernel).
  int64_t roleBarrierId = 0;
  int64_t blockThreads() const { return block[0] * block[1] * block[2]; }
  /// The threads that execute the op: the role's, else the block's.
  int64_t numThreads() const {
    return roleThreads ? roleThreads : blockThreads();
  }
  int64_t numWarps() const { return (numThreads() + warpSize - 1) / warpSize; }
};

/// `op` is the gpu.func itself or an op inside it; an op inside a warp role
/// sees the role's threads.
KernelInfo getKernelInfo(Operation *op);

/// The attribute RoleLowering puts on the scf.if of a warp role:
/// [first thread, threads, named barrier id].
constexpr StringLiteral kRoleAttr = "argus_role";

/// The kernel parameter of each argus.tensor_map while it is lowered (the
/// ABI attributes of a lowered kernel are in KernelABI.h).
constexpr StringLiteral kTensorMapParamAttr = "argus_param";

/// The target infos of the two vendors (NVPTXTargetInfo.cpp,
/// AMDGPUTargetInfo.cpp); TargetInfo::get picks one by chip.
const TargetInfo &getNVPTXTargetInfo();
const TargetInfo &getAMDGPUTargetInfo();

/// Linear thread id (x fastest) among the threads that execute the op: in a
/// warp role it counts from the role's first thread, so that register,
/// copy and fragment layouts are role-local. Every lowering reads the
/// thread id through here.
Value linearThreadId(OpBuilder &b, Location loc, const KernelInfo &k);
/// The linear thread id in the block, ignoring roles.
Value blockThreadId(OpBuilder &b, Location loc, const KernelInfo &k);

/// Inline PTX with side effects (AT&T dialect, as the NVPTX backend wants).
LLVM::InlineAsmOp inlinePtx(OpBuilder &b, Location loc, TypeRange results,
                            ValueRange args, StringRef asmString,
                            StringRef constraints);
/// Every thread of every block of the cluster arrives and waits
/// (`barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire`).
void clusterBarrier(OpBuilder &b, Location loc);
/// The 32-bit shared-window address of element 0 of a shared memref (its
/// aligned pointer plus offset), as PTX `.shared` operands take it.
Value sharedAddress32(OpBuilder &b, Location loc, Value mem);

/// A register tile's layout, and this thread's id and (thread, slot)
/// coordinates in it.
struct RegisterThreads {
  L::Layout layout;
  Value tid;
  ThreadCoords coords;
};
/// nullopt (and no IR) when `t` has no register layout.
std::optional<RegisterThreads> registerThreads(OpBuilder &b, Location loc,
                                               const KernelInfo &k, TileType t);

/// Integer constants of the widths the lowering writes.
Value constI32(OpBuilder &b, Location loc, int64_t v);
Value constI64(OpBuilder &b, Location loc, int64_t v);
/// A vector of zeros, the start of every slot-by-slot assembly.
Value zeroVector(OpBuilder &b, Location loc, VectorType vt);
/// A vector whose elements are all the float `v`.
Value floatSplat(OpBuilder &b, Location loc, VectorType vt, double v);
/// `f` applied to every slot of the vector `x` (target intrinsics are
/// scalar).
Value perSlot(OpBuilder &b, Location loc, Value x,
              function_ref<Value(Value)> f);
/// A scalar T -> T LLVM intrinsic (llvm.nvvm.*, llvm.amdgcn.*, llvm.sqrt.*),
/// per slot. The upstream NVVM/ROCDL conversions mark LLVM's math ops
/// (llvm.intr.sqrt, llvm.intr.fabs, ...) illegal and would turn them into
/// library calls; an intrinsic call reaches the backend as it is.
Value intrinsicPerSlot(OpBuilder &b, Location loc, Value x, StringRef name);

/// The register layout of a tile; nullopt when it has none.
std::optional<L::Layout> regLayout(TileType t);
/// The memory layout of a tile (row-major when it has none).
L::SwizzledLayout memLayout(TileType t);
int64_t memCosize(TileType t);
int64_t numElements(TileType t);
int64_t elemBytes(Type t);
/// Warns at the op of `fn` where the live register tiles need more
/// registers per thread than `chip` has (TargetInfo::
/// getThreadRegisterLimit; RegisterBudget.cpp).
void warnRegisterBudget(func::FuncOp fn, StringRef chip);
/// The memory-space attribute of address space `space` (kGlobalSpace, ...).
Attribute addressSpace(MLIRContext *ctx, unsigned space);
/// A flat, identity-layout shared-memory array of n elements.
MemRefType sharedArrayType(int64_t n, Type elem);

/// Slots [v, v + n) of the register vector `vec` (a scalar when n == 1).
Value extractSlots(OpBuilder &b, Location loc, Value vec, int64_t v, int64_t n);
/// `x` (n slots, a scalar when n == 1) inserted into `acc` at slot v.
Value insertSlots(OpBuilder &b, Location loc, Value x, Value acc, int64_t v,
                  int64_t n);
/// n elements of `mem` from `idx` (a scalar when n == 1; else an aligned
/// vector access).
Value loadRun(OpBuilder &b, Location loc, Value mem, ValueRange idx, Type elem,
              int64_t n);
void storeRun(OpBuilder &b, Location loc, Value val, Value mem, ValueRange idx,
              Type elem, int64_t n);

/// Argus tiles to vector<slots x elem> (registers) or memrefs (memory).
struct ArgusTypeConverter : public TypeConverter {
  ArgusTypeConverter();
};

template <typename OpT> struct ArgusPattern : public OpConversionPattern<OpT> {
  ArgusPattern(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<OpT>(tc, ctx) {}
  KernelInfo kernel(Operation *op) const { return getKernelInfo(op); }
};

} // namespace mlir::argus

#endif // ARGUS_LIB_CONVERSION_ARGUSTOGPU_LOWERINGSUPPORT_H
