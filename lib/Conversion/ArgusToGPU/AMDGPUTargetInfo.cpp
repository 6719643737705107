//===- AMDGPUTargetInfo.cpp - argus-to-gpu facts of AMD GPUs --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// gfx942: 64-thread wavefronts, 512 registers per thread (256 VGPRs and 256
// AGPRs), 64 KiB of LDS per block, MFMA matrix cores; none of NVIDIA's
// asynchronous families (copy_async is a synchronous copy). Fast math is the
// v_exp / v_log / v_rcp / v_rsq instructions; probes read s_memtime or
// s_memrealtime and HW_ID. The grid size comes from the HSA dispatch packet:
// MLIR's ROCDL lowering of gpu.grid_dim calls __ockl_get_num_groups, which
// needs the ROCm device libraries at serialisation.
//
//===----------------------------------------------------------------------===//

#include "argus/Conversion/ArgusToGPU/TargetInfo.h"

#include "LoweringSupport.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

/// The HSA kernel dispatch packet (llvm.amdgcn.dispatch.ptr).
Value dispatchPacket(OpBuilder &b, Location loc) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 4);
  return LLVM::CallIntrinsicOp::create(
             b, loc, ptrTy, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
             ValueRange{})
      .getResult(0);
}

class AMDGPUTargetInfo final : public TargetInfo {
public:
  int64_t getWarpSize() const override { return 64; }
  int64_t getThreadRegisterLimit() const override { return 512; }
  int64_t getStaticSharedMemoryLimit() const override { return 64 * 1024; }
  int64_t getDynamicSharedMemoryLimit(StringRef) const override { return 0; }
  StringRef getMathLibraryName() const override { return "OCML"; }

  Attribute createTargetAttr(MLIRContext *ctx, StringRef chip) const override {
    return ROCDL::ROCDLTargetAttr::get(ctx, /*optLevel=*/3, "amdgcn-amd-amdhsa",
                                       chip);
  }
  /// No occupancy bound is passed to the AMDGPU backend.
  void setMinBlocksPerSM(gpu::GPUFuncOp, int64_t) const override {}

  L::MmaInstr::Target getMmaTarget() const override {
    return L::MmaInstr::Target::GFX942;
  }
  bool hasAsyncCopy() const override { return false; }
  bool hasLdMatrix() const override { return false; }
  bool hasMBarrier() const override { return false; }
  bool hasTma() const override { return false; }
  bool hasWgmma() const override { return false; }
  bool hasSetMaxNReg() const override { return false; }
  bool hasNamedBarriers() const override { return false; }

  /// amdgpu.mfma, one block.
  Value emitMma(OpBuilder &b, Location loc, const L::MmaInstr &instr, Value av,
                Value bv, Value cv) const override {
    // One register per lane (the fp32 forms): a scalar operand.
    if (instr.aRegs == 1) {
      av = vector::ExtractOp::create(b, loc, av, ArrayRef<int64_t>{0});
      bv = vector::ExtractOp::create(b, loc, bv, ArrayRef<int64_t>{0});
    }
    return amdgpu::MFMAOp::create(b, loc, cv.getType(), uint32_t(instr.M),
                                  uint32_t(instr.N), uint32_t(instr.K),
                                  /*blocks=*/1u, av, bv, cv);
  }

  Value makeWarpUniform(OpBuilder &, Location, Value warp) const override {
    return warp;
  }

