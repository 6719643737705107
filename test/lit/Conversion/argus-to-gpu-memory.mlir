// The memory patterns of argus-to-gpu (MemoryLowering.cpp, TileAccess.cpp,
// LdMatrixLowering.cpp), one small kernel per case: views become memref
// subviews of the kernel's arguments, shared buffers workgroup globals,
// loads / stores / copies per-thread accesses from the tile layouts;
// copy_async is cp.async where the target has it (TargetInfo::
// hasAsyncCopy: NVPTX) and a synchronous copy elsewhere.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

!G = !argus.tile<32x8xf32, global>
!R = !argus.tile<32x8xf32, register, "(32,8):(1,32)">
// A row of 8 f32 per thread: two 16-byte vector accesses each way.
// CHECK-LABEL: gpu.func @load_store
// CHECK: memref.subview
// CHECK: vector.load {{.*}} : memref<{{.*}}>, vector<4xf32>
// CHECK: vector.store {{.*}} : memref<{{.*}}>, vector<4xf32>
// CHECK-NOT: {{ argus\.[a-z_.]+ }}
func.func @load_store(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  %r = argus.load %x : !G -> !R
  %y = argus.view "Y" %Y[%c0, %c0] : memref<?x?xf32> -> !G
  argus.store %r, %y : !R, !G
  return
}

// -----

!G = !argus.tile<32x8xf32, global>
!S = !argus.tile<32x8xf32, shared, "(32,8):(8,1)">
// A shared buffer is a private workgroup global (address space 3); a stage
// is a view of it; argus.barrier is gpu.barrier.
// CHECK: memref.global "private" @{{.*}} : memref<256xf32, 3>
// CHECK-LABEL: gpu.func @alloc_copy_barrier
// CHECK: memref.get_global {{.*}} : memref<256xf32, 3>
// CHECK: vector.load
// CHECK: vector.store
// CHECK: gpu.barrier
func.func @alloc_copy_barrier(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  argus.copy %x, %s threads "(32,8):(1,32)" : !G, !S
  argus.barrier
  return
}

// -----

!G = !argus.tile<32x8xf32, global>
!S = !argus.tile<32x8xf32, shared, "(32,8):(8,1)">
// NVPTX: 16-byte cp.async (nvgpu.device_async_copy, bypassing L1) and
// cp.async commit / wait groups.
// CHECK-LABEL: gpu.func @copy_async_nvptx
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 4 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
func.func @copy_async_nvptx(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  argus.copy_async %x, %s threads "(32,8):(1,32)" : !G, !S
  argus.commit_group
  argus.wait_group 0
  return
}

// -----

!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
// AMDGPU has no cp.async: a synchronous copy, and the groups vanish.
// CHECK-LABEL: gpu.func @copy_async_gfx942
// CHECK: vector.load
// CHECK: vector.store
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
// CHECK: gpu.return
func.func @copy_async_gfx942(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G
  argus.copy_async %x, %s threads "(64,4):(1,64)" : !G, !S
  argus.commit_group
  argus.wait_group 0
  return
}

// -----

!G = !argus.tile<16x8xf32, global>
!S = !argus.tile<32x8xf32, shared, "(32,8):(8,1)">
!G32 = !argus.tile<32x8xf32, global>
// A copy layout over fewer threads than the block: the others skip it.
// CHECK-LABEL: gpu.func @copy_fewer_threads
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c32
// CHECK: scf.if %[[IN]] {
func.func @copy_fewer_threads(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !G32
  argus.copy %x, %s threads "(32,8):(1,32)" : !G32, !S
  return
}

// -----

!S = !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
!St = !argus.tile<16x16xf16, shared, "(16,16):(1,16)">
// transpose is the same bytes seen with the transposed layout.
// CHECK-LABEL: gpu.func @transpose
// CHECK: memref.get_global
// CHECK-NOT: argus.transpose
// CHECK: gpu.return
func.func @transpose()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %t = argus.transpose %s : !S -> !St
  return
}

// -----

#FragA = #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [1, 1]>
!S = !argus.tile<16x16xf16, shared, "(16,16):(16,1)">
!RA = !argus.tile<16x16xf16, register, #FragA>
// 16-bit A fragments from shared memory with ldmatrix (NVPTX) ...
// CHECK-LABEL: gpu.func @ldmatrix_nvptx
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<256xf16, {{.*}}, 3> -> vector<4x2xf16>
func.func @ldmatrix_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  %a = argus.load %s : !S -> !RA
  return
}
