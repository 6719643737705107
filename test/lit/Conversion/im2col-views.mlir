// argus.im2col_view lowered for NVPTX: each element's input coordinate
// o * s + r * l - q from the output position (row) and the window tap and
// channel (column), one unsigned compare per dimension for the padding, and
// one 16-byte access when a run of channels is aligned and inside.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

!G = !argus.tile<16x16xf16, global>
!S = !argus.tile<16x16xf16, shared, "(16,16):(16,1)">

// OW = (W + 2 - 3) / 2 + 1 (stride 2 along W); the row splits into
// (n, oh, ow), the column into (kh, kw, c); the vector path needs c and C
// multiples of 8, else element by element with zeros outside.
// CHECK-LABEL: gpu.func @im2col_copy(
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x?x?x?xf16, 1>
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x?x?x?xf16, 1>
// CHECK: %[[W:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?x?x?xf16, 1>
// CHECK: %[[C:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?x?x?xf16, 1>
// CHECK: arith.divui %{{.*}}, %{{.*}} : index
// CHECK: arith.remui %{{.*}}, %[[C]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[W]] : index
// CHECK: %[[ORC:.*]] = arith.ori %{{.*}}, %[[C]] : index
// CHECK: arith.andi %[[ORC]], %{{.*}} : index
// CHECK: scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?x?x?xf16, 1>, vector<8xf16>
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (f16) {
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : f16
func.func @im2col_copy(%X: memref<?x?x?x?xf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 2] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !G
  %b = argus.alloc "s" : !argus.buffer<1 x !S>
  %c0 = arith.constant 0 : index
  %s = argus.stage %b[%c0] : !argus.buffer<1 x !S>
  argus.copy %x, %s threads "((16,2),8):((1,128),16)" : !G, !S
  return
}

// -----

!G1 = !argus.tile<8x4xf32, global>
!R1 = !argus.tile<8x4xf32, register, "(32,1):(1,0)">

// A 1-D window, loaded into registers with -inf outside (a max-pool's
// padding): each element alone, the fill where it does not exist.
// CHECK-LABEL: gpu.func @im2col_load_other(
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load %{{.*}} : memref<?x?x?xf32, 1>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NINF]] : f32
func.func @im2col_load_other(%X: memref<?x?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.im2col_view "X" %X[%i, %i] window [4] stride [4] pad [0] dilation [1] : memref<?x?x?xf32> -> !G1
  %r = argus.load %x other 0xFF800000 : f32 : !G1 -> !R1
  return
}

// -----

!GA = !argus.tile<16x16xf16, global>
!SA = !argus.tile<16x16xf16, shared, "(16,16):(16,1)">

// copy_async: an aligned run of 8 channels is one 16-byte cp.async when it
// exists (source size 16) and 16 bytes of zeros stored when it lies in the
// padding; a misaligned run goes element by element (synchronously).
// CHECK-LABEL: gpu.func @im2col_copy_async(
// CHECK: %[[ORC:.*]] = arith.ori %{{.*}}, %{{.*}} : index
// CHECK: %[[LOW:.*]] = arith.andi %[[ORC]], %{{.*}} : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : index
// CHECK: %[[COUNT:.*]] = arith.select %{{.*}}, %c8{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}} : index
// CHECK: scf.if %[[ANY]] {
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 8, %[[COUNT]] {bypassL1}
// CHECK: } else {
// CHECK: vector.store %{{.*}} : memref<256xf16, strided<[1], offset: ?>, 3>, vector<8xf16>
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (f16) {
// CHECK-NEXT: memref.load
func.func @im2col_copy_async(%X: memref<?x?x?x?xf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.im2col_view "X" %X[%i, %i] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> !GA
  %b = argus.alloc "s" : !argus.buffer<1 x !SA>
  %c0 = arith.constant 0 : index
  %s = argus.stage %b[%c0] : !argus.buffer<1 x !SA>
  argus.copy_async %x, %s threads "((16,2),8):((1,128),16)" : !GA, !SA
  argus.commit_group
  argus.wait_group 0
  return
}
