// The elementwise patterns of argus-to-gpu (ElementwiseLowering.cpp), one
// small kernel per case: a register tile is vector<slots x elem> in every
// thread, so elementwise ops become arith / math ops on those vectors, and
// the transcendental functions the target's approximations (TargetInfo:
// ex2/lg2/rcp/rsqrt/tanh.approx on NVPTX, v_exp/v_log/v_rcp/v_rsq on
// AMDGPU), never a libdevice or OCML call.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// CHECK-LABEL: gpu.func @fill
// CHECK: arith.constant dense<1.500000e+00> : vector<4xf32>
// CHECK-NOT: {{ argus\.[a-z_.]+ }}
func.func @fill() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// CHECK-LABEL: gpu.func @binary_float
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK: arith.subf {{.*}} : vector<4xf32>
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK: arith.divf {{.*}} : vector<4xf32>
// CHECK: arith.maximumf {{.*}} : vector<4xf32>
// CHECK: arith.minimumf {{.*}} : vector<4xf32>
func.func @binary_float() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !R
  %a = argus.add %x, %x : !R
  %s = argus.sub %a, %x : !R
  %m = argus.mul %s, %x : !R
  %d = argus.div %m, %x : !R
  %mx = argus.max %d, %x : !R
  %mn = argus.min %mx, %x : !R
  return
}

// -----

!I = !argus.tile<32x4xi32, register, "(32,4):(1,32)">
// CHECK-LABEL: gpu.func @binary_int
// CHECK: arith.addi {{.*}} : vector<4xi32>
// CHECK: arith.subi {{.*}} : vector<4xi32>
// CHECK: arith.muli {{.*}} : vector<4xi32>
// CHECK: arith.divsi {{.*}} : vector<4xi32>
// CHECK: arith.maxsi {{.*}} : vector<4xi32>
// CHECK: arith.minsi {{.*}} : vector<4xi32>
func.func @binary_int() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 3.0 : !I
  %a = argus.add %x, %x : !I
  %s = argus.sub %a, %x : !I
  %m = argus.mul %s, %x : !I
  %d = argus.div %m, %x : !I
  %mx = argus.max %d, %x : !I
  %mn = argus.min %mx, %x : !I
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!I = !argus.tile<32x4xi32, register, "(32,4):(1,32)">
// CHECK-LABEL: gpu.func @neg
// CHECK: arith.negf {{.*}} : vector<4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : vector<4xi32>
// CHECK: arith.subi %[[ZERO]], {{.*}} : vector<4xi32>
func.func @neg() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !R
  %n = argus.neg %x : !R
  %i = argus.fill 3.0 : !I
  %ni = argus.neg %i : !I
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// exp(x) = ex2.approx(x * log2 e) per slot.
// CHECK-LABEL: gpu.func @exp_nvptx
// CHECK: %[[LOG2E:.*]] = arith.constant dense<1.44269{{.*}}> : vector<4xf32>
// CHECK: arith.mulf {{.*}}, %[[LOG2E]] : vector<4xf32>
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: math.exp
func.func @exp_nvptx() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !R
  %e = argus.exp %x : !R
  return
}

// -----

!RH = !argus.tile<32x4xf16, register, "(32,4):(1,32)">
// f16: widened to f32, ex2.approx, narrowed.
// CHECK-LABEL: gpu.func @exp2_f16_nvptx
// CHECK: arith.extf {{.*}} : vector<4xf16> to vector<4xf32>
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
func.func @exp2_f16_nvptx() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !RH
  %e = argus.exp2 %x : !RH
  return
}

// -----

!RD = !argus.tile<32x2xf64, register, "(32,2):(1,32)">
// f64 exp has no approximation on NVPTX: math.exp (libdevice).
// CHECK-LABEL: gpu.func @exp_f64_nvptx
// CHECK: math.exp {{.*}} : vector<2xf64>
func.func @exp_f64_nvptx() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.5 : !RD
  %e = argus.exp %x : !RD
  return
}

// -----

!R = !argus.tile<64x2xf32, register, "(64,2):(1,64)">
// CHECK-LABEL: gpu.func @exp_gfx942
// CHECK: arith.mulf
// CHECK-COUNT-2: rocdl.exp2 {{.*}} f32
// CHECK-NOT: math.exp
func.func @exp_gfx942() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %x = argus.fill 1.5 : !R
  %e = argus.exp %x : !R
  return
}

// -----

!R = !argus.tile<32x1xf32, register, "(32,1):(1,32)">
// CHECK-LABEL: gpu.func @transcendental_nvptx
// CHECK: llvm.call_intrinsic "llvm.sqrt.f32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: arith.mulf
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
func.func @transcendental_nvptx() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 0.5 : !R
  %s = argus.sqrt %x : !R
  %r = argus.rsqrt %x : !R
  %l = argus.log %x : !R
  %l2 = argus.log2 %x : !R
  %t = argus.tanh %x : !R
  %g = argus.sigmoid %x : !R
  return
}

// -----

