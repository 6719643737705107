// Kernel outlining and the kernel-wide steps of argus-to-gpu
// (KernelOutlining.cpp, ArgusToGPU.cpp): each kernel goes into the
// gpu.module of its chip with the target's attribute (TargetInfo::
// createTargetAttr), the argus ABI (memref -> pointer + sizes, index ->
// i64), an occupancy bound where the target takes one, gpu.grid_dim from
// the dispatch packet on AMDGPU (TargetInfo::lowerGridDim), and shared
// memory over the static limit moved to dynamic shared memory where the
// chip has it (TargetInfo::getDynamicSharedMemoryLimit).

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s -split-input-file --argus-to-gpu="min-blocks-per-sm=2" | FileCheck %s --check-prefix=OCC

// CHECK-LABEL: gpu.module @argus_sm_90a [#nvvm.target<O = 3, chip = "sm_90a">]
// CHECK: gpu.func @abi(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// OCC-LABEL: gpu.func @abi
// OCC-SAME: nvvm.minctasm = 2 : i32
func.func @abi(%A: memref<?x?xf32>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  return
}

// -----

// sm_90 is lowered as sm_90a (the arch-specific PTX the instructions need).
// CHECK-LABEL: gpu.module @argus_sm_90a [#nvvm.target<O = 3, chip = "sm_90a">]
// CHECK: gpu.func @sm90
func.func @sm90()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90">} {
  return
}

// -----

// CHECK-LABEL: gpu.module @argus_gfx942 [#rocdl.target<O = 3, chip = "gfx942">]
// CHECK: gpu.func @amd
// CHECK-NOT: nvvm.minctasm
// OCC-LABEL: gpu.func @amd
// OCC-NOT: nvvm.minctasm
// OCC: gpu.return
func.func @amd(%A: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  return
}

// -----

// CHECK-LABEL: gpu.func @grid_dim_gfx942
// CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"
// CHECK: llvm.getelementptr {{.*}}[4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: llvm.load {{.*}} : !llvm.ptr<4> -> i16
// CHECK: llvm.getelementptr {{.*}}[12] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: arith.divui
// CHECK-NOT: gpu.grid_dim
func.func @grid_dim_gfx942(%A: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %g = gpu.grid_dim x
  %i = arith.index_cast %g : index to i32
  memref.store %i, %A[%c0] : memref<?xi32>
  return
}

// -----

// CHECK-LABEL: gpu.func @grid_dim_nvptx
// CHECK: gpu.grid_dim x
func.func @grid_dim_nvptx(%A: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %g = gpu.grid_dim x
  %i = arith.index_cast %g : index to i32
  memref.store %i, %A[%c0] : memref<?xi32>
  return
}

// -----

// 64 KiB on sm_90a: over the 48 KiB of static shared memory, so the buffer
// becomes a view of the extern dynamic array and the launch records it.
!S = !argus.tile<256x128xf16, shared, "(256,128):(128,1)">
// CHECK: module attributes {argus.launch = {dynamic_64k = #argus.kernel_launch<chip = "sm_90a", block = [{{.*}}], dynamic_smem = 65536,
// CHECK: memref.global "public" @__argus_dynamic_smem : memref<0xi8, 3> {alignment = 1024 : i64}
// CHECK-LABEL: gpu.func @dynamic_64k
// CHECK: memref.view
func.func @dynamic_64k()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S>
  argus.barrier
  return
}
