// Named barriers (bar.sync / bar.arrive with an id and a thread count):
// the named-barrier check runs each warp's barrier operations against the
// hardware's semantics. Before, every kernel below had every check proved,
// the four that hang included.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: argus-opt %t/syncs_fixed.mlir --argus-verify-tags="report=-" -o /dev/null | FileCheck %s --check-prefix=PROVED
// RUN: not argus-opt %t/pingpong_fixed.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not argus-opt %t/pingpong.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHOWN
// RUN: not argus-opt %t/missing_arrive.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not argus-opt %t/wrong_id.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRONGID
// RUN: not argus-opt %t/wrong_count.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not argus-opt %t/deadlock_order.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER

// PROVED: "kind": "named-barrier"
// PROVED: "predicate"
// PROVED: "status": "proved"
// PROVED: "witness": "the barrier operations of every warp do not depend on the launch, and only bar.sync of all the warps using an id

// A bar.arrive lets a warp run ahead: one run shows one schedule.
// SCHEDULE: warning: named-barrier is unknown at 'argus.named_barrier.arrive': deadlock freedom of the named barriers is shown only for the launches run (launch arg0={{[0-9]+}}: {{[0-9]+}} barrier operations) in one schedule, not for every schedule: a bar.arrive

// SHOWN: warning: named-barrier is unknown at 'argus.named_barrier.arrive': deadlock freedom of the named barriers is shown only for the launches run (launch arg0=

// MISSING: error: named-barrier violated at 'argus.named_barrier.sync'
// MISSING: note: deadlock: every warp left is waiting at a named barrier
// MISSING: note: warp 4 at 'argus.named_barrier.sync' {{.*}} waits forever on barrier 0, generation 0: 128 of 256 threads arrived
// MISSING: note: warp 8 at 'argus.named_barrier.sync' {{.*}} waits forever on barrier 1, generation 0: 128 of 256 threads arrived

// WRONGID: error: named-barrier violated
// WRONGID: note: kernel arguments: arg0=
// WRONGID: note: deadlock
// WRONGID: note: warp 8 at 'argus.named_barrier.sync' {{.*}} waits forever on barrier 1

// COUNT: error: named-barrier violated
// COUNT: note: barrier 0, generation 0: warp 8 at 'argus.named_barrier.arrive' {{.*}} counts 384 threads
// COUNT: note: but the generation began with 256 at 'argus.named_barrier.sync'

// ORDER: error: named-barrier violated
// ORDER: note: deadlock
// ORDER: note: warp 4 at 'argus.named_barrier.sync' {{.*}} = 0) waits forever on barrier 0

//--- syncs_fixed.mlir
// all eight warps of the role meet at barrier 0 four times (bar.sync only)
func.func @syncs_fixed(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  argus.role "consumer" warps 4 to 12 {
    scf.for %j = %c0 to %c4 step %c1 {
      argus.named_barrier.sync %c0, 256
    }
  }
  return
}

//--- pingpong_fixed.mlir
// warpgroup 1 lets warpgroup 0 go first; then they alternate, four turns each
func.func @pingpong_fixed(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.if %is1 {
      argus.named_barrier.arrive %c0, 256
    }
    scf.for %j = %c0 to %c4 step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %other, 256
    }
  }
  return
}

//--- pingpong.mlir
// the same for N turns: shown for the launches run, not proved for every N
func.func @pingpong(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.if %is1 {
      argus.named_barrier.arrive %c0, 256
    }
    scf.for %j = %c0 to %N step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %other, 256
    }
  }
  return
}

//--- missing_arrive.mlir
// the first arrive left out: warpgroup 0 waits for warpgroup 1, which waits for warpgroup 0
func.func @missing_arrive(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.if %is1 {
      
    }
    scf.for %j = %c0 to %c4 step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %other, 256
    }
  }
  return
}

//--- wrong_id.mlir
// the turn is handed to the own barrier id instead of the other warpgroup's
func.func @wrong_id(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.if %is1 {
      argus.named_barrier.arrive %c0, 256
    }
    scf.for %j = %c0 to %N step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %wg, 256
    }
  }
  return
}

//--- wrong_count.mlir
// the first arrive counts 384 threads where the sync counts 256
func.func @wrong_count(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.if %is1 {
      argus.named_barrier.arrive %c0, 384
    }
    scf.for %j = %c0 to %c4 step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %other, 256
    }
  }
  return
}

//--- deadlock_order.mlir
// the first turn handed over after the loop instead of before it: warpgroup
// 0 waits for an arrive that comes after warpgroup 1's loop, which waits for
// warpgroup 0
func.func @deadlock_order(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %w = arith.divui %t, %c128 : index
    %wg = arith.subi %w, %c1 : index
    %other = arith.subi %c1, %wg : index
    %is1 = arith.cmpi eq, %wg, %c1 : index
    scf.for %j = %c0 to %c4 step %c1 {
      argus.named_barrier.sync %wg, 256
      argus.named_barrier.arrive %other, 256
    }
    scf.if %is1 {
      argus.named_barrier.arrive %c0, 256
    }
  }
  return
}
