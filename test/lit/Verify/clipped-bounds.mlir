// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// A view clipped `to` bounds: a tensor of G segments of S rows stacked along
// its rows (the heads of an attention's (B * H * S, D) output), S not a
// multiple of the 32-row tile. Block (x, y) writes tile x of segment y;
// the last tile of a segment is cut at the segment's end, so it does not
// write the next segment's first rows.

// Cut at the segment's end: every element written exactly once (no
// diagnostic before the first violation below).
// CHECK-NOT: {{warning|error}}
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @segments_cut(%C: memref<?x4xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %s31 = arith.addi %S, %c31 : index
  %tiles = arith.divui %s31, %c32 : index
  %ok_t = arith.cmpi eq, %gx, %tiles : index
  argus.assume %ok_t, "grid_dim.x == ceil(S / 32)"
  %ok_s = arith.cmpi uge, %S, %c1 : index
  argus.assume %ok_s, "S >= 1"
  %cap = arith.constant 1048576 : index
  %capS = arith.divui %cap, %S : index
  %ok_c = arith.cmpi ult, %gy, %capS : index
  argus.assume %ok_c, "grid_dim.y * S < 2^20"
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gy, %S : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has grid_dim.y * S rows"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %seg0 = arith.muli %by, %S : index
  %toff = arith.muli %bx, %c32 : index
  %r0 = arith.addi %seg0, %toff : index
  %seg1 = arith.addi %seg0, %S : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%r0, %c0] clipped to [%seg1, %c4] : memref<?x4xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}

// -----

// The same tiles clipped at the tensor only: the last tile of a segment
// also writes the next segment's first rows, which that segment's first
// block writes too.
// CHECK-LABEL: error: output-once violated at 'argus.store'
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @segments_overlap(%C: memref<?x4xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %s31 = arith.addi %S, %c31 : index
  %tiles = arith.divui %s31, %c32 : index
  %ok_t = arith.cmpi eq, %gx, %tiles : index
  argus.assume %ok_t, "grid_dim.x == ceil(S / 32)"
  %ok_s = arith.cmpi uge, %S, %c1 : index
  argus.assume %ok_s, "S >= 1"
  %cap = arith.constant 1048576 : index
  %capS = arith.divui %cap, %S : index
  %ok_c = arith.cmpi ult, %gy, %capS : index
  argus.assume %ok_c, "grid_dim.y * S < 2^20"
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gy, %S : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has grid_dim.y * S rows"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %seg0 = arith.muli %by, %S : index
  %toff = arith.muli %bx, %c32 : index
  %r0 = arith.addi %seg0, %toff : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%r0, %c0] clipped : memref<?x4xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}

// -----

// Cut one row short of the segment's end: that row is never written.
// CHECK-LABEL: error: output-coverage violated
// CHECK: note: C[{{[0-9]+}}, {{[0-9]+}}] is inside its sizes [{{[0-9]+}}, 4] but no block, iteration or store op writes it
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @segments_cut_short(%C: memref<?x4xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %s31 = arith.addi %S, %c31 : index
  %tiles = arith.divui %s31, %c32 : index
  %ok_t = arith.cmpi eq, %gx, %tiles : index
  argus.assume %ok_t, "grid_dim.x == ceil(S / 32)"
  %ok_s = arith.cmpi uge, %S, %c1 : index
  argus.assume %ok_s, "S >= 1"
  %cap = arith.constant 1048576 : index
  %capS = arith.divui %cap, %S : index
  %ok_c = arith.cmpi ult, %gy, %capS : index
  argus.assume %ok_c, "grid_dim.y * S < 2^20"
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gy, %S : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has grid_dim.y * S rows"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %seg0 = arith.muli %by, %S : index
  %toff = arith.muli %bx, %c32 : index
  %r0 = arith.addi %seg0, %toff : index
  %seg1 = arith.addi %seg0, %S : index
  %short = arith.subi %seg1, %c1 : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%r0, %c0] clipped to [%short, %c4] : memref<?x4xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}

// -----

// The grid has S / 32 tiles per segment instead of ceil(S / 32): the
// partial last tile of every segment is never written. Each element's
// writer cannot be named (the naming misses on the launch it tries), so
// the blocks of a small launch are enumerated and an element none of them
// writes is found.
// CHECK-LABEL: error: output-coverage violated
// CHECK: note: C[{{[0-9]+}}, {{[0-9]+}}] is inside its sizes [{{[0-9]+}}, 4] but no block, iteration or store op writes it
!R = !argus.tile<32x4xf32, register, "(32,4):(1,32)">
!G = !argus.tile<32x4xf32, global>
func.func @segments_floor_grid(%C: memref<?x4xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %tiles = arith.divui %S, %c32 : index
  %ok_t = arith.cmpi eq, %gx, %tiles : index
  argus.assume %ok_t, "grid_dim.x == S / 32"
  %ok_s = arith.cmpi uge, %S, %c1 : index
  argus.assume %ok_s, "S >= 1"
  %cap = arith.constant 1048576 : index
  %capS = arith.divui %cap, %S : index
  %ok_c = arith.cmpi ult, %gy, %capS : index
  argus.assume %ok_c, "grid_dim.y * S < 2^20"
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gy, %S : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has grid_dim.y * S rows"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %seg0 = arith.muli %by, %S : index
  %toff = arith.muli %bx, %c32 : index
  %r0 = arith.addi %seg0, %toff : index
  %seg1 = arith.addi %seg0, %S : index
  %z = argus.fill 0.0 : !R
  %g = argus.view "C" %C[%r0, %c0] clipped to [%seg1, %c4] : memref<?x4xf32> -> !G
  argus.store %z, %g : !R, !G
  return
}

