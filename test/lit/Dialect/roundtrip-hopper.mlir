// RUN: argus-opt %s | FileCheck %s
// RUN: argus-opt %s | argus-opt | FileCheck %s
// RUN: argus-opt %s --mlir-print-op-generic | argus-opt | FileCheck %s

// The sm_90a asynchronous ops: one function per op family.

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>

// CHECK-LABEL: func.func private @types
// CHECK-SAME: !argus.tensor_map<128x64xbf16, swizzle = 128>
// CHECK-SAME: !argus.tensor_map<16xf32, swizzle = 0>
// CHECK-SAME: !argus.mbarrier<4>
func.func private @types(!argus.tensor_map<128x64xbf16, swizzle = 128>,
                         !argus.tensor_map<16xf32, swizzle = 0>,
                         !argus.mbarrier<4>)

// CHECK-LABEL: func.func @tma
// CHECK: %[[MAP:.*]] = argus.tensor_map "A" %{{.*}} : memref<?x?xbf16> -> <64x64xbf16, swizzle = 128>
// CHECK: %[[BAR:.*]] = argus.mbarrier.alloc "full" arrivals 1 : <2>
// CHECK: argus.mbarrier.arrive_expect_tx %[[BAR]][%{{.*}}], 8192 : <2>
// CHECK: argus.tma_load %{{.*}}, %{{.*}}, %[[MAP]], %[[BAR]][%{{.*}}] : <64x64xbf16, global>, <64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">, <64x64xbf16, swizzle = 128>, <2>
// CHECK: argus.mbarrier.wait %[[BAR]][%{{.*}}], %{{.*}} : <2>
// CHECK: argus.mbarrier.arrive %[[BAR]][%{{.*}}] : <2>
// CHECK: argus.fence_proxy_async
func.func @tma(%A: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  %buf = argus.alloc "sA" : !argus.buffer<2 x !SA>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  %s = argus.stage %buf[%c0] : !argus.buffer<2 x !SA>
  %g = argus.view "A" %A[%i, %i] : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  argus.mbarrier.arrive_expect_tx %bar[%c0], 8192 : !argus.mbarrier<2>
  argus.tma_load %g, %s, %map, %bar[%c0] : !argus.tile<64x64xbf16, global>, !SA, !argus.tensor_map<64x64xbf16, swizzle = 128>, !argus.mbarrier<2>
  argus.mbarrier.wait %bar[%c0], %c0 : !argus.mbarrier<2>
  argus.mbarrier.arrive %bar[%c0] : !argus.mbarrier<2>
  argus.fence_proxy_async
  return
}

// CHECK-LABEL: func.func @tma_store
// CHECK: %[[MAP:.*]] = argus.tensor_map "C" %{{.*}} : memref<?x?xbf16> -> <64x64xbf16, swizzle = 128>
// CHECK: argus.tma_store %{{.*}}, %{{.*}}, %[[MAP]] : <64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">, <64x64xbf16, global>, <64x64xbf16, swizzle = 128>
// CHECK: argus.tma_store_wait 0
// CHECK: argus.role "c" warps 0 to 4 {
// CHECK-NEXT: argus.barrier
func.func @tma_store(%C: memref<?x?xbf16>, %i: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !argus.tensor_map<64x64xbf16, swizzle = 128>
  %buf = argus.alloc "sC" : !argus.buffer<1 x !SA>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SA>
  %g = argus.view "C" %C[%i, %i] clipped : memref<?x?xbf16> -> !argus.tile<64x64xbf16, global>
  argus.tma_store %s, %g, %map : !SA, !argus.tile<64x64xbf16, global>, !argus.tensor_map<64x64xbf16, swizzle = 128>
  argus.tma_store_wait 0
  argus.role "c" warps 0 to 4 {
    argus.barrier
  }
  return
}

// CHECK-LABEL: func.func @roles
// CHECK: argus.role "producer" warps 0 to 4 regs 40 {
// CHECK: argus.role "consumer" warps 4 to 8 {
// CHECK: argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %{{.*}}, %{{.*}}, %{{.*}} : <64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">, <64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">, <64x128xf32, register, #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>>
// CHECK: argus.wgmma_commit
// CHECK: argus.wgmma_wait 1
// CHECK: %{{.*}} = argus.wgmma_wait 0, %{{.*}} : !argus.tile<64x128xf32
func.func @roles(%sa: !SA, %sb: !SB)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 regs 40 {
  }
  argus.role "consumer" warps 4 to 8 {
    %z = argus.fill 0.0 : !RC
    %a1 = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %sa, %sb, %z : !SA, !SB, !RC
    argus.wgmma_commit
    argus.wgmma_wait 1
    %a2 = argus.wgmma_wait 0, %a1 : !RC
  }
  return
}

// Named barriers (issue scheduling between warpgroups), slots constant or
// computed.
// CHECK-LABEL: func.func @named_barriers(
// CHECK: argus.named_barrier.arrive %{{.*}}, 256
// CHECK: argus.named_barrier.sync %{{.*}}, 256
func.func @named_barriers(%wg: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c1 = arith.constant 1 : index
  argus.named_barrier.arrive %c1, 256
  argus.named_barrier.sync %wg, 256
  return
}

// A thread-block cluster on the kernel; a multicast TMA load and a
// cluster-wide arrive.
!TBc = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SBc = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!GBc = !argus.tile<64x128xbf16, global>
// CHECK-LABEL: func.func @cluster_ops(
// CHECK-SAME: #argus.kernel<block = [256], target = "sm_90a", cluster = [2, 1, 1]>
// CHECK: argus.tma_load {{.*}}%{{.*}}[%{{.*}}] multicast :
// CHECK: argus.mbarrier.arrive %{{.*}}[%{{.*}}] cluster :
// CHECK: argus.mbarrier.arrive %{{.*}}[%{{.*}}] :
func.func @cluster_ops(%B: memref<?x?xbf16>, %k: index, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a", cluster = [2, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TBc
  %buf = argus.alloc "sB" : !argus.buffer<1 x !SBc>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %empty = argus.mbarrier.alloc "empty" arrivals 512 : !argus.mbarrier<2>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SBc>
  %g = argus.view "B" %B[%k, %n] : memref<?x?xbf16> -> !GBc
  argus.tma_load %g, %s, %map, %full[%c0] multicast : !GBc, !SBc, !TBc, !argus.mbarrier<1>
  argus.mbarrier.arrive %empty[%c0] cluster : !argus.mbarrier<2>
  argus.mbarrier.arrive %empty[%c0] : !argus.mbarrier<2>
  return
}
