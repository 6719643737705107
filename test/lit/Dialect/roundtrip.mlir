// RUN: argus-opt %s | FileCheck %s
// RUN: argus-opt %s | argus-opt | FileCheck %s
// RUN: argus-opt %s --mlir-print-op-generic | argus-opt | FileCheck %s

// One function per op (or op family); each checks the printed form.

#Frag = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
!R = !argus.tile<128x128xf32, register, #Frag>
!V = !argus.tile<64xf32, register, "(64,1):(1,0)">
!T = !argus.tile<64x8xf32, register, "(64,8):(8,1)">

// CHECK-LABEL: func.func private @types
// CHECK-SAME: !argus.tile<16x16xf16, global>
// CHECK-SAME: !argus.tile<16x16xf16, shared, "Sw<1,2,3> o (16,16):(16,1)">
// CHECK-SAME: !argus.tile<128x128xf32, register, #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>>
// CHECK-SAME: !argus.buffer<2 x <16x16xf16, shared, "(16,16):(16,1)">>
func.func private @types(!argus.tile<16x16xf16, global>,
                         !argus.tile<16x16xf16, shared, #argus.layout<"Sw<1,2,3> o (16,16):(16,1)">>,
                         !R,
                         !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>)

// CHECK-LABEL: func @kernel_attr
// CHECK-SAME: argus.kernel = #argus.kernel<block = [128, 2], target = "sm_90a">
func.func @kernel_attr() attributes {argus.kernel = #argus.kernel<block = [128, 2], target = "sm_90a">} {
  return
}

// CHECK-LABEL: func @memory
func.func @memory(%A: memref<?x?xf16>, %A8: memref<8x?xf16>, %i: index, %ids: !argus.tile<16xi32, register, "(64,16):(0,1)">, %X: memref<?x?x?x?xf16>) {
  // CHECK: %[[V:.*]] = argus.view "A" %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf16> -> <16x16xf16, global>
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // A boundary tile, larger than a static tensor.
  // CHECK: argus.view "A" %{{.*}}[%{{.*}}, %{{.*}}] clipped : memref<8x?xf16> -> <16x16xf16, global>
  %vc = argus.view "A" %A8[%i, %i] clipped : memref<8x?xf16> -> !argus.tile<16x16xf16, global>
  // Cut at bounds too (a segment of the rows).
  // CHECK: argus.view "A" %{{.*}}[%{{.*}}, %{{.*}}] clipped to [%{{.*}}, %{{.*}}] : memref<?x?xf16> -> <16x16xf16, global>
  %vb = argus.view "A" %A[%i, %i] clipped to [%i, %i] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // CHECK: argus.gather_view "A" %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf16>, <16xi32, register, "(64,16):(0,1)"> -> <16x16xf16, global>
  %g = argus.gather_view "A" %A[%ids, %i] : memref<?x?xf16>, !argus.tile<16xi32, register, "(64,16):(0,1)"> -> !argus.tile<16x16xf16, global>
  // A tile of the im2col matrix of a channels-last tensor (3x3 window).
  // CHECK: argus.im2col_view "X" %{{.*}}[%{{.*}}, %{{.*}}] window [3, 3] stride [2, 1] pad [1, 0] dilation [1, 2] : memref<?x?x?x?xf16> -> <16x16xf16, global>
  %xc = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [2, 1] pad [1, 0] dilation [1, 2] : memref<?x?x?x?xf16> -> !argus.tile<16x16xf16, global>
  // CHECK: %[[B:.*]] = argus.alloc "s" : <2 x <16x16xf16, shared, "(16,16):(16,1)">>
  %b = argus.alloc "s" : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  // CHECK: %[[S:.*]] = argus.stage %[[B]][%{{.*}}] : <2 x <16x16xf16, shared, "(16,16):(16,1)">>
  %s = argus.stage %b[%i] : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  // CHECK: argus.copy %[[V]], %[[S]] threads "(64,4):(4,1)" : <16x16xf16, global>, <16x16xf16, shared, "(16,16):(16,1)">
  argus.copy %v, %s threads "(64,4):(4,1)" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  // CHECK: argus.copy_async %[[V]], %[[S]] threads "(64,4):(1,64)"
  argus.copy_async %v, %s threads "(64,4):(1,64)" : !argus.tile<16x16xf16, global>, !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
  // CHECK: argus.commit_group
  argus.commit_group
  // CHECK: argus.wait_group 0
  argus.wait_group 0
  // CHECK: argus.barrier
  argus.barrier
  // CHECK: %[[R:.*]] = argus.load %[[S]] : <16x16xf16, shared, "(16,16):(16,1)"> -> <16x16xf16, register, "(64,4):(4,1)">
  %r = argus.load %s : !argus.tile<16x16xf16, shared, "(16,16):(16,1)"> -> !argus.tile<16x16xf16, register, "(64,4):(4,1)">
  // CHECK: argus.store %[[R]], %[[V]] : <16x16xf16, register, "(64,4):(4,1)">, <16x16xf16, global>
  argus.store %r, %v : !argus.tile<16x16xf16, register, "(64,4):(4,1)">, !argus.tile<16x16xf16, global>
  // CHECK: %[[VO:.*]] = argus.view "A" %{{.*}} clipped
  %vo = argus.view "A" %A[%i, %i] clipped : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  // CHECK: argus.load %[[VO]] other 0xFC00 : f16 : <16x16xf16, global> -> <16x16xf16, register, "(64,4):(4,1)">
  %o = argus.load %vo other 0xFC00 : f16 : !argus.tile<16x16xf16, global> -> !argus.tile<16x16xf16, register, "(64,4):(4,1)">
  // CHECK: argus.transpose %[[S]] : <16x16xf16, shared, "(16,16):(16,1)"> -> <16x16xf16, shared, "(16,16):(1,16)">
  %t = argus.transpose %s : !argus.tile<16x16xf16, shared, "(16,16):(16,1)"> -> !argus.tile<16x16xf16, shared, "(16,16):(1,16)">
  // CHECK: argus.reinterpret %[[S]] : <16x16xf16, shared, "(16,16):(16,1)"> -> <16x16xf16, shared, "Sw<1,2,3> o (16,16):(16,1)">
  %x = argus.reinterpret %s : !argus.tile<16x16xf16, shared, "(16,16):(16,1)"> -> !argus.tile<16x16xf16, shared, "Sw<1,2,3> o (16,16):(16,1)">
  return
}

