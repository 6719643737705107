// --argus-verify-tags threads=N is bounded (issue 54: threads=1000 took
// 17 GB and 95 s, threads=0 was accepted): 1 to 64 shards, as
// argus.verify's threads=, else an error before the verification, without
// the module printed.
// RUN: not argus-opt %s --argus-verify-tags="threads=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not argus-opt %s --argus-verify-tags="threads=65" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY
// Within the bound the checks run (a proved kernel stays proved).
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-verify-tags="threads=2" -o /dev/null

// ZERO: error: argus-verify-tags: threads=0 is not allowed; hint: threads is the number of shards the checks run on (one thread and Z3 context each), from 1 to 64
// ZERO-NOT: func.func
// MANY: error: argus-verify-tags: threads=65 is not allowed; hint: {{.*}} from 1 to 64

// The options are judged before the kernel is looked at.
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @k(%X: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x4xf32, global>
  %r = argus.load %x : !argus.tile<64x4xf32, global> -> !R
  argus.store %r, %x : !R, !argus.tile<64x4xf32, global>
  return
}
