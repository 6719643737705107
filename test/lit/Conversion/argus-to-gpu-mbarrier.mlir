// The mbarrier patterns of argus-to-gpu (MBarrierLowering.cpp): a ring of
// shared mbarriers is an 8-byte-aligned workgroup global of i64 that the
// first thread initialises (then one fence and one block barrier); arrive,
// arrive with an expected transaction count and the parity wait are the
// PTX instructions on barrier[stage] (sm_90a only: TargetInfo::
// hasMBarrier; errors.mlir has the gfx942 error).

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

// CHECK: memref.global "private" @__argus_ring_full : memref<2xi64, 3> {alignment = 8 : i64}
// CHECK-LABEL: gpu.func @ring
// CHECK: memref.get_global @__argus_ring_full : memref<2xi64, 3>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-2: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK: "fence.mbarrier_init.release.cluster;"
// CHECK: gpu.barrier
func.func @ring()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  return
}

// -----

// barrier[s] is 8 s bytes into the ring.
// CHECK-LABEL: gpu.func @arrive
// CHECK: arith.muli %{{.*}}, %c8_i32
// CHECK: "mbarrier.arrive.shared::cta.b64 _, [$0];"
func.func @arrive(%s: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !argus.mbarrier<2>
  argus.mbarrier.arrive %empty[%s] : !argus.mbarrier<2>
  return
}

// -----

// expect_tx: the first thread of the block (or role) only.
// CHECK-LABEL: gpu.func @arrive_expect_tx
// CHECK: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], 4096;"
func.func @arrive_expect_tx(%s: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  argus.mbarrier.arrive_expect_tx %full[%s], 4096 : !argus.mbarrier<2>
  return
}

// -----

// The wait: a try_wait.parity loop in every thread.
// CHECK-LABEL: gpu.func @wait
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;
// CHECK-SAME: "r,r"
func.func @wait(%s: index, %parity: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  argus.mbarrier.wait %full[%s], %parity : !argus.mbarrier<2>
  return
}
