// argus.store ... atomic KIND (MemoryLowering.cpp, TileAccess.cpp): one
// memref.atomic_rmw per element on the global memref (LLVM atomicrmw on the
// global pointer), the same for both vendors; a clipped view skips the
// elements outside the tensor; a replicated reduce result is added once,
// from its first holder. The PTX has atom/red.global.add.f32 and passes
// ptxas; the gfx942 ISA has a global atomic and assembles with llvm-mc
// (float adds and integer max/min become compare-and-swap loops there:
// atomicrmw is emitted with acq_rel ordering at system scope).

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: argus-opt %s --argus-to-gfx942="dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o %}

// PTX-LABEL: .entry atomic_add_f32
// PTX: {{(red|atom)(\.[a-z]+)*\.global(\.[a-z]+)*\.add\.f32}}
// PTX-LABEL: .entry atomic_int_kinds
// PTX-DAG: {{(red|atom)(\.[a-z]+)*\.global(\.[a-z]+)*\.max\.s32}}
// PTX-DAG: {{(red|atom)(\.[a-z]+)*\.global(\.[a-z]+)*\.min\.s32}}
// PTX-DAG: {{(red|atom)(\.[a-z]+)*\.global(\.[a-z]+)*\.add(\.u32|\.s32)?}}
// ISA-LABEL: atomic_add_f32:
// ISA: global_atomic_{{add_f32|cmpswap}}
// ISA-LABEL: atomic_int_kinds:
// ISA-DAG: global_atomic_{{smax|cmpswap}}
// ISA-DAG: global_atomic_add v

!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
!G = !argus.tile<16x16xf32, global>
// Every element one atomic add; no vector stores.
// CHECK-LABEL: gpu.func @atomic_add_f32(
// CHECK-NOT: vector.store
// CHECK-COUNT-4: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<16x16xf32, strided<[?, 1], offset: ?>, 1>) -> f32
// CHECK-NOT: vector.store
// CHECK: gpu.return
func.func @atomic_add_f32(%S: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.view "S" %S[%i, %i] : memref<?x?xf32> -> !G
  argus.store %x, %s atomic add : !R, !G
  return
}

// -----

!I = !argus.tile<16x16xi32, register, "((16,4),4):((1,64),16)">
!GI = !argus.tile<16x16xi32, global>
// CHECK-LABEL: gpu.func @atomic_int_kinds(
// CHECK-COUNT-4: memref.atomic_rmw maxs
// CHECK-COUNT-4: memref.atomic_rmw mins
// CHECK-COUNT-4: memref.atomic_rmw addi
func.func @atomic_int_kinds(%S: memref<?x?xi32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.iota dim 1 : !I
  %s = argus.view "S" %S[%i, %i] : memref<?x?xi32> -> !GI
  argus.store %x, %s atomic max : !I, !GI
  argus.store %x, %s atomic min : !I, !GI
  argus.store %x, %s atomic add : !I, !GI
  return
}

// -----

!RC = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
!GC = !argus.tile<16x16xf32, global>
// A clipped view: tiles wholly inside add without checks; in a boundary
// tile each element is added only when it lies inside the tensor.
// CHECK-LABEL: gpu.func @atomic_clipped(
// CHECK: %[[W:.*]] = arith.andi
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: memref.atomic_rmw addf
// CHECK: } else {
// CHECK: %[[IN:.*]] = arith.cmpi ult
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: memref.atomic_rmw addf
// CHECK-NEXT: }
func.func @atomic_clipped(%S: memref<?x?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !RC
  %s = argus.view "S" %S[%i, %i] clipped : memref<?x?xf32> -> !GC
  argus.store %x, %s atomic add : !RC, !GC
  return
}

// -----

!X = !argus.tile<32x128xf32, register, "((32,4),(4,8)):((128,1),(32,4))">
!P = !argus.tile<128xf32, register, "((32,4),(4,1)):((4,0),(1,0))">
!GP = !argus.tile<128xf32, global>
// A column sum: the reduce result is held by the four threads (one per
// warp) that shared a column; only the first holder (thread bits 32 and 64
// clear) adds it.
// CHECK-LABEL: gpu.func @atomic_once_per_element(
// CHECK: %[[BITS:.*]] = arith.andi %{{.*}}, %c96 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[BITS]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.atomic_rmw addf
func.func @atomic_once_per_element(%S: memref<?xf32>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %x = argus.fill 1.0 : !X
  %p = argus.reduce sum %x dim 0 : !X -> !P
  %s = argus.view "S" %S[%i] : memref<?xf32> -> !GP
  argus.store %p, %s atomic add : !P, !GP
  return
}

// -----

!IX = !argus.tile<16xi32, register, "(64,16):(0,1)">
!RX = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">
!GX = !argus.tile<16x16xf32, global>
// A scatter-add (MoE combine): through a gather view, each element is
// added at row ids[r] of the whole tensor.
// CHECK-LABEL: gpu.func @atomic_scatter_add(
// CHECK: %[[ID:.*]] = vector.extract %{{.*}}[%{{.*}}] : i32 from vector<16xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] : (f32, memref<?x?xf32, 1>) -> f32
func.func @atomic_scatter_add(%Y: memref<?x?xf32>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %ids = argus.iota dim 0 : !IX
  %x = argus.fill 1.0 : !RX
  %g = argus.gather_view "Y" %Y[%ids, %c0] : memref<?x?xf32>, !IX -> !GX
  argus.store %x, %g atomic add : !RX, !GX
  return
}
