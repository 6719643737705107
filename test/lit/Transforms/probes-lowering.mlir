// Probed markers lower to the record protocol of
// runtime/include/argus/runtime/ProbeFormat.h: lane 0 of each selected warp
// reads the timer, then appends a 32-byte record to its slot or counts a drop.

// RUN: argus-opt %s --argus-insert-probes="scope-warps=1 iteration-window=1:3" --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-insert-probes="clock=clock64" --argus-to-gpu | FileCheck %s --check-prefix=CLK

func.func @k(%n: index) attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    argus.region.begin "body" id 7
    argus.barrier
    argus.region.end id 7
  }
  return
}

// The probe buffer is the extra last argument.
// CHECK: memref.global "private" @__argus_probe_counts_k : memref<4xi32, 3>
// CHECK: gpu.func @k(%{{.*}}: i64, %[[BUF:.*]]: !llvm.ptr<1>) kernel
// Prelude: warp and lane, the linear block, num_slots (byte 8) and capacity
// (byte 12) from the header, this warp's slot and its first record.
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32
// CHECK: llvm.getelementptr %[[BUF]][%c8_i64]
// CHECK: llvm.load
// CHECK: llvm.getelementptr %[[BUF]][%c12_i64]
// CHECK: %[[CAP:.*]] = llvm.load
// CHECK: %[[VALID:.*]] = arith.cmpi ult
// The slot's counters move to shared memory for the kernel's duration.
// CHECK: %[[COUNTS:.*]] = memref.get_global @__argus_probe_counts_k
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[COUNTS]]
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// lane == 0, valid slot, warp in scope-warps, iteration in the window:
// CHECK: arith.cmpi eq, %[[LANE]], %c0
// CHECK: arith.cmpi eq, %[[WARP]], %c1
// CHECK: arith.cmpi uge, %{{.*}}, %c1
// CHECK: arith.cmpi ult, %{{.*}}, %c3
// CHECK: scf.if
// CHECK-NEXT: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: nvvm.read.ptx.sreg.smid : i32
// Full slots count a drop; otherwise two 16-byte record stores.
// CHECK: arith.cmpi uge, %{{.*}}, %[[CAP]]
// CHECK: scf.if
// CHECK: } else {
// Region id 7, begin (flag 0): {id, flags, block, warp}, {iter, sm, ts lo, ts hi}.
// CHECK: vector.from_elements %c7_i32, %c0_i32,
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: gpu.barrier
// CHECK: nvvm.read.ptx.sreg.globaltimer
// CHECK: vector.from_elements %c7_i32, %c1_i32,
// The counters go back to the slot before the kernel returns.
// CHECK: memref.load %[[COUNTS]]
// CHECK: llvm.store
// CHECK: gpu.return
// CHECK-NOT: argus.

// CLK: nvvm.read.ptx.sreg.clock64 : i64