// CHECK-LABEL: func @mma
func.func @mma(%a: !argus.tile<128x32xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>>,
               %b: !argus.tile<32x128xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>>,
               %c: !R) -> !R
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  // CHECK: argus.mma "v_mfma_f32_32x32x8_f16" %{{.*}}, %{{.*}}, %{{.*}} : <128x32xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>>
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !argus.tile<128x32xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>>, !argus.tile<32x128xf16, register, #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>>, !R
  return %d : !R
}

// CHECK-LABEL: func @wgmma_shared_b
func.func @wgmma_shared_b(%a: !argus.tile<64x16xf16, register, #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>>,
                          %b: !argus.tile<16x64xf16, shared, "(16,64):(64,1)">,
                          %c: !argus.tile<64x64xf32, register, #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>>) {
  // CHECK: argus.mma "wgmma.m64n64k16.f32.f16"
  %d = argus.mma "wgmma.m64n64k16.f32.f16" %a, %b, %c : !argus.tile<64x16xf16, register, #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>>, !argus.tile<16x64xf16, shared, "(16,64):(64,1)">, !argus.tile<64x64xf32, register, #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>>
  return
}

// CHECK-LABEL: func @elementwise
func.func @elementwise(%x: !T, %y: !T) {
  // CHECK: argus.add %{{.*}}, %{{.*}} : <64x8xf32, register, "(64,8):(8,1)">
  %0 = argus.add %x, %y : !T
  // CHECK: argus.sub
  %1 = argus.sub %0, %y : !T
  // CHECK: argus.mul
  %2 = argus.mul %1, %y : !T
  // CHECK: argus.div
  %3 = argus.div %2, %y : !T
  // CHECK: argus.max
  %4 = argus.max %3, %y : !T
  // CHECK: argus.exp %{{.*}} : <64x8xf32
  %5 = argus.exp %4 : !T
  // CHECK: argus.exp2
  %6 = argus.exp2 %5 : !T
  // CHECK: argus.neg
  %7 = argus.neg %6 : !T
  // CHECK: argus.scale %{{.*}} by 5.000000e-01 : <64x8xf32
  %8 = argus.scale %7 by 0.5 : !T
  // CHECK: argus.convert %{{.*}} : <64x8xf32, register, "(64,8):(8,1)"> -> <64x8xf16, register, "(64,8):(8,1)">
  %9 = argus.convert %8 : !T -> !argus.tile<64x8xf16, register, "(64,8):(8,1)">
  // CHECK: argus.convert_layout %{{.*}} : <64x8xf32, register, "(64,8):(8,1)"> -> <64x8xf32, register, "(64,8):(1,64)">
  %10 = argus.convert_layout %8 : !T -> !argus.tile<64x8xf32, register, "(64,8):(1,64)">
  // CHECK: argus.fill 0xFFF0000000000000 : <64x8xf32
  %11 = argus.fill 0xFFF0000000000000 : !T
  return
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: !T) {
  // CHECK: argus.reduce max %{{.*}} dim 1 : <64x8xf32, register, "(64,8):(8,1)"> -> <64xf32, register, "(64,1):(1,0)">
  %m = argus.reduce max %x dim 1 : !T -> !V
  // CHECK: argus.reduce sum
  %s = argus.reduce sum %x dim 1 : !T -> !V
  // CHECK: argus.reduce min
  %n = argus.reduce min %x dim 1 : !T -> !V
  // CHECK: argus.broadcast %{{.*}} dim 1 : <64xf32, register, "(64,1):(1,0)"> -> <64x8xf32, register, "(64,8):(8,1)">
  %b = argus.broadcast %m dim 1 : !V -> !T
  return
}

