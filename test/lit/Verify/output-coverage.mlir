// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// output-once and output-coverage: every element of an output tensor is
// written by exactly one block, loop iteration and store op, and every
// element inside its sizes is written.

// Two store ops, each writing half of the block's rows, and a loop over
// 16-row tiles: proved (no diagnostic before the first violation below).
// CHECK-NOT: {{warning|error}}
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @two_halves(%C: memref<?x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c64 : index
  %m1 = arith.addi %m0, %c32 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c64 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 64 rows per block"
  %z = argus.fill 0.0 : !R
  %g0 = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  argus.store %z, %g0 : !R, !G
  %g1 = argus.view "C" %C[%m1, %c0] : memref<?x4xf32> -> !G
  argus.store %z, %g1 : !R, !G
  return
}

// -----

// Each block writes its 32 rows in two iterations of a loop of 16-row
// tiles: proved (the writing iteration is solved from the row offset).
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @loop_tiles_ok(%C: memref<?x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c32 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c32 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 32 rows per block"
  %z = argus.fill 0.0 : !R
  scf.for %i = %c0 to %c2 step %c1 {
    %di = arith.muli %i, %c16 : index
    %r = arith.addi %m0, %di : index
    %g = argus.view "C" %C[%r, %c0] : memref<?x4xf32> -> !G
    argus.store %z, %g : !R, !G
  }
  return
}

// -----

// The second half starts one row early: row 31 of each block is written by
// both stores.
// CHECK-LABEL: output-coverage.mlir:{{[0-9]+}}:{{[0-9]+}}: error: output-once violated at 'argus.store'
// CHECK: note: C[31, {{[0-9]}}] is written twice: by 'argus.store' at {{.*}} in block (0) and by 'argus.store' at {{.*}} in block (0)
// CHECK: error: output-coverage violated at 'argus.store'
// CHECK: note: C[63, 0] is inside its sizes [64, 4] but no block, iteration or store op writes it
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @overlapping_halves(%C: memref<?x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c31 = arith.constant 31 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c64 : index
  %m1 = arith.addi %m0, %c31 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c64 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 64 rows per block"
  %z = argus.fill 0.0 : !R
  %g0 = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  argus.store %z, %g0 : !R, !G
  %g1 = argus.view "C" %C[%m1, %c0] : memref<?x4xf32> -> !G
  argus.store %z, %g1 : !R, !G
  return
}

// -----

// The store sits inside the k loop: every iteration writes the same tile.
// CHECK-LABEL: error: output-once violated at 'argus.store'
// CHECK: note: C[0, 0] is written twice: by 'argus.store' {{.*}} in block (0), scf.for at {{.*}} iteration 0 and by 'argus.store' {{.*}} in block (0), scf.for at {{.*}} iteration 1
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @store_in_loop(%C: memref<?x4xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c32 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c32 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 32 rows per block"
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  scf.for %k = %c0 to %K step %c1 {
    argus.store %z, %g : !R, !G
  }
  return
}

// -----

// The same, in a loop the user named (the DSL names loops after their
// variable): the counterexample calls it by that name.
// CHECK-LABEL: error: output-once violated at 'argus.store'
// CHECK: note: C[0, 0] is written twice: by 'argus.store' {{.*}} in block (0), loop 'k' (scf.for at {{.*}}) iteration 0 and by 'argus.store' {{.*}} in block (0), loop 'k' (scf.for at {{.*}}) iteration 1
#kloop = loc("k"("kernel.py":12:5))
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @store_in_named_loop(%C: memref<?x4xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c32 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c32 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 32 rows per block"
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  scf.for %k = %c0 to %K step %c1 {
    argus.store %z, %g : !R, !G
  } loc(#kloop)
  return
}
