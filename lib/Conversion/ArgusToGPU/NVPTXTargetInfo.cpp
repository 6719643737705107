//===- NVPTXTargetInfo.cpp - argus-to-gpu facts of NVIDIA GPUs ------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// sm_90a: 32-thread warps, 255 registers per thread, 48 KiB of static and
// 227 KiB of dynamic shared memory per block, and every instruction family
// argus has (mma.sync, wgmma, TMA, mbarriers, ldmatrix, cp.async,
// setmaxnreg). Fast math is PTX's .approx instructions; probes read
// %globaltimer or %clock64 and %smid.
//
//===----------------------------------------------------------------------===//

#include "argus/Conversion/ArgusToGPU/TargetInfo.h"

#include "LoweringSupport.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

class NVPTXTargetInfo final : public TargetInfo {
public:
  int64_t getWarpSize() const override { return 32; }
  int64_t getThreadRegisterLimit() const override { return 255; }
  int64_t getStaticSharedMemoryLimit() const override { return 48 * 1024; }
  /// sm_90a: up to 227 KiB per block as dynamic shared memory (the launch
  /// opts in with cudaFuncAttributeMaxDynamicSharedMemorySize).
  int64_t getDynamicSharedMemoryLimit(StringRef chip) const override {
    return chip.starts_with("sm_90") ? 232448 : 0;
  }
  StringRef getMathLibraryName() const override { return "libdevice"; }

