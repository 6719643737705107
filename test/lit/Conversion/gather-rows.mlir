// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

// A gathered access finds each row's index in the registers of the index
// tile: when one slot of the index tile holds, in every thread, the row a
// slot of the access reads (here thread t reads row t and holds its index),
// that slot is taken at compile time; the index tile needs no replica of
// every row in every thread (which the backend keeps in local memory when
// indexed at run time).

!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
// CHECK-LABEL: gpu.func @gather_own_row
// CHECK-NOT: vector.extract %{{.*}}[%{{.*}}] : i32
// CHECK: vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// CHECK-NOT: vector.extract %{{.*}}[%{{.*}}] : i32
// CHECK: gpu.return
func.func @gather_own_row(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %gi = argus.view "ids" %ids[%c0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %gx = argus.gather_view "X" %X[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  %x = argus.load %gx : !GX -> !R
  %gy = argus.view "Y" %Y[%c0, %c0] : memref<?x8xf32> -> !GX
  argus.store %x, %gy : !R, !GX
  return
}

// -----

// A replicated index tile (every thread holds every row's index): the row
// coordinate selects the index at run time.

!Ids = !argus.tile<128xi32, register, "(128,128):(0,1)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
// CHECK-LABEL: gpu.func @gather_replicated_indices
// CHECK: vector.extract %{{.*}}[%{{.*}}] : i32 from vector<128xi32>
func.func @gather_replicated_indices(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %gi = argus.view "ids" %ids[%c0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %gx = argus.gather_view "X" %X[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  %x = argus.load %gx : !GX -> !R
  %gy = argus.view "Y" %Y[%c0, %c0] : memref<?x8xf32> -> !GX
  argus.store %x, %gy : !R, !GX
  return
}
