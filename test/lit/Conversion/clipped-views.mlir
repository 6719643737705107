// Clipped views (boundary tiles) lowered for NVPTX, one kernel per pattern:
// the extents of the window inside the tensor, a store that checks each
// vector run (with a whole-tile fast path), a load that reads zero outside,
// and a copy_async through a clipped view (cp.async with zero fill).

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

!G1 = !argus.tile<16x16xf32, global>
!R1 = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// The extent of each dimension is size - offset, or 0 past the end; tiles
// wholly inside store without checks, the others run by run, then element
// by element.
// CHECK-LABEL: gpu.func @clipped_store(
// CHECK: %[[D0:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32, 1>
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[OFF:.*]], %[[D0]] : index
// CHECK: %[[R0:.*]] = arith.subi %[[D0]], %[[OFF]] : index
// CHECK: %[[E0:.*]] = arith.select %[[IN0]], %[[R0]], %{{.*}} : index
// CHECK: %[[E1:.*]] = arith.select
// CHECK: %[[W0:.*]] = arith.cmpi uge, %[[E0]], %{{.*}} : index
// CHECK: %[[W1:.*]] = arith.cmpi uge, %[[E1]], %{{.*}} : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: vector.extract_strided_slice
// CHECK-NEXT: vector.store
// CHECK: } else {
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: vector.store
// CHECK-NEXT: } else {
// CHECK-COUNT-4: memref.store
func.func @clipped_store(%C: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.000000e+00 : !R1
  %c = argus.view "C" %C[%i, %i] clipped : memref<?x?xf32> -> !G1
  argus.store %x, %c : !R1, !G1
  return
}

// -----

!G5 = !argus.tile<16x16xf32, global>
!R5 = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// Clipped `to` bounds: each extent is min(size, bound) - offset, or 0 past
// it; the rest as above.
// CHECK-LABEL: gpu.func @clipped_to_bounds(
// CHECK: %[[D0:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32, 1>
// CHECK: %[[B0:.*]] = arith.minui %[[D0]], %[[END:.*]] : index
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[OFF:.*]], %[[B0]] : index
// CHECK: %[[R0:.*]] = arith.subi %[[B0]], %[[OFF]] : index
// CHECK: arith.select %[[IN0]], %[[R0]], %{{.*}} : index
// CHECK: memref.dim
// CHECK: arith.minui
// CHECK: scf.if
func.func @clipped_to_bounds(%C: memref<?x?xf32>, %i: index, %end: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.000000e+00 : !R5
  %c = argus.view "C" %C[%i, %i] clipped to [%end, %end] : memref<?x?xf32> -> !G5
  argus.store %x, %c : !R5, !G5
  return
}

// -----

!G2 = !argus.tile<16x16xf32, global>
!R2 = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// A tile wholly inside loads without checks (as a store does); in a
// boundary tile, a run wholly inside loads as one vector; else each element
// inside is loaded and the others are zero.
// CHECK-LABEL: gpu.func @clipped_load(
// CHECK: %[[W0:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK: %[[W1:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK: %[[W:.*]] = arith.andi %{{.*}}, %[[W1]] : i1
// CHECK: scf.if %[[W]] -> (vector<4xf32>) {
// CHECK-NOT: scf.if
// CHECK: vector.load
// CHECK-NOT: scf.if
// CHECK: } else {
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.load
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[Z]] : f32
func.func @clipped_load(%A: memref<?x?xf32>, %C: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %a = argus.view "A" %A[%i, %i] clipped : memref<?x?xf32> -> !G2
  %x = argus.load %a : !G2 -> !R2
  %c = argus.view "C" %C[%i, %i] : memref<?x?xf32> -> !G2
  argus.store %x, %c : !R2, !G2
  return
}

// -----

!G4 = !argus.tile<16x16xf32, global>
!R4 = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// `other`: the elements outside read as the given constant (-inf here).
// CHECK-LABEL: gpu.func @clipped_load_other(
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NEGINF]] : f32
func.func @clipped_load_other(%A: memref<?x?xf32>, %C: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %a = argus.view "A" %A[%i, %i] clipped : memref<?x?xf32> -> !G4
  %x = argus.load %a other 0xFF800000 : f32 : !G4 -> !R4
  %c = argus.view "C" %C[%i, %i] : memref<?x?xf32> -> !G4
  argus.store %x, %c : !R4, !G4
  return
}

// -----

!G3 = !argus.tile<16x16xf32, global>
!S3 = !argus.tile<16x16xf32, shared, "(16,16):(16,1)">

// cp.async reads what lies inside (its source size: the elements of the
// run inside the window, zero-filled to the run) and zeros are stored where
// nothing does (no address to read from); no synchronous global load.
// CHECK-LABEL: gpu.func @clipped_copy_async(
// CHECK-NOT: memref.load
// CHECK: %[[LEFT:.*]] = arith.minui %{{.*}}, %c1{{.*}} : index
// CHECK: %[[COUNT:.*]] = arith.select %{{.*}}, %[[LEFT]], %{{.*}} : index
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[COUNT]], %{{.*}} : index
// CHECK: scf.if %[[ANY]] {
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 1, %[[COUNT]] :
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<256xf32
// CHECK-NOT: memref.load
// CHECK: gpu.return
func.func @clipped_copy_async(%A: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %a = argus.view "A" %A[%i, %i] clipped : memref<?x?xf32> -> !G3
  %s = argus.alloc "s" : !argus.buffer<1 x !S3>
  %st = argus.stage %s[%i] : !argus.buffer<1 x !S3>
  argus.copy_async %a, %st threads "(64,4):(4,1)" : !G3, !S3
  argus.commit_group
  argus.wait_group 0
  return
}
