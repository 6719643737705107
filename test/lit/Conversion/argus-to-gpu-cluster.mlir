// Thread-block clusters in argus-to-gpu (KernelOutlining.cpp,
// MBarrierLowering.cpp, TmaLowering.cpp): a kernel with `cluster` records
// its shape for the launch (argus_cluster, known_cluster_size ->
// .reqnctapercluster); the mbarrier inits end with a cluster barrier (other
// blocks arrive on these barriers and multicast into them), and so does the
// kernel (no block exits while another may still reach its shared memory);
// a multicast TMA load issues box j from the block of rank j % n with the
// mask of every block; a cluster-wide arrive is one arrive per warp and
// block, counting the warp's 32 threads.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s -split-input-file --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// (The dump holds the last kernel of the file.)
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json

// CHECK-LABEL: gpu.func @cluster_arrive
// CHECK: "{\0A.reg .b32 ra, lane;\0A.reg .pred p;\0Abar.warp.sync -1;\0Amov.u32 lane, %laneid;\0Asetp.eq.u32 p, lane, 0;\0A@p mapa.shared::cluster.u32 ra, $0, 0;\0A@p mbarrier.arrive.shared::cluster.b64 _, [ra], 32;\0A@p mapa.shared::cluster.u32 ra, $0, 1;\0A@p mbarrier.arrive.shared::cluster.b64 _, [ra], 32;\0A}", "r"
func.func @cluster_arrive(%s: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a", cluster = [2, 1, 1]>} {
  %empty = argus.mbarrier.alloc "empty" arrivals 256 : !argus.mbarrier<2>
  argus.mbarrier.arrive %empty[%s] cluster : !argus.mbarrier<2>
  return
}

// -----

!TB = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SB = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!GB = !argus.tile<64x256xbf16, global>
// CHECK-LABEL: gpu.func @multicast(
// CHECK-SAME: argus_cluster = array<i64: 2, 1, 1>
// CHECK-SAME: known_cluster_size = array<i32: 2, 1, 1>
// CHECK: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK: "barrier.cluster.arrive.release.aligned;\0Abarrier.cluster.wait.acquire.aligned;"
// CHECK: "{\0A.reg .b32 r;{{.*}}mov.u32 r, %cluster_ctarank;\0Asetp.eq.u32 p, r, 0;\0Amov.b16 m, 3;\0A@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [$0], [$1, {$2, $3}], [$4], m;\0A}"
// CHECK: "{{.*}}setp.eq.u32 p, r, 1;{{.*}}multicast::cluster
// CHECK: "{{.*}}setp.eq.u32 p, r, 0;{{.*}}multicast::cluster
// CHECK: "{{.*}}setp.eq.u32 p, r, 1;{{.*}}multicast::cluster
// CHECK: "barrier.cluster.arrive.release.aligned;\0Abarrier.cluster.wait.acquire.aligned;"
// CHECK-NEXT: gpu.return
// PTX: .reqnctapercluster 2, 1, 1
// PTX-COUNT-4: multicast::cluster
// JSON: "cluster": [
// JSON-NEXT: 2,
// JSON-NEXT: 1,
// JSON-NEXT: 1
func.func @multicast(%B: memref<?x?xbf16>, %k: index, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a", cluster = [2]>} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TB
  %buf = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SB>
  %g = argus.view "B" %B[%k, %n] : memref<?x?xbf16> -> !GB
  argus.tma_load %g, %s, %map, %bar[%c0] multicast : !GB, !SB, !TB, !argus.mbarrier<1>
  return
}
