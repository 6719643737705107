// argus.scan (ExchangeLowering.cpp, ScanLowering): a thread scans its own
// runs of a row in order, the run totals are scanned across the lanes that
// share the row with Hillis-Steele index shuffles (log2 steps, made
// exclusive with one more shuffle; the warp size is the target's), and the
// warp totals meet in the shared scratch when a row spans warps. One kernel
// per case; the PTX assembles with ptxas and the gfx942 ISA with llvm-mc.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s -split-input-file --argus-to-nvptx -o /dev/null
// RUN: argus-opt %s -split-input-file --argus-to-gfx942 -o /dev/null

!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
// Each thread holds its whole row: a sequential scan, no exchange.
// CHECK-LABEL: gpu.func @scan_in_thread
// CHECK-NOT: memref.global
// CHECK-COUNT-3: arith.addf {{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @scan_in_thread()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}

// -----

!R = !argus.tile<4x32xf32, register, "(32,4):(4,1)">
// A row over the 32 lanes of a warp: five shuffle steps (lane - 1 ... lane
// - 16, kept only where the rank allows), one for the exclusive prefix, one
// for the row total; no scratch, no barrier.
// CHECK-LABEL: gpu.func @scan_warp_nvptx
// CHECK-NOT: gpu.barrier
// CHECK: %[[HAS:.*]] = arith.cmpi uge, %{{.*}}, %c1
// CHECK: %[[SRC:.*]] = arith.subi %[[LANE:.*]], %c1
// CHECK: %[[FROM:.*]] = arith.select %[[HAS]], %[[SRC]], %[[LANE]] : index
// CHECK: %[[I:.*]] = arith.index_cast %[[FROM]] : index to i32
// CHECK: gpu.shuffle  idx %{{.*}}, %[[I]], %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK-COUNT-4: gpu.shuffle  idx
// CHECK: gpu.shuffle  idx
// CHECK: gpu.shuffle  idx
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @scan_warp_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scan max %x dim 1 : !R -> !R
  return
}

// -----

!R = !argus.tile<4x64xi32, register, "(64,4):(4,1)">
// The same over gfx942's 64-lane wavefront: six steps, width 64.
// CHECK-LABEL: gpu.func @scan_warp_gfx942
// CHECK-COUNT-6: gpu.shuffle  idx {{.*}}, %c64_i32 : i32
// CHECK: gpu.shuffle  idx {{.*}}, %c64_i32 : i32
// CHECK: arith.muli
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @scan_warp_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %x = argus.iota dim 1 : !R
  %s = argus.scan prod %x dim 1 : !R -> !R
  return
}

// -----

!R = !argus.tile<2x256xf32, register, "(64,(2,4)):(4,(256,1))">
// A row over two warps, four consecutive elements per thread: a sequential
// scan of the run, five shuffle steps over the warp, then the last lane of
// each warp writes the warp's total to the scratch (row * warps + warp),
// a barrier, and every thread combines the totals of the warps before its
// own.
// CHECK-LABEL: gpu.module @argus_sm_90a
// CHECK: memref.global "private" @__argus_xchg_scan_two_warps_f32 : memref<512xf32, 3>
// CHECK-LABEL: gpu.func @scan_two_warps
// CHECK-COUNT-3: arith.addf {{.*}} : f32
// CHECK-COUNT-7: gpu.shuffle  idx
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c31
// CHECK: scf.if %[[LAST]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<512xf32, 3>
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: arith.cmpi ult
// CHECK: memref.load
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @scan_two_warps()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}

// -----

!R = !argus.tile<16x128xf32, register, "((32,4),(4,4)):((64,1),(16,4))">
// Along dim 0 of a blocked layout: each thread holds every fourth row of a
// column (four rounds of one element), the four ranks are four warps
// (stride 32): no shuffle, the round totals of each warp meet in the
// scratch.
// CHECK-LABEL: gpu.func @scan_rounds
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @scan_rounds()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scan min %x dim 0 : !R -> !R
  return
}

// -----

!R = !argus.tile<4x32xf16, register, "(32,4):(4,1)">
// f16 values travel widened to f32 through the shuffles.
// CHECK-LABEL: gpu.func @scan_half
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: gpu.shuffle  idx {{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @scan_half()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %x = argus.fill 1.0 : !R
  %s = argus.scan sum %x dim 1 : !R -> !R
  return
}
