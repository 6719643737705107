// The exchange patterns of argus-to-gpu (ExchangeLowering.cpp): reduce,
// broadcast and convert_layout move values between threads, through warp
// shuffles where a warp holds everything it needs (the target's warp size:
// 32 on NVPTX, 64 on AMDGPU) and through the kernel's shared scratch and
// block barriers otherwise.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!Rows = !argus.tile<32xf32, register, "(32,1):(1,0)">
// Each thread holds its whole row: the sum stays in the thread.
// CHECK-LABEL: gpu.func @reduce_in_thread
// CHECK-COUNT-3: arith.addf {{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @reduce_in_thread()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.reduce sum %x dim 1 : !R -> !Rows
  return
}

// -----

!R = !argus.tile<4x32xf32, register, "(32,4):(4,1)">
!Rows = !argus.tile<4xf32, register, "(32,4):(0,1)">
// A row spread over the 32 lanes of a warp: xor shuffles 1 ... 16.
// CHECK-LABEL: gpu.func @reduce_shuffle_nvptx
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor {{.*}}, %c16_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK: arith.maximumf
func.func @reduce_shuffle_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.reduce max %x dim 1 : !R -> !Rows
  return
}

// -----

!R = !argus.tile<4x64xf32, register, "(64,4):(4,1)">
!Rows = !argus.tile<4xf32, register, "(64,4):(0,1)">
// The same on AMDGPU's 64-lane wavefront: xor shuffles 1 ... 32.
// CHECK-LABEL: gpu.func @reduce_shuffle_gfx942
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32, %c64_i32 : f32
// CHECK: gpu.shuffle xor {{.*}}, %c32_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}} : f32
func.func @reduce_shuffle_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %x = argus.fill 1.0 : !R
  %s = argus.reduce max %x dim 1 : !R -> !Rows
  return
}

// -----

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!Rows = !argus.tile<32xf32, register, "(32,1):(1,0)">
// Broadcasting a per-row value along the row the thread holds: no
// exchange.
// CHECK-LABEL: gpu.func @broadcast_in_thread
// CHECK-COUNT-4: vector.insert {{.*}} : f32 into vector<4xf32>
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @broadcast_in_thread()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !Rows
  %b = argus.broadcast %x dim 1 : !Rows -> !R
  return
}

// -----

!RI = !argus.tile<128x4xf32, register, "(128,4):(1,128)">
!RO = !argus.tile<128x4xf32, register, "(128,4):(4,1)">
// Between layouts that place elements in other threads: through the
// kernel's shared scratch (one per element type), written as 16-byte
// vectors, a block barrier, read back, a barrier before the scratch is
// reused.
// CHECK: memref.global "private" @__argus_xchg_convert_layout_scratch_f32 : memref<512xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: gpu.func @convert_layout_scratch
// CHECK: vector.store {{.*}} : memref<512xf32, 3>, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load {{.*}} : memref<512xf32, 3>
// CHECK: gpu.barrier
func.func @convert_layout_scratch()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %x = argus.fill 1.0 : !RI
  %y = argus.convert_layout %x : !RI -> !RO
  return
}
