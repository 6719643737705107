// RUN: argus-opt %s | FileCheck %s
// RUN: argus-opt %s | argus-opt | FileCheck %s
// RUN: argus-opt %s --mlir-print-op-generic | argus-opt | FileCheck %s

// The math ops of issue 15: unary functions, min, splat, cmp, select, iota.

!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!H = !argus.tile<64x4xbf16, register, "(64,4):(1,64)">
!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
!M = !argus.tile<64x4xi1, register, "(64,4):(1,64)">

// CHECK-LABEL: func.func @unary
// CHECK: argus.sqrt %{{.*}} : <64x4xf32, register, "(64,4):(1,64)">
// CHECK: argus.rsqrt
// CHECK: argus.log
// CHECK: argus.log2
// CHECK: argus.tanh
// CHECK: argus.sigmoid
// CHECK: argus.gelu %{{.*}} : <64x4xbf16
// CHECK: argus.relu %{{.*}} : <64x4xi32
// CHECK: argus.abs
func.func @unary(%x: !R, %h: !H, %i: !I) {
  %0 = argus.sqrt %x : !R
  %1 = argus.rsqrt %0 : !R
  %2 = argus.log %1 : !R
  %3 = argus.log2 %2 : !R
  %4 = argus.tanh %3 : !R
  %5 = argus.sigmoid %4 : !R
  %6 = argus.gelu %h : !H
  %7 = argus.relu %i : !I
  %8 = argus.abs %5 : !R
  return
}

// CHECK-LABEL: func.func @binary
// CHECK: argus.min %{{.*}}, %{{.*}} : <64x4xf32
// CHECK: argus.splat %{{.*}} : f32 -> <64x4xf32
// CHECK: argus.splat %{{.*}} : index -> <64x4xi32
func.func @binary(%x: !R, %y: !R, %eps: f32, %n: index) {
  %0 = argus.min %x, %y : !R
  %1 = argus.splat %eps : f32 -> !R
  %2 = argus.splat %n : index -> !I
  return
}

// CHECK-LABEL: func.func @masks
// CHECK: %[[COL:.*]] = argus.iota dim 1 : <64x4xi32
// CHECK: %[[M:.*]] = argus.cmp lt %[[COL]], %{{.*}} : <64x4xi32, register, "(64,4):(1,64)"> -> <64x4xi1, register, "(64,4):(1,64)">
// CHECK: argus.cmp ne
// CHECK: argus.select %[[M]], %{{.*}}, %{{.*}} : <64x4xi1, register, "(64,4):(1,64)">, <64x4xf32, register, "(64,4):(1,64)">
func.func @masks(%x: !R, %y: !R, %n: !I) {
  %col = argus.iota dim 1 : !I
  %m = argus.cmp lt %col, %n : !I -> !M
  %f = argus.cmp ne %x, %y : !R -> !M
  %s = argus.select %m, %x, %y : !M, !R
  return
}
