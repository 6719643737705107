// The grid rule of the launch ABI: how a host computes the grid from a
// launch's arguments, solved from the kernel's argus.assume conditions on
// gpu.grid_dim (lib/Analysis/GridRule.cpp). An equality gives the extent
// (with `exact` when the host must check a division), lower bounds the
// smallest extent above them, caps nothing; a dimension no assumption
// determines is "free" (a persistent kernel), one the kernel never reads 1.
// argus-dump-binary writes the same tree as JSON.

// RUN: argus-opt %s --argus-to-gpu | FileCheck %s
// The recorded rules parse back (the attribute verifier accepts them).
// RUN: argus-opt %s --argus-to-gpu | argus-opt -o /dev/null
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json

!G = !argus.tile<16x16xf32, global>
!R = !argus.tile<16x16xf32, register, "((16,4),4):((1,64),16)">

// CHECK-LABEL: module attributes
// CHECK-SAME: bounds = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "N tiles", extent = {ceildiv = [{size = [0, 1]}, 16]}}, {extent = 1 : i64}, {extent = 1 : i64}]>
// CHECK-SAME: ceil_equality = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "one block per tile", extent = {div = [{add = [{arg = 2 : i64}, 15]}, 16]}}, {extent = 1 : i64}, {extent = 1 : i64}]>
// CHECK-SAME: exact = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "N = 16 * grid_dim.x", exact = true, extent = {div = [{size = [1, 1]}, 16]}}, {assume = "M = 16 * grid_dim.y", exact = true, extent = {div = [{size = [0, 0]}, 16]}}, {extent = 1 : i64}]>
// CHECK-SAME: huge = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "no block at all", extent = 0 : i64}, {assume = "rows", extent = {ceildiv = [{size = [0, 0]}, {mul = [1099511627776, 1099511627776]}]}}, {extent = 1 : i64}]>
// CHECK-SAME: per_head = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "X is (grid_dim.x * S) x 16", exact = true, extent = {div = [{size = [0, 0]}, {arg = 2 : i64}]}}, {extent = 1 : i64}, {extent = 1 : i64}]>
// CHECK-SAME: persistent = #argus.kernel_launch<
// CHECK-SAME: grid = [{extent = "free"}, {extent = 1 : i64}, {extent = 1 : i64}]>
// CHECK-SAME: strict = #argus.kernel_launch<
// CHECK-SAME: grid = [{assume = "more than n rows", extent = {max = [{add = [{div = [{arg = 2 : i64}, 16]}, 1]}, {ceildiv = [{size = [0, 0]}, 16]}]}}, {extent = 1 : i64}, {extent = 1 : i64}]>

// JSON: "exact": {
// JSON: "grid": [
// JSON-NEXT: {
// JSON-NEXT: "assume": "N = 16 * grid_dim.x",
// JSON-NEXT: "exact": true,
// JSON-NEXT: "extent": {
// JSON-NEXT: "div": [
// JSON-NEXT: {
// JSON-NEXT: "size": [
// JSON-NEXT: 1,
// JSON-NEXT: 1
// JSON: "extent": 1

// One 16x16 tile per block: row tile block_id.y, column tile block_id.x.
func.func @exact(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %Y, %c1 : memref<?x?xf32>
  %gy16 = arith.muli %gy, %c16 : index
  %okm = arith.cmpi eq, %m, %gy16 : index
  argus.assume %okm, "M = 16 * grid_dim.y"
  %gx16 = arith.muli %c16, %gx : index
  %okn = arith.cmpi eq, %gx16, %n : index
  argus.assume %okn, "N = 16 * grid_dim.x"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %r0 = arith.muli %by, %c16 : index
  %c0n = arith.muli %bx, %c16 : index
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%c0, %c0n] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}

// grid_dim.x == ceil(S / 16), written as a floor division.
func.func @ceil_equality(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %gx = gpu.grid_dim x
  %s15 = arith.addi %S, %c15 : index
  %tiles = arith.divui %s15, %c16 : index
  %ok = arith.cmpi eq, %gx, %tiles : index
  argus.assume %ok, "one block per tile"
  %bx = gpu.block_id x
  %r0 = arith.muli %bx, %c16 : index
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%r0, %c0] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}

// N <= 16 * grid_dim.x < N + 16: the smallest grid covering N columns
// (the upper bound is a cap, checked at launch).
func.func @bounds(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %gx = gpu.grid_dim x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %cols = arith.muli %gx, %c16 : index
  %lo = arith.cmpi ule, %n, %cols : index
  %n16 = arith.addi %n, %c16 : index
  %hi = arith.cmpi ult, %cols, %n16 : index
  %ok = arith.andi %lo, %hi : i1
  argus.assume %ok, "N tiles"
  %bx = gpu.block_id x
  %c0n = arith.muli %bx, %c16 : index
  %vx = argus.view "X" %X[%c0, %c0n] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%c0, %c0n] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}

// X has grid_dim.x * S rows: a division by an argument.
func.func @per_head(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %gx = gpu.grid_dim x
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %rows = arith.muli %gx, %S : index
  %ok = arith.cmpi eq, %m, %rows : index
  argus.assume %ok, "X is (grid_dim.x * S) x 16"
  %bx = gpu.block_id x
  %r0 = arith.muli %bx, %S : index
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%r0, %c0] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}

// Two lower bounds (one strict): the larger; a signed one, the same.
func.func @strict(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %gx = gpu.grid_dim x
  %rows = arith.muli %gx, %c16 : index
  %more = arith.cmpi sgt, %rows, %n : index
  argus.assume %more, "more than n rows"
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %cover = arith.cmpi uge, %rows, %m : index
  argus.assume %cover, "every row of X"
  %bx = gpu.block_id x
  %r0 = arith.muli %bx, %c16 : index
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%r0, %c0] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}

// Block b walks tiles b, b + G, ...: any grid does.
func.func @persistent(%X: memref<?x?xf32>, %Y: memref<?x?xf32>, %tiles: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x
  scf.for %t = %bid to %tiles step %grid {
    %r0 = arith.muli %t, %c16 : index
    %vx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G
    %x = argus.load %vx : !G -> !R
    %vy = argus.view "Y" %Y[%r0, %c0] : memref<?x?xf32> -> !G
    argus.store %x, %vy : !R, !G
  }
  return
}

// Constants as the assumptions give them: an extent of 0 (the host reports
// it) and a product past 64 bits (left unfolded).
func.func @huge(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c2p40 = arith.constant 1099511627776 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %none = arith.cmpi eq, %gx, %c0 : index
  argus.assume %none, "no block at all"
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %f = arith.muli %gy, %c2p40 : index
  %f2 = arith.muli %f, %c2p40 : index
  %cover = arith.cmpi uge, %f2, %m : index
  argus.assume %cover, "rows"
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %vx = argus.view "X" %X[%bx, %by] : memref<?x?xf32> -> !G
  %x = argus.load %vx : !G -> !R
  %vy = argus.view "Y" %Y[%bx, %by] : memref<?x?xf32> -> !G
  argus.store %x, %vy : !R, !G
  return
}
