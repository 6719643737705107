// The TMA patterns of argus-to-gpu (TmaLowering.cpp): a tensor map is the
// kernel's by-value parameter (prefetched once per block), a TMA load one
// cp.async.bulk.tensor per box from the first thread, and the async-proxy
// fence fence.proxy.async where the target has TMA (TargetInfo::hasTma:
// sm_90a); without an async proxy (gfx942) the fence vanishes.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

!TA = !argus.tensor_map<64x64xbf16, swizzle = 128>
// CHECK-LABEL: gpu.func @tensor_map(
// CHECK-SAME: %[[MAP:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64})
// CHECK-SAME: argus_tensor_maps = [#argus.tensor_map_param<param = 3, name = "A", arg = 0, box = [64, 64], element = bf16, swizzle = 128, oob_fill = "zero", pass = "value">]
// CHECK: scf.if
// CHECK-NEXT: "prefetch.tensormap [$0];", "l" %[[MAP]]
func.func @tensor_map(%A: memref<?x?xbf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA
  return
}

// -----

!TA = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!GA = !argus.tile<64x64xbf16, global>
// Coordinates innermost first (column, row), from the view's offsets.
// CHECK-LABEL: gpu.func @tma_load(
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[COL:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.if
// CHECK: "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r" %{{.*}}, %{{.*}}, %[[COL]], %[[ROW]], %{{.*}}
func.func @tma_load(%A: memref<?x?xbf16>, %m: index, %k: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA
  %buf = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SA>
  %g = argus.view "A" %A[%m, %k] : memref<?x?xbf16> -> !GA
  argus.tma_load %g, %s, %map, %bar[%c0] : !GA, !SA, !TA, !argus.mbarrier<1>
  return
}

// -----

// CHECK-LABEL: gpu.func @fence_nvptx
// CHECK: "fence.proxy.async.shared::cta;", ""
func.func @fence_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.fence_proxy_async
  return
}

// -----

// CHECK-LABEL: gpu.func @fence_gfx942
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
func.func @fence_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  argus.fence_proxy_async
  return
}