// CHECK-LABEL: func @scans
func.func @scans(%x: !T, %i: !argus.tile<64x8xi32, register, "(64,8):(8,1)">) {
  // CHECK: argus.scan sum %{{.*}} dim 1 : <64x8xf32, register, "(64,8):(8,1)"> -> <64x8xf32, register, "(64,8):(8,1)">
  %s = argus.scan sum %x dim 1 : !T -> !T
  // CHECK: argus.scan prod %{{.*}} dim 0
  %p = argus.scan prod %x dim 0 : !T -> !T
  // CHECK: argus.scan max %{{.*}} dim 1
  %m = argus.scan max %x dim 1 : !T -> !T
  // CHECK: argus.scan min %{{.*}} dim 1 : <64x8xi32
  %n = argus.scan min %i dim 1 : !argus.tile<64x8xi32, register, "(64,8):(8,1)"> -> !argus.tile<64x8xi32, register, "(64,8):(8,1)">
  // CHECK: argus.reduce prod
  %r = argus.reduce prod %x dim 1 : !T -> !V
  return
}

// CHECK-LABEL: func @atomic_stores
func.func @atomic_stores(%A: memref<?x?xf32>, %I: memref<?x?xi32>, %i: index,
                         %x: !argus.tile<16x16xf32, register, "(64,4):(4,1)">,
                         %y: !argus.tile<16x16xi32, register, "(64,4):(4,1)">) {
  %v = argus.view "A" %A[%i, %i] : memref<?x?xf32> -> !argus.tile<16x16xf32, global>
  %w = argus.view "I" %I[%i, %i] clipped : memref<?x?xi32> -> !argus.tile<16x16xi32, global>
  // CHECK: argus.store %{{.*}}, %{{.*}} atomic add : <16x16xf32, register, "(64,4):(4,1)">, <16x16xf32, global>
  argus.store %x, %v atomic add : !argus.tile<16x16xf32, register, "(64,4):(4,1)">, !argus.tile<16x16xf32, global>
  // CHECK: argus.store %{{.*}}, %{{.*}} atomic max : <16x16xi32
  argus.store %y, %w atomic max : !argus.tile<16x16xi32, register, "(64,4):(4,1)">, !argus.tile<16x16xi32, global>
  // CHECK: argus.store %{{.*}}, %{{.*}} atomic min : <16x16xi32
  argus.store %y, %w atomic min : !argus.tile<16x16xi32, register, "(64,4):(4,1)">, !argus.tile<16x16xi32, global>
  // CHECK: argus.store %{{.*}}, %{{.*}} : <16x16xf32, register
  argus.store %x, %v : !argus.tile<16x16xf32, register, "(64,4):(4,1)">, !argus.tile<16x16xf32, global>
  return
}

// CHECK-LABEL: func @tags_and_regions
func.func @tags_and_regions(%x: !T, %i: index, %j: index) {
  // CHECK: argus.region.begin "outer" id 1
  argus.region.begin "outer" id 1
  // CHECK: %[[T:.*]] = argus.tag %{{.*}}[%{{.*}}, %{{.*}}] ["m", "n"] = #map : <64x8xf32
  %t = argus.tag %x [%i, %j] ["m", "n"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0 * 64, d1 + s1)> : !T
  // CHECK: argus.region.begin "inner" id 2
  argus.region.begin "inner" id 2
  %u = argus.add %t, %t : !T
  // CHECK: argus.tag_assert %{{.*}}, "lhs.m == rhs.m && (lhs.n < 8 || !(rhs.n != lhs.n))" : !argus.tile<64x8xf32
  argus.tag_assert %u, "lhs.m == rhs.m && (lhs.n < 8 || !(rhs.n != lhs.n))" : !T
  // CHECK: argus.region.end id 2
  argus.region.end id 2
  // CHECK: argus.tag %{{.*}}[] ["k"] = #map1
  %w = argus.tag %x [] ["k"] = affine_map<(d0, d1) -> (d0 * 8 + d1)> : !T
  %z = argus.exp %w : !T
  // CHECK: argus.tag_assert "input.k >= 0"
  argus.tag_assert "input.k >= 0"
  // CHECK: argus.reduced %{{.*}} over "k" from %{{.*}} to %{{.*}} : !argus.tile<64x8xf32
  argus.reduced %z over "k" from %i to %j : !T
  // CHECK: argus.region.end id 1
  argus.region.end id 1
  return
}

// A data precondition on an index tensor (with and without `distinct`).
// CHECK-LABEL: func.func @assume_indices
// CHECK: argus.assume_indices %{{.*}} below %{{.*}} distinct, "ids are distinct" : memref<?xi32>
// CHECK: argus.assume_indices %{{.*}} below %{{.*}}, "rows of X" : memref<?xi64>
func.func @assume_indices(%ids: memref<?xi32>, %rows: memref<?xi64>, %n: index) {
  argus.assume_indices %ids below %n distinct, "ids are distinct" : memref<?xi32>
  argus.assume_indices %rows below %n, "rows of X" : memref<?xi64>
  return
}
