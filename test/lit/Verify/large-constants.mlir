// RUN: argus-opt %s --argus-verify-tags="allow-unknown=true" -o /dev/null 2>&1 | FileCheck %s

// Index terms are 24-bit: a constant divisor or modulus at or above 2^23
// cannot be modelled and makes the checks that use it unknown, with the
// constant named. (It used to be truncated to 24 bits, which modelled
// another kernel, and a loop-carried `mod 2^31 - 1` made the verifier run
// for a minute and use gigabytes: found by the long fuzz run.)
// CHECK-LABEL: large-constants.mlir:{{[0-9]+}}:3: warning: out-of-bounds is unknown at 'argus.store': constant 2147483647 out of the modelled range [0, 2^23)
!R = !argus.tile<16x4xf32, register, "(32,2):(1,32)">
!G = !argus.tile<16x4xf32, global>
func.func @huge_modulus(%C: memref<?x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %big = arith.constant 2147483647 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c16 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 16 rows per block"
  %b16 = arith.muli %bx, %c16 : index
  %m0 = arith.remui %b16, %big : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}
