// argus.exp and argus.exp2 lower through argus-opt for sm_90a and gfx942
// (issue 13: argus-opt crashed creating math ops because argus-to-gpu did
// not declare the math dialect, which the Python module hid by loading every
// dialect). On NVPTX, f32/f16 exp2 is llvm.nvvm.ex2.approx.ftz per slot,
// i.e. ex2.approx.ftz.f32 in PTX, and exp is exp2(x * log2 e): no libdevice
// call. On
// gfx942 both are v_exp_f32.

// RUN: argus-opt %s --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %s --argus-to-gpu="target=sm_90a" | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: argus-opt %s --argus-to-gfx942="chip=gfx942 dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=AMD < %t.s

!G = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
!GH = !argus.tile<128x8xf16, global>
!RH = !argus.tile<128x8xf16, register, "(128,8):(1,128)">

// GPU-LABEL: gpu.func @exp_sm90
// GPU: arith.mulf
// GPU: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU-NOT: math.exp
// GPU-LABEL: gpu.func @exp2_sm90_f16
// GPU: arith.extf
// GPU: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// GPU: arith.truncf
// GPU-NOT: math.exp

// PTX-NOT: __nv_
// PTX-LABEL: .entry exp_sm90(
// PTX: ex2.approx.ftz.f32
// PTX-LABEL: .entry exp2_sm90_f16(
// PTX: ex2.approx.ftz.f32

// AMD-LABEL: exp_gfx942:
// AMD: v_exp_f32
// AMD-LABEL: exp2_gfx942:
// AMD: v_exp_f32

func.func @exp_sm90(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x : !G -> !R
  %e = argus.exp %r : !R
  argus.store %e, %y : !R, !G
  return
}

func.func @exp2_sm90_f16(%X: memref<?x?xf16>, %Y: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !GH
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf16> -> !GH
  %r = argus.load %x : !GH -> !RH
  %e = argus.exp2 %r : !RH
  argus.store %e, %y : !RH, !GH
  return
}

func.func @exp_gfx942(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x : !G -> !R
  %e = argus.exp %r : !R
  argus.store %e, %y : !R, !G
  return
}

func.func @exp2_gfx942(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x : !G -> !R
  %e = argus.exp2 %r : !R
  argus.store %e, %y : !R, !G
  return
}
