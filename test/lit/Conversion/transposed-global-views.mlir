// argus.transpose of a global tile (MemoryLowering.cpp, TileAccess.cpp): a
// marker over the view's memref (or its clip marker) that loads and stores
// read with swapped coordinates; a run of slots along the result's
// dimension 0 (the input's contiguous row) moves as one vector. The tf32
// GEMM with B as K x N (examples/python/gemm_tf32_kn.py) stores C from the
// fragment of C^T this way.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

!G1 = !argus.tile<16x16xf32, global>
!R1 = !argus.tile<16x16xf32, register, "((4,16),4):((4,16),1)">

// Thread t holds rows 4 (t % 4) .. + 3 of column t / 4: in C, four
// consecutive elements of row t / 4, one 16-byte store.
// CHECK-LABEL: gpu.func @transposed_store(
// CHECK: %[[V:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}] [16, 16] [1, 1]
// CHECK: %[[T4:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %c4{{.*}} : index
// CHECK: %[[COL:.*]] = arith.remui %[[Q]], %c16 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[T4]], %c4{{.*}} : index
// CHECK: vector.store %{{.*}}, %[[V]][%[[COL]], %[[ROW]]] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
func.func @transposed_store(%C: memref<?x?xf32>, %i: index, %j: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.000000e+00 : !R1
  %c = argus.view "C" %C[%i, %j] : memref<?x?xf32> -> !G1
  %t = argus.transpose %c : !G1 -> !G1
  argus.store %x, %t : !R1, !G1
  return
}

// -----

!G2 = !argus.tile<16x16xf32, global>
!R2 = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// A clipped view: the whole-tile fast path and the element-by-element
// boundary path both address the input at (column, row); each element of
// a boundary tile is checked against the input's extents, the row extent
// with the register tile's column.
// CHECK-LABEL: gpu.func @transposed_clipped_store(
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[E0:.*]] = arith.select
// CHECK: %[[E1:.*]] = arith.select
// CHECK: scf.if %{{.*}} {
// CHECK: memref.store %{{.*}}, %[[V]][%[[C0:.*]], %[[R:.*]]] :
// CHECK-COUNT-3: memref.store %{{.*}}, %[[V]][%{{.*}}, %[[R]]] :
// CHECK: } else {
// CHECK: arith.cmpi ult, %[[C0]], %[[E0]] : index
// CHECK: arith.cmpi ult, %[[R]], %[[E1]] : index
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[V]][%[[C0]], %[[R]]] :
func.func @transposed_clipped_store(%C: memref<?x?xf32>, %i: index, %j: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.000000e+00 : !R2
  %c = argus.view "C" %C[%i, %j] clipped : memref<?x?xf32> -> !G2
  %t = argus.transpose %c : !G2 -> !G2
  argus.store %x, %t : !R2, !G2
  return
}

// -----

!G3 = !argus.tile<16x16xf32, global>
!R3 = !argus.tile<16x16xf32, register, "((4,16),4):((4,16),1)">

// A load through a transposed view, then a store through another: C = A
// (each thread's four elements, one 16-byte vector each way).
// CHECK-LABEL: gpu.func @transposed_load(
// CHECK: %[[A:.*]] = memref.subview
// CHECK: %[[X:.*]] = vector.load %[[A]][%[[COL:.*]], %[[ROW:.*]]] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CHECK: %[[C:.*]] = memref.subview
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {alignment = 16 : i64}
func.func @transposed_load(%A: memref<?x?xf32>, %C: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %a = argus.view "A" %A[%i, %i] : memref<?x?xf32> -> !G3
  %ta = argus.transpose %a : !G3 -> !G3
  %x = argus.load %ta : !G3 -> !R3
  %c = argus.view "C" %C[%i, %i] : memref<?x?xf32> -> !G3
  %tc = argus.transpose %c : !G3 -> !G3
  argus.store %x, %tc : !R3, !G3
  return
}