  Attribute createTargetAttr(MLIRContext *ctx, StringRef chip) const override {
    return NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                     chip);
  }
  void setMinBlocksPerSM(gpu::GPUFuncOp fn, int64_t blocks) const override {
    fn->setAttr("nvvm.minctasm",
                Builder(fn.getContext()).getI32IntegerAttr(blocks));
  }

  L::MmaInstr::Target getMmaTarget() const override {
    return L::MmaInstr::Target::SM90;
  }
  bool hasAsyncCopy() const override { return true; }
  bool hasLdMatrix() const override { return true; }
  bool hasMBarrier() const override { return true; }
  bool hasTma() const override { return true; }
  bool hasWgmma() const override { return true; }
  bool hasSetMaxNReg() const override { return true; }
  bool hasNamedBarriers() const override { return true; }

  /// mma.sync through nvgpu.mma.sync, operands as rows of one 32-bit
  /// register (m16n8k16: A 4 x f16x2, B 2 x f16x2; m16n8k8 tf32: A 4 x f32,
  /// B 2 x f32) and C as 2 x f32x2.
  Value emitMma(OpBuilder &b, Location loc, const L::MmaInstr &instr, Value av,
                Value bv, Value cv) const override {
    Type aElem = cast<VectorType>(av.getType()).getElementType();
    Type cElem = cast<VectorType>(cv.getType()).getElementType();
    int64_t perReg = 32 / aElem.getIntOrFloatBitWidth();
    auto a2 = VectorType::get({instr.aRegs / perReg, perReg}, aElem);
    auto b2 = VectorType::get({instr.bRegs / perReg, perReg}, aElem);
    auto c2 = VectorType::get({instr.cRegs / 2, 2}, cElem);
    Value r = nvgpu::MmaSyncOp::create(
        b, loc, vector::ShapeCastOp::create(b, loc, a2, av),
        vector::ShapeCastOp::create(b, loc, b2, bv),
        vector::ShapeCastOp::create(b, loc, c2, cv),
        ArrayRef<int64_t>{instr.M, instr.N, instr.K},
        /*tf32Enabled=*/instr.aType == "tf32");
    return vector::ShapeCastOp::create(b, loc, cv.getType(), r);
  }

  /// tf32: each f32 rounded to nearest (ties away) with cvt.rna.tf32.f32,
  /// as cuBLAS and CUTLASS round their tf32 operands.
  Value prepareMmaOperand(OpBuilder &b, Location loc, const L::MmaInstr &instr,
                          Value fragment) const override {
    if (instr.aType != "tf32")
      return fragment;
    auto vt = cast<VectorType>(fragment.getType());
    Value out = fragment;
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      Value x =
          vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{i});
      Value r = NVVM::ConvertFloatToTF32Op::create(
          b, loc, b.getI32Type(), x, NVVM::FPRoundingMode::RNA,
          NVVM::SaturationMode::NONE, /*relu=*/false);
      Value f = arith::BitcastOp::create(b, loc, b.getF32Type(), r);
      out = vector::InsertOp::create(b, loc, f, out, ArrayRef<int64_t>{i});
    }
    return out;
  }

  Value makeWarpUniform(OpBuilder &b, Location loc, Value warp) const override {
    return gpu::ShuffleOp::create(b, loc, warp, constI32(b, loc, 0),
                                  constI32(b, loc, getWarpSize()),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }

  std::pair<Value, Value> emitGridDimXY(OpBuilder &b, Location loc,
                                        ArrayRef<int64_t>) const override {
    Value gx = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value gy = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
    return {gx, gy};
  }
  Value lowerGridDim(OpBuilder &, Location, gpu::Dimension) const override {
    return Value();
  }

  StringRef getDefaultProbeClock() const override { return "globaltimer"; }
  /// %clock64 or %globaltimer (any other clock), and %smid.
  std::pair<Value, Value> emitProbeStamp(OpBuilder &b, Location loc,
                                         StringRef clock) const override {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value ts = clock == "clock64"
                   ? Value(NVVM::Clock64Op::create(b, loc, i64))
                   : Value(NVVM::GlobalTimerOp::create(b, loc, i64));
    Value hw = NVVM::SmIdOp::create(b, loc, i32);
    return {ts, hw};
  }

  /// math.exp/exp2 would become libdevice calls (__nv_expf, __nv_exp2f)
  /// that a PTX module without libdevice cannot resolve. For elements up to
  /// 32 bits: llvm.nvvm.ex2.approx.ftz on f32 per slot, i.e.
  /// ex2.approx.ftz.f32 (exp(x) = exp2(x * log2 e), as CUDA's __expf under
  /// -use_fast_math); f64 keeps the libdevice call. Flushing subnormals
  /// (results below 2^-126 become 0) spares the two multiplies and the
  /// compare that ptxas wraps around every non-ftz ex2: a third of a
  /// softmax's floating-point instructions.
  Value emitFastExp(OpBuilder &b, Location loc, Value in,
                    bool natural) const override {
    auto vt = cast<VectorType>(in.getType());
    auto ft = cast<FloatType>(vt.getElementType());
    if (ft.getWidth() > 32)
      return Value();
    Type f32 = b.getF32Type();
    auto vf32 = VectorType::get(vt.getShape(), f32);
    Value x = in;
    if (ft.getWidth() < 32)
      x = arith::ExtFOp::create(b, loc, vf32, x);
    if (natural)
      x = arith::MulFOp::create(b, loc, x,
                                floatSplat(b, loc, vf32, 1.4426950408889634));
    Value r = emitExp2F32(b, loc, x);
    if (ft.getWidth() < 32)
      r = arith::TruncFOp::create(b, loc, vt, r);
    return r;
  }
  /// ex2.approx.ftz.f32 (subnormal results flush to 0); emitFastExp calls it.
  Value emitExp2F32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.nvvm.ex2.approx.ftz.f32");
  }
  /// lg2.approx.f32.
  Value emitLog2F32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.nvvm.lg2.approx.f");
  }
  /// rcp.approx.ftz.f32.
  Value emitRcpF32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.nvvm.rcp.approx.ftz.f");
  }
  /// rsqrt.approx.f32.
  Value emitRsqrtF32(OpBuilder &b, Location loc, Value x) const override {
    return intrinsicPerSlot(b, loc, x, "llvm.nvvm.rsqrt.approx.f");
  }
  /// tanh.approx.f32 (sm_75+).
  Value emitTanhF32(OpBuilder &b, Location loc, Value x) const override {
    return perSlot(b, loc, x, [&](Value e) {
      return LLVM::InlineAsmOp::create(
                 b, loc, e.getType(), ValueRange{e}, "tanh.approx.f32 $0, $1;",
                 "=f,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::tailcallkind::TailCallKind::None,
                 LLVM::AsmDialectAttr::get(b.getContext(),
                                           LLVM::AsmDialect::AD_ATT),
                 ArrayAttr())
          .getResult(0);
    });
  }
};

} // namespace

const TargetInfo &mlir::argus::getNVPTXTargetInfo() {
  static const NVPTXTargetInfo info;
  return info;
}
