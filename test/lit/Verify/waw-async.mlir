// RUN: not argus-opt %s --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s
// Two asynchronous copies of one thread into one element: the first is
// still in flight when the second is issued, so either may land last.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
func.func @async_same_thread(%A: memref<64x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<64x8xf32> -> !G
  argus.copy_async %g, %s0 threads #Copy : !G, !S
  argus.commit_group
  %g2 = argus.view "A" %A[%c0, %c4] : memref<64x8xf32> -> !G
  // CHECK-LABEL: error: write-after-write violated
  // CHECK-SAME: at 'argus.copy_async' ({{.*}}:[[@LINE+2]]:
  // CHECK: note: {{.*}}wrote sA[offset {{[0-9]+}}] at 'argus.copy_async'{{.*}}no wait_group and barrier in between
  argus.copy_async %g2, %s0 threads #Copy : !G, !S
  argus.commit_group
  argus.wait_group 0
  argus.barrier
  return
}
