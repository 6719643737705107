// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// Output coverage of persistent tile loops in a grouped raster order (tile
// rows walked in groups of 8, column by column inside a group, for L2
// reuse): the tile index is read as mixed-radix digits (group, then column
// and row inside it), each digit solved from the offset that holds it, and
// the digits are checked to be the index's (quotient and remainder at each
// level).

// Triton's order: group g = t / (8 n), position p = t % (8 n), the group's
// rows min(tiles_m - 8 g, 8) (fewer in a last, partial group), row
// 8 g + p % rows, column p / rows. The tile count is written per group
// (full groups times 8 n plus the last group's rows times n), which the
// arithmetic lemmas relate to the digits; written tiles_m * tiles_n, the
// equality of the two counts needs distributivity, which the lemmas do not
// have (coverage and bounds are then unknown). Proved.
// CHECK-NOT: {{warning|error}}
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @grouped_ragged(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %mr = arith.remui %M, %c16 : index
  %nr = arith.remui %N, %c4 : index
  %mok = arith.cmpi eq, %mr, %c0 : index
  %nok = arith.cmpi eq, %nr, %c0 : index
  %ok = arith.andi %mok, %nok : i1
  argus.assume %ok, "C is made of 16 x 4 tiles"
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %msmall = arith.cmpi ult, %M, %c8192 : index
  %nsmall = arith.cmpi ult, %N, %c4096 : index
  %small = arith.andi %msmall, %nsmall : i1
  argus.assume %small, "M < 8192, N < 4096"
  %tiles_m = arith.divui %M, %c16 : index
  %tiles_n = arith.divui %N, %c4 : index
  %per_group = arith.muli %tiles_n, %c8 : index
  %full = arith.divui %tiles_m, %c8 : index
  %last = arith.remui %tiles_m, %c8 : index
  %full_tiles = arith.muli %full, %per_group : index
  %last_tiles = arith.muli %last, %tiles_n : index
  %tiles = arith.addi %full_tiles, %last_tiles : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %z = argus.fill 0.0 : !R
  scf.for %t = %bid to %tiles step %grid {
    %g = arith.divui %t, %per_group : index
    %p = arith.remui %t, %per_group : index
    %first = arith.muli %g, %c8 : index
    %left = arith.subi %tiles_m, %first : index
    %rows = arith.minui %left, %c8 : index
    %r = arith.remui %p, %rows : index
    %tm = arith.addi %first, %r : index
    %tn = arith.divui %p, %rows : index
    %m0 = arith.muli %tm, %c16 : index
    %n0 = arith.muli %tn, %c4 : index
    %v = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !G
    argus.store %z, %v : !R, !G
  }
  return
}


// -----

// Groups padded to 8 tile rows (tiles past the last row skipped by a
// guard): proved.
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @grouped_padded(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %mr = arith.remui %M, %c16 : index
  %nr = arith.remui %N, %c4 : index
  %mok = arith.cmpi eq, %mr, %c0 : index
  %nok = arith.cmpi eq, %nr, %c0 : index
  %ok = arith.andi %mok, %nok : i1
  argus.assume %ok, "C is made of 16 x 4 tiles"
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %msmall = arith.cmpi ult, %M, %c8192 : index
  %nsmall = arith.cmpi ult, %N, %c4096 : index
  %small = arith.andi %msmall, %nsmall : i1
  argus.assume %small, "M < 8192, N < 4096"
  %tiles_m = arith.divui %M, %c16 : index
  %tiles_n = arith.divui %N, %c4 : index
  %groups = arith.ceildivui %tiles_m, %c8 : index
  %gn = arith.muli %groups, %tiles_n : index
  %tiles = arith.muli %gn, %c8 : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %z = argus.fill 0.0 : !R
  scf.for %t = %bid to %tiles step %grid {
    %r = arith.remui %t, %c8 : index
    %u = arith.divui %t, %c8 : index
    %tn = arith.remui %u, %tiles_n : index
    %g = arith.divui %u, %tiles_n : index
    %g8 = arith.muli %g, %c8 : index
    %tm = arith.addi %g8, %r : index
    %inside = arith.cmpi ult, %tm, %tiles_m : index
    scf.if %inside {
      %m0 = arith.muli %tm, %c16 : index
      %n0 = arith.muli %tn, %c4 : index
      %v = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !G
      argus.store %z, %v : !R, !G
    }
  }
  return
}

// -----

// The same order with the group read off t / (8 * tiles_n) and the column
// off (t / 8) % tiles_n: a divisor and its multiple (the digit of the
// multiple is the quotient's digit): proved.
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @grouped_by_multiple(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %mr = arith.remui %M, %c16 : index
  %nr = arith.remui %N, %c4 : index
  %mok = arith.cmpi eq, %mr, %c0 : index
  %nok = arith.cmpi eq, %nr, %c0 : index
  %ok = arith.andi %mok, %nok : i1
  argus.assume %ok, "C is made of 16 x 4 tiles"
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %msmall = arith.cmpi ult, %M, %c8192 : index
  %nsmall = arith.cmpi ult, %N, %c4096 : index
  %small = arith.andi %msmall, %nsmall : i1
  argus.assume %small, "M < 8192, N < 4096"
  %tiles_m = arith.divui %M, %c16 : index
  %tiles_n = arith.divui %N, %c4 : index
  %groups = arith.ceildivui %tiles_m, %c8 : index
  %gn = arith.muli %groups, %tiles_n : index
  %tiles = arith.muli %gn, %c8 : index
  %per_group = arith.muli %c8, %tiles_n : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %z = argus.fill 0.0 : !R
  scf.for %t = %bid to %tiles step %grid {
    %g = arith.divui %t, %per_group : index
    %r = arith.remui %t, %c8 : index
    %u = arith.divui %t, %c8 : index
    %tn = arith.remui %u, %tiles_n : index
    %g8 = arith.muli %g, %c8 : index
    %tm = arith.addi %g8, %r : index
    %inside = arith.cmpi ult, %tm, %tiles_m : index
    scf.if %inside {
      %m0 = arith.muli %tm, %c16 : index
      %n0 = arith.muli %tn, %c4 : index
      %v = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !G
      argus.store %z, %v : !R, !G
    }
  }
  return
}