!R = !argus.tile<64x1xf32, register, "(64,1):(1,64)">
// CHECK-LABEL: gpu.func @transcendental_gfx942
// CHECK: llvm.call_intrinsic "llvm.sqrt.f32"
// CHECK: llvm.call_intrinsic "llvm.amdgcn.rsq.f32"
// CHECK: rocdl.log
// CHECK: rocdl.log
// tanh: sign(x) (1 - 2 / (e^{2|x|} + 1)), no tanh instruction.
// CHECK: arith.andi
// CHECK: rocdl.exp2
// CHECK: llvm.call_intrinsic "llvm.amdgcn.rcp.f32"
// CHECK-NOT: llvm.inline_asm
func.func @transcendental_gfx942() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %x = argus.fill 0.5 : !R
  %s = argus.sqrt %x : !R
  %r = argus.rsqrt %x : !R
  %l = argus.log %x : !R
  %l2 = argus.log2 %x : !R
  %t = argus.tanh %x : !R
  return
}

// -----

!RH = !argus.tile<32x1xf16, register, "(32,1):(1,32)">
// gelu on f16: widened, erf by A&S 7.1.26 with rcp and ex2, narrowed.
// CHECK-LABEL: gpu.func @gelu_f16
// CHECK: arith.extf
// CHECK: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: arith.select
// CHECK: arith.truncf
func.func @gelu_f16() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 0.5 : !RH
  %g = argus.gelu %x : !RH
  return
}

// -----

!RD = !argus.tile<32x1xf64, register, "(32,1):(1,32)">
// f64 sqrt is IEEE (llvm.sqrt.f64); rsqrt is 1 / sqrt.
// CHECK-LABEL: gpu.func @sqrt_f64
// CHECK: llvm.call_intrinsic "llvm.sqrt.f64"
// CHECK: llvm.call_intrinsic "llvm.sqrt.f64"
// CHECK: arith.divf
func.func @sqrt_f64() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 0.5 : !RD
  %s = argus.sqrt %x : !RD
  %r = argus.rsqrt %x : !RD
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!I = !argus.tile<32x4xi32, register, "(32,4):(1,32)">
// Float abs clears the sign bit; relu is maximumf with 0; integer abs is
// max(x, 0 - x).
// CHECK-LABEL: gpu.func @abs_relu
// CHECK: arith.bitcast {{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.andi
// CHECK: arith.maximumf
// CHECK: arith.subi
// CHECK: arith.maxsi
// CHECK: arith.maxsi
func.func @abs_relu() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill -1.5 : !R
  %a = argus.abs %x : !R
  %r = argus.relu %x : !R
  %i = argus.fill -3.0 : !I
  %ai = argus.abs %i : !I
  %ri = argus.relu %i : !I
  return
}

// -----

!I = !argus.tile<32x4xi32, register, "(32,4):(1,32)">
!M = !argus.tile<32x4xi1, register, "(32,4):(1,32)">
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// iota: each slot's coordinate from the layout; splat: a broadcast.
// CHECK-LABEL: gpu.func @iota_cmp_select
// CHECK: gpu.thread_id x
// CHECK: vector.insert
// CHECK: vector.broadcast {{.*}} : i32 to vector<4xi32>
// CHECK: arith.cmpi slt, {{.*}} : vector<4xi32>
// CHECK: arith.cmpf oge, {{.*}} : vector<4xf32>
// CHECK: arith.select {{.*}} : vector<4xi1>, vector<4xf32>
func.func @iota_cmp_select(%n: index) attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %col = argus.iota dim 1 : !I
  %nn = argus.splat %n : index -> !I
  %in = argus.cmp lt %col, %nn : !I -> !M
  %x = argus.fill 1.0 : !R
  %ge = argus.cmp ge %x, %x : !R -> !M
  %s = argus.select %in, %x, %x : !M, !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!RH = !argus.tile<32x4xf16, register, "(32,4):(1,32)">
!I = !argus.tile<32x4xi32, register, "(32,4):(1,32)">
// CHECK-LABEL: gpu.func @scale_convert
// CHECK: %[[F:.*]] = arith.constant dense<1.250000e-01> : vector<4xf32>
// CHECK: arith.mulf {{.*}}, %[[F]] : vector<4xf32>
// CHECK: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: arith.extf {{.*}} : vector<4xf16> to vector<4xf32>
// CHECK: arith.fptosi {{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.sitofp {{.*}} : vector<4xi32> to vector<4xf32>
func.func @scale_convert() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scale %x by 0.125 : !R
  %h = argus.convert %s : !R -> !RH
  %f = argus.convert %h : !RH -> !R
  %i = argus.convert %f : !R -> !I
  %g = argus.convert %i : !I -> !R
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// Tags, tag assertions and unprobed region markers are proof and
// measurement bookkeeping: they vanish.
// CHECK-LABEL: gpu.func @bookkeeping_erased
// CHECK-NOT: {{ argus\.[a-z_.]+ }}
// CHECK: gpu.return
func.func @bookkeeping_erased() attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  argus.region.begin "r" id 1
  %x = argus.fill 1.0 : !R
  %t = argus.tag %x [%c0] ["m"] = affine_map<(d0, d1)[s0] -> (d0 + s0)> : !R
  argus.tag_assert %t, "result.m == result.m" : !R
  argus.region.end id 1
  return
}

// -----

// A precondition becomes a trap at kernel entry when it does not hold.
// CHECK-LABEL: gpu.func @assume_trap
// CHECK: %[[BAD:.*]] = arith.xori %{{.*}}, %true
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: llvm.intr.trap
func.func @assume_trap(%n: index) attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c64 = arith.constant 64 : index
  %ok = arith.cmpi uge, %n, %c64 : index
  argus.assume %ok, "n >= 64"
  return
}
