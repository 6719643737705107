//===- TargetInfo.h - what argus-to-gpu asks of a GPU vendor ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The lowering of argus kernels is the same for every GPU except where the
// hardware differs: the warp size, the registers and shared memory a block
// has, the instruction families the chip has (wgmma, TMA, mbarriers,
// ldmatrix and cp.async exist on NVIDIA sm_90a only), the matrix-core and
// fast-math instructions, the timer the probes read and the module's target
// attribute. Those facts and the code for them live behind this interface,
// one implementation per vendor (NVPTXTargetInfo.cpp, AMDGPUTargetInfo.cpp),
// as Triton's TargetInfoBase does; the patterns ask it instead of testing
// the chip name. Only what really differs is here: an op that exists on one
// vendor only is a capability query (hasWgmma(), ...) and its pattern emits
// that vendor's ops.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_CONVERSION_ARGUSTOGPU_TARGETINFO_H
#define ARGUS_CONVERSION_ARGUSTOGPU_TARGETINFO_H

#include "argus/Layout/Instructions.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::argus {

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// The target info of `chip`'s vendor: AMDGPU for gfx*, NVPTX for the
  /// others (sm_*; also an empty chip, the default target).
  static const TargetInfo &get(StringRef chip);

  //===--- Resources of a block ---------------------------------------===//

  /// Threads per warp (wavefront): 32 on NVIDIA, 64 on AMDGPU.
  virtual int64_t getWarpSize() const = 0;
  /// 32-bit registers a thread has: 255 on NVIDIA; 512 on gfx942 (256
  /// VGPRs and 256 AGPRs).
  virtual int64_t getThreadRegisterLimit() const = 0;
  /// Bytes of static shared memory (LDS) a block may use, every buffer an
  /// addrspace(3) global: 48 KiB on NVIDIA, 64 KiB on AMDGPU.
  virtual int64_t getStaticSharedMemoryLimit() const = 0;
  /// Bytes of dynamic shared memory a block on `chip` may use beyond the
  /// static limit (the launch opts in); 0: the chip has none.
  virtual int64_t getDynamicSharedMemoryLimit(StringRef chip) const = 0;
  /// The vendor's math library (libdevice, OCML) that the functions without
  /// a hardware approximation would need; argus links neither.
  virtual StringRef getMathLibraryName() const = 0;

  //===--- Modules and kernels ----------------------------------------===//

  /// The gpu.module target attribute for `chip` (#nvvm.target,
  /// #rocdl.target; -O3).
  virtual Attribute createTargetAttr(MLIRContext *ctx,
                                     StringRef chip) const = 0;
  /// Asks the backend for at least `blocks` resident blocks per
  /// multiprocessor (NVPTX .minnctapersm); nothing where the target has no
  /// such bound.
  virtual void setMinBlocksPerSM(gpu::GPUFuncOp fn, int64_t blocks) const = 0;

  //===--- Instruction families ---------------------------------------===//

  /// The matrix-core instructions (argus/Layout/Instructions.h) of the
  /// target: an argus.mma must use one of them.
  virtual ::argus::layout::MmaInstr::Target getMmaTarget() const = 0;
  /// cp.async copies global -> shared and their commit / wait groups
  /// (elsewhere copy_async is a synchronous copy and the groups vanish).
  virtual bool hasAsyncCopy() const = 0;
  /// ldmatrix(.trans) loads of 16-bit fragments from shared memory.
  virtual bool hasLdMatrix() const = 0;
  /// Shared-memory mbarriers (arrive / expect_tx / try_wait).
  virtual bool hasMBarrier() const = 0;
  /// Tensor maps, TMA copies and the async proxy they write through
  /// (fence.proxy.async).
  virtual bool hasTma() const = 0;
  /// Warpgroup MMA (wgmma.mma_async) and its commit / wait groups.
  virtual bool hasWgmma() const = 0;
  /// Per-warp register budgets (setmaxnreg).
  virtual bool hasSetMaxNReg() const = 0;
  /// Barriers of part of the block (bar.sync id, threads): what a barrier
  /// inside a warp role needs.
  virtual bool hasNamedBarriers() const = 0;

  //===--- Code --------------------------------------------------------===//

  /// One warp-level matrix-core instruction `instr` (of getMmaTarget(),
  /// threads == warp size, register operands): a, b and c are this thread's
  /// registers (vectors of aRegs / bRegs / cRegs elements), the result has
  /// c's type (mma.sync, MFMA).
  virtual Value emitMma(OpBuilder &b, Location loc,
                        const ::argus::layout::MmaInstr &instr, Value a,
                        Value bv, Value c) const = 0;
  /// A whole A or B fragment (a vector of this thread's elements) made
  /// ready for `instr` once, before its emitMma calls: tf32 operands are
  /// rounded to nearest (NVPTX's cvt.rna.tf32.f32) instead of having their
  /// low mantissa bits dropped by the multiplier. Identity by default.
  virtual Value prepareMmaOperand(OpBuilder &b, Location loc,
                                  const ::argus::layout::MmaInstr &instr,
                                  Value fragment) const {
    return fragment;
  }
  /// `warp` (i32), equal in every lane, made known to be warp-uniform to the
  /// backend (NVPTX: a shuffle from lane 0, which ptxas needs to keep role
  /// branches uniform); AMDGPU's backend finds that itself.
  virtual Value makeWarpUniform(OpBuilder &b, Location loc,
                                Value warp) const = 0;
  /// The grid size in blocks along x and y for the probe records' linear
  /// block index; `block` is the kernel's block shape.
  virtual std::pair<Value, Value>
  emitGridDimXY(OpBuilder &b, Location loc, ArrayRef<int64_t> block) const = 0;
  /// The replacement of a gpu.grid_dim left after the conversion, at the
  /// builder's insertion point; null when gpu.grid_dim lowers as it is.
  virtual Value lowerGridDim(OpBuilder &b, Location loc,
                             gpu::Dimension d) const = 0;

  //===--- Probes ------------------------------------------------------===//

  /// The timer argus-insert-probes picks for clock=default.
  virtual StringRef getDefaultProbeClock() const = 0;
  /// The timer `clock` (i64) and the id of the hardware unit running the
  /// thread (i32) for a probe record.
  virtual std::pair<Value, Value> emitProbeStamp(OpBuilder &b, Location loc,
                                                 StringRef clock) const = 0;

  //===--- Fast math (no library calls) --------------------------------===//
  // On vectors (a register tile's slots), one instruction per slot.

  /// e^x (`natural`) or 2^x of a float vector with the hardware's exp2
  /// approximation; null where there is none for the element type (the
  /// caller keeps math.exp / math.exp2).
  virtual Value emitFastExp(OpBuilder &b, Location loc, Value x,
                            bool natural) const = 0;
  /// Hardware approximations on f32 vectors: 2^x, log2 x, 1/x, 1/sqrt x.
  virtual Value emitExp2F32(OpBuilder &b, Location loc, Value x) const = 0;
  virtual Value emitLog2F32(OpBuilder &b, Location loc, Value x) const = 0;
  virtual Value emitRcpF32(OpBuilder &b, Location loc, Value x) const = 0;
  virtual Value emitRsqrtF32(OpBuilder &b, Location loc, Value x) const = 0;
  /// tanh of an f32 vector with a hardware instruction; null where there is
  /// none (the lowering then builds it from exp2 and rcp).
  virtual Value emitTanhF32(OpBuilder &b, Location loc, Value x) const = 0;
};

} // namespace mlir::argus

#endif // ARGUS_CONVERSION_ARGUSTOGPU_TARGETINFO_H