// -----

// The loop counts whole groups only (tiles_m / 8 rounded down): the tile
// rows of a last, partial group are never written.
// CHECK-LABEL: persistent-grouped-raster.mlir:{{[0-9]+}}:7: error: output-coverage violated at 'argus.store'
// CHECK: note: C[{{[0-9]+}}, {{[0-9]+}}] is inside its sizes [{{[0-9]+}}, {{[0-9]+}}] but no block, iteration or store op writes it
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @grouped_drops_partial_group(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %mr = arith.remui %M, %c16 : index
  %nr = arith.remui %N, %c4 : index
  %mok = arith.cmpi eq, %mr, %c0 : index
  %nok = arith.cmpi eq, %nr, %c0 : index
  %ok = arith.andi %mok, %nok : i1
  argus.assume %ok, "C is made of 16 x 4 tiles"
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %msmall = arith.cmpi ult, %M, %c8192 : index
  %nsmall = arith.cmpi ult, %N, %c4096 : index
  %small = arith.andi %msmall, %nsmall : i1
  argus.assume %small, "M < 8192, N < 4096"
  %tiles_m = arith.divui %M, %c16 : index
  %tiles_n = arith.divui %N, %c4 : index
  %groups = arith.divui %tiles_m, %c8 : index
  %gn = arith.muli %groups, %tiles_n : index
  %tiles = arith.muli %gn, %c8 : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %z = argus.fill 0.0 : !R
  scf.for %t = %bid to %tiles step %grid {
    %r = arith.remui %t, %c8 : index
    %u = arith.divui %t, %c8 : index
    %tn = arith.remui %u, %tiles_n : index
    %g = arith.divui %u, %tiles_n : index
    %g8 = arith.muli %g, %c8 : index
    %tm = arith.addi %g8, %r : index
    %inside = arith.cmpi ult, %tm, %tiles_m : index
    scf.if %inside {
      %m0 = arith.muli %tm, %c16 : index
      %n0 = arith.muli %tn, %c4 : index
      %v = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !G
      argus.store %z, %v : !R, !G
    }
  }
  return
}
// -----

// The group's rows taken as 8 also in the last, partial group: its tiles
// land on rows past the last tile row, and the rows it should write are
// left unwritten.
// CHECK-LABEL: persistent-grouped-raster.mlir:{{[0-9]+}}:5: error: out-of-bounds violated at 'argus.store'
// CHECK: persistent-grouped-raster.mlir:{{[0-9]+}}:5: error: output-coverage violated at 'argus.store'
!R = !argus.tile<16x4xf32, register, "(16,4):(1,16)">
!G = !argus.tile<16x4xf32, global>
func.func @grouped_rows_not_clamped(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %M = memref.dim %C, %c0 : memref<?x?xf32>
  %N = memref.dim %C, %c1 : memref<?x?xf32>
  %mr = arith.remui %M, %c16 : index
  %nr = arith.remui %N, %c4 : index
  %mok = arith.cmpi eq, %mr, %c0 : index
  %nok = arith.cmpi eq, %nr, %c0 : index
  %ok = arith.andi %mok, %nok : i1
  argus.assume %ok, "C is made of 16 x 4 tiles"
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %msmall = arith.cmpi ult, %M, %c8192 : index
  %nsmall = arith.cmpi ult, %N, %c4096 : index
  %small = arith.andi %msmall, %nsmall : i1
  argus.assume %small, "M < 8192, N < 4096"
  %tiles_m = arith.divui %M, %c16 : index
  %tiles_n = arith.divui %N, %c4 : index
  %per_group = arith.muli %tiles_n, %c8 : index
  %full = arith.divui %tiles_m, %c8 : index
  %last = arith.remui %tiles_m, %c8 : index
  %full_tiles = arith.muli %full, %per_group : index
  %last_tiles = arith.muli %last, %tiles_n : index
  %tiles = arith.addi %full_tiles, %last_tiles : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  %z = argus.fill 0.0 : !R
  scf.for %t = %bid to %tiles step %grid {
    %g = arith.divui %t, %per_group : index
    %p = arith.remui %t, %per_group : index
    %first = arith.muli %g, %c8 : index
    %left = arith.subi %tiles_m, %first : index
    %rows = arith.addi %c8, %c0 : index
    %r = arith.remui %p, %rows : index
    %tm = arith.addi %first, %r : index
    %tn = arith.divui %p, %rows : index
    %m0 = arith.muli %tm, %c16 : index
    %n0 = arith.muli %tn, %c4 : index
    %v = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !G
    argus.store %z, %v : !R, !G
  }
  return
}

