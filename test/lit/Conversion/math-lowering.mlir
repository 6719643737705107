// The math ops of issue 15 lower for sm_90a and gfx942 without libdevice or
// OCML: hardware approximations per slot (ex2/lg2/rsqrt/rcp/tanh.approx on
// NVPTX, v_exp/v_log/v_rsq/v_rcp on AMDGPU), f16/bf16 computed in f32, and
// masks as vector<i1> (cmp, select, iota from the register layout).

// RUN: argus-opt %s --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: argus-opt %s --argus-to-gfx942="chip=gfx942 dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=AMD < %t.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o %}
// RUN: argus-opt %s --argus-to-gfx942="chip=gfx942 format=llvm dump=%t.ll" -o /dev/null
// RUN: not grep -q __nv_ %t.ptx
// RUN: not grep -q __ocml_ %t.s %t.ll

!G = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
!GH = !argus.tile<128x8xbf16, global>
!RH = !argus.tile<128x8xbf16, register, "(128,8):(1,128)">
!I = !argus.tile<128x8xi32, register, "(128,8):(1,128)">
!M = !argus.tile<128x8xi1, register, "(128,8):(1,128)">


// GPU-LABEL: gpu.func @sqrt_nv(
// GPU: llvm.call_intrinsic "llvm.sqrt.f32"
// GPU-NOT: math.
// PTX-LABEL: .entry sqrt_nv(
// PTX: sqrt.rn.f32
func.func @sqrt_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.sqrt %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @rsqrt_nv(
// GPU: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// GPU-NOT: math.
// PTX-LABEL: .entry rsqrt_nv(
// PTX: rsqrt.approx.f32
func.func @rsqrt_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.rsqrt %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @rsqrt_bf16_nv(
// GPU: arith.extf
// GPU: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"
// GPU: arith.truncf
// GPU-NOT: math.
// PTX-LABEL: .entry rsqrt_bf16_nv(
// PTX: rsqrt.approx.f32
func.func @rsqrt_bf16_nv(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xbf16> -> !GH
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xbf16> -> !GH
  %r = argus.load %x0 : !GH -> !RH
  %e = argus.rsqrt %r : !RH
  argus.store %e, %y0 : !RH, !GH
  return
}

// GPU-LABEL: gpu.func @log_nv(
// GPU: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// GPU: arith.mulf
// GPU-NOT: math.
// PTX-LABEL: .entry log_nv(
// PTX: lg2.approx.f32
func.func @log_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.log %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @log2_nv(
// GPU: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// GPU-NOT: math.
// PTX-LABEL: .entry log2_nv(
// PTX: lg2.approx.f32
func.func @log2_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.log2 %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @tanh_nv(
// GPU: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f"
// GPU-NOT: math.
// PTX-LABEL: .entry tanh_nv(
// PTX: tanh.approx.f32
func.func @tanh_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.tanh %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @sigmoid_nv(
// GPU: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// GPU-NOT: math.
// PTX-LABEL: .entry sigmoid_nv(
// PTX: ex2.approx.ftz.f32
// PTX: rcp.approx.ftz.f32
func.func @sigmoid_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.sigmoid %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @gelu_nv(
// GPU: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// GPU: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU-NOT: math.
// PTX-LABEL: .entry gelu_nv(
// PTX: rcp.approx.ftz.f32
// PTX: ex2.approx.ftz.f32
func.func @gelu_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.gelu %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @gelu_bf16_nv(
// GPU: arith.extf
// GPU: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU: arith.truncf
// GPU-NOT: math.
// PTX-LABEL: .entry gelu_bf16_nv(
// PTX: ex2.approx.ftz.f32
func.func @gelu_bf16_nv(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xbf16> -> !GH
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xbf16> -> !GH
  %r = argus.load %x0 : !GH -> !RH
  %e = argus.gelu %r : !RH
  argus.store %e, %y0 : !RH, !GH
  return
}

// GPU-LABEL: gpu.func @abs_nv(
// GPU: arith.bitcast
// GPU: arith.andi
// GPU-NOT: math.
// PTX-LABEL: .entry abs_nv(
// PTX: abs.f32
func.func @abs_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.abs %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @relu_nv(
// GPU: arith.maximumf
// GPU-NOT: math.
// PTX-LABEL: .entry relu_nv(
// PTX: max.NaN.f32
func.func @relu_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.relu %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @min_nv(
// GPU: arith.minimumf
// GPU-NOT: math.
// PTX-LABEL: .entry min_nv(
// PTX: min.NaN.f32
func.func @min_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %half = argus.fill 0.5 : !R
  %e = argus.min %r, %half : !R
  argus.store %e, %y0 : !R, !G
  return
}

// GPU-LABEL: gpu.func @mask_nv(
// GPU: arith.index_cast
// GPU: vector.broadcast
// GPU: arith.cmpi slt
// GPU: arith.select
// GPU-NOT: math.
// PTX-LABEL: .entry mask_nv(
// PTX: setp.{{lt|gt}}.s32
// PTX: selp
func.func @mask_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %n: index, %h: f32)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %col = argus.iota dim 1 : !I
  %nn = argus.splat %n : index -> !I
  %in = argus.cmp lt %col, %nn : !I -> !M
  %half = argus.splat %h : f32 -> !R
  %z = argus.fill 0.0 : !R
  %x = argus.mul %r, %half : !R
  %e = argus.select %in, %x, %z : !M, !R
  argus.store %e, %y0 : !R, !G
  return
}

// Integer tiles: neg is 0 - x, abs max(x, 0 - x), relu max(x, 0); convert
// to f32 is sitofp (the PTX folds them: iota of this layout is constant per slot).
// GPU-LABEL: gpu.func @int_nv(
// GPU: arith.subi
// GPU: arith.maxsi
// GPU: arith.sitofp
// PTX-LABEL: .entry int_nv(
// PTX: st.global
func.func @int_nv(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %col = argus.iota dim 1 : !I
  %n = argus.neg %col : !I
  %a = argus.abs %n : !I
  %r = argus.relu %n : !I
  %s = argus.add %a, %r : !I
  %e = argus.convert %s : !I -> !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: sqrt_amd:
// AMD: v_sqrt_f32
func.func @sqrt_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.sqrt %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: rsqrt_amd:
// AMD: v_rsq_f32
func.func @rsqrt_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.rsqrt %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: rsqrt_bf16_amd:
// AMD: v_rsq_f32
func.func @rsqrt_bf16_amd(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xbf16> -> !GH
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xbf16> -> !GH
  %r = argus.load %x0 : !GH -> !RH
  %e = argus.rsqrt %r : !RH
  argus.store %e, %y0 : !RH, !GH
  return
}

// AMD-LABEL: log_amd:
// AMD: v_log_f32
func.func @log_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.log %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: log2_amd:
// AMD: v_log_f32
func.func @log2_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.log2 %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: tanh_amd:
// AMD: v_exp_f32
// AMD: v_rcp_f32
func.func @tanh_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.tanh %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: sigmoid_amd:
// AMD: v_exp_f32
// AMD: v_rcp_f32
func.func @sigmoid_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.sigmoid %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: gelu_amd:
// AMD: v_rcp_f32
// AMD: v_exp_f32
func.func @gelu_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.gelu %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: gelu_bf16_amd:
// AMD: v_exp_f32
func.func @gelu_bf16_amd(%X: memref<?x?xbf16>, %Y: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xbf16> -> !GH
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xbf16> -> !GH
  %r = argus.load %x0 : !GH -> !RH
  %e = argus.gelu %r : !RH
  argus.store %e, %y0 : !RH, !GH
  return
}

// AMD-LABEL: abs_amd:
// AMD: v_and_b32
func.func @abs_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.abs %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: relu_amd:
// AMD: v_max_f32
func.func @relu_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %e = argus.relu %r : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: min_amd:
// AMD: v_min_f32
func.func @min_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %half = argus.fill 0.5 : !R
  %e = argus.min %r, %half : !R
  argus.store %e, %y0 : !R, !G
  return
}

// AMD-LABEL: mask_amd:
// AMD: v_cndmask_b32
func.func @mask_amd(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %n: index, %h: f32)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x0 = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y0 = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x0 : !G -> !R
  %col = argus.iota dim 1 : !I
  %nn = argus.splat %n : index -> !I
  %in = argus.cmp lt %col, %nn : !I -> !M
  %half = argus.splat %h : f32 -> !R
  %z = argus.fill 0.0 : !R
  %x = argus.mul %r, %half : !R
  %e = argus.select %in, %x, %z : !M, !R
  argus.store %e, %y0 : !R, !G
  return
}