  /// grid_size_x/y (in work-items, u32 at bytes 12/16 of the dispatch
  /// packet) divided by the block shape, rounding up.
  std::pair<Value, Value>
  emitGridDimXY(OpBuilder &b, Location loc,
                ArrayRef<int64_t> block) const override {
    Type i32 = b.getI32Type();
    Value dp = dispatchPacket(b, loc);
    auto gridDim = [&](int64_t off, int64_t blockDim) -> Value {
      Value p = LLVM::GEPOp::create(b, loc, dp.getType(), b.getI8Type(), dp,
                                    ValueRange{constI64(b, loc, off)});
      Value items = LLVM::LoadOp::create(b, loc, i32, p);
      Value idx = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), items);
      return arith::CeilDivUIOp::create(b, loc, idx, cidx(b, loc, blockDim));
    };
    Value gx = gridDim(12, block[0]);
    Value gy = gridDim(16, block[1]);
    return {gx, gy};
  }
  /// The dispatch packet's workgroup_size_{x,y,z} (u16 at byte 4 + 2d) and
  /// grid_size_{x,y,z} (u32 at byte 12 + 4d): grid / workgroup, rounding up.
  Value lowerGridDim(OpBuilder &b, Location loc,
                     gpu::Dimension dim) const override {
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 4);
    Value packet = dispatchPacket(b, loc);
    unsigned d = static_cast<unsigned>(dim);
    auto field = [&](int32_t offset, Type ty) -> Value {
      Value at = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), packet,
                                     ArrayRef<LLVM::GEPArg>{offset});
      return LLVM::LoadOp::create(b, loc, ty, at);
    };
    Value wg = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                      field(4 + 2 * d, b.getI16Type()));
    Value grid = field(12 + 4 * d, b.getI32Type());
    Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    Value up = arith::AddIOp::create(b, loc, grid,
                                     arith::SubIOp::create(b, loc, wg, one));
    Value n = arith::DivUIOp::create(b, loc, up, wg);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), n);
  }

  StringRef getDefaultProbeClock() const override { return "memtime"; }
  /// s_memrealtime or s_memtime (any other clock), and HW_ID.
  std::pair<Value, Value> emitProbeStamp(OpBuilder &b, Location loc,
                                         StringRef clock) const override {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    StringRef name = clock == "memrealtime" ? "llvm.amdgcn.s.memrealtime"
                                            : "llvm.amdgcn.s.memtime";
    Value ts = LLVM::CallIntrinsicOp::create(b, loc, i64, b.getStringAttr(name),
                                             ValueRange{})
                   .getResult(0);
    // HW_ID (hwreg 4), all 32 bits: simm16 = 4 | (31 << 11).
    Value hw = LLVM::CallIntrinsicOp::create(
                   b, loc, i32, b.getStringAttr("llvm.amdgcn.s.getreg"),
                   ValueRange{constI32(b, loc, 4 | (31 << 11))})
                   .getResult(0);
    return {ts, hw};
  }

  /// math.exp/exp2 would become OCML calls (ROCm device libraries): the
  /// llvm.amdgcn.exp2 intrinsic (v_exp_f32) per slot, on any element type.
  Value emitFastExp(OpBuilder &b, Location loc, Value in,
                    bool natural) const override {
    auto vt = cast<VectorType>(in.getType());
    Value x = in;
    if (natural) {
      Value log2e = floatSplat(b, loc, vt, 1.4426950408889634);
      x = arith::MulFOp::create(b, loc, x, log2e);
    }
    return emitExp2F32(b, loc, x);
  }
  /// v_exp_f32 (rocdl.exp2 is scalar: one per slot).
  Value emitExp2F32(OpBuilder &b, Location loc, Value x) const override {
    return perSlot(b, loc, x, [&](Value e) {
      return ROCDL::ROCDLExp2::create(b, loc, e.getType(), e);
    });
  }
  /// v_log_f32.
  Value emitLog2F32(OpBuilder &b, Location loc, Value x) const override {
    return perSlot(b, loc, x, [&](Value e) {
      return ROCDL::ROCDLLog::create(b, loc, e.getType(), e);
    });
  }
  /// v_rcp_f32.
  Value emitRcpF32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.amdgcn.rcp.f32");
  }
  /// v_rsq_f32.
  Value emitRsqrtF32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.amdgcn.rsq.f32");
  }
  /// No tanh instruction.
  Value emitTanhF32(OpBuilder &, Location, Value) const override {
    return Value();
  }
};

} // namespace

const TargetInfo &mlir::argus::getAMDGPUTargetInfo() {
  static const AMDGPUTargetInfo info;
  return info;
}
