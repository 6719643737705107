// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// Gathered rows are data. Their bounds and, for a scatter, their
// distinctness rest on argus.assume_indices (checked by the launcher);
// without it those checks are unknown, never proved.

// A scatter with no declaration: the rows' bounds, the store's injectivity
// and output-once are unknown, each naming the index tensor.
// CHECK-LABEL: warning: non-injective-write is unknown at 'argus.store': distinct rows of the tile are rows of 'Y' named by entries of 'ids', which may repeat; declare them distinct
// CHECK: warning: out-of-bounds is unknown at 'argus.store': the rows of 'Y' are entries of 'ids', data the verifier cannot see; declare their range with `argus.assume_indices %tensor below %rows`
// CHECK: warning: output-once is unknown at 'argus.store': the rows of 'Y' are entries of 'ids', which may repeat
!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @scatter_undeclared(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %p = arith.muli %gx, %c128 : index
  %n = memref.dim %ids, %c0 : memref<?xi32>
  %x0 = memref.dim %X, %c0 : memref<?x8xf32>
  %ok1 = arith.cmpi eq, %n, %p : index
  %ok2 = arith.cmpi eq, %x0, %p : index
  %ok = arith.andi %ok1, %ok2 : i1
  argus.assume %ok, "ids and X have 128 * grid_dim.x rows"
  %r0 = arith.muli %bx, %c128 : index
  %gi = argus.view "ids" %ids[%r0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x8xf32> -> !GX
  %x = argus.load %vx : !GX -> !R
  %gy = argus.gather_view "Y" %Y[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  argus.store %x, %gy : !R, !GX
  return
}

// -----

// Declared distinct and below Y's rows: proved (no diagnostic before the
// next kernel's).
// CHECK-NOT: {{warning|error}}
!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @scatter_declared(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %p = arith.muli %gx, %c128 : index
  %n = memref.dim %ids, %c0 : memref<?xi32>
  %x0 = memref.dim %X, %c0 : memref<?x8xf32>
  %y0 = memref.dim %Y, %c0 : memref<?x8xf32>
  %ok1 = arith.cmpi eq, %n, %p : index
  %ok2 = arith.cmpi eq, %x0, %p : index
  %ok = arith.andi %ok1, %ok2 : i1
  argus.assume %ok, "ids and X have 128 * grid_dim.x rows"
  argus.assume_indices %ids below %y0 distinct, "ids are distinct rows of Y" : memref<?xi32>
  %r0 = arith.muli %bx, %c128 : index
  %gi = argus.view "ids" %ids[%r0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x8xf32> -> !GX
  %x = argus.load %vx : !GX -> !R
  %gy = argus.gather_view "Y" %Y[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  argus.store %x, %gy : !R, !GX
  return
}

// -----

// The bound is X's rows, not Y's: a row of Y past its end is allowed by
// the declaration.
// CHECK-LABEL: error: out-of-bounds violated at 'argus.store'
// CHECK: note: the entries of 'ids' are declared below {{[0-9]+}} ({{.*}}), but 'Y' has {{[0-9]+}} rows: a gathered row past them is outside the tensor
!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @scatter_bound_of_x(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %p = arith.muli %gx, %c128 : index
  %n = memref.dim %ids, %c0 : memref<?xi32>
  %x0 = memref.dim %X, %c0 : memref<?x8xf32>
  %ok1 = arith.cmpi eq, %n, %p : index
  %ok2 = arith.cmpi eq, %x0, %p : index
  %ok = arith.andi %ok1, %ok2 : i1
  argus.assume %ok, "ids and X have 128 * grid_dim.x rows"
  argus.assume_indices %ids below %x0 distinct, "ids are distinct rows" : memref<?xi32>
  %r0 = arith.muli %bx, %c128 : index
  %gi = argus.view "ids" %ids[%r0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x8xf32> -> !GX
  %x = argus.load %vx : !GX -> !R
  %gy = argus.gather_view "Y" %Y[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  argus.store %x, %gy : !R, !GX
  return
}

// -----

// Every block scatters through the same 128 positions of ids: distinct
// entries, but two blocks write the row each position names.
// CHECK-LABEL: error: output-once violated at 'argus.store'
// CHECK: note: row {{[0-9]+}} is the position in 'ids' whose entry names the row of Y (distinct entries: one position, one row)
// Coverage is by position too: positions past the first 128 are never used.
// CHECK: error: output-coverage violated at 'argus.store'
// CHECK: note: position {{[0-9]+}} of 'ids' (of {{[0-9]+}}) names a row of Y whose column {{[0-9]+}} (of 8) no block, iteration or store op writes
!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @scatter_same_positions(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %p = arith.muli %gx, %c128 : index
  %n = memref.dim %ids, %c0 : memref<?xi32>
  %x0 = memref.dim %X, %c0 : memref<?x8xf32>
  %y0 = memref.dim %Y, %c0 : memref<?x8xf32>
  %ok1 = arith.cmpi eq, %n, %p : index
  %ok2 = arith.cmpi eq, %x0, %p : index
  %ok = arith.andi %ok1, %ok2 : i1
  argus.assume %ok, "ids and X have 128 * grid_dim.x rows"
  argus.assume_indices %ids below %y0 distinct, "ids are distinct rows of Y" : memref<?xi32>
  %r0 = arith.muli %bx, %c128 : index
  %gi = argus.view "ids" %ids[%c0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %vx = argus.view "X" %X[%r0, %c0] : memref<?x8xf32> -> !GX
  %x = argus.load %vx : !GX -> !R
  %gy = argus.gather_view "Y" %Y[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  argus.store %x, %gy : !R, !GX
  return
}

// -----

// A gather that only reads needs the bound, not distinctness (a row read
// twice is no race): proved with `below` alone.
// CHECK-NOT: {{warning|error}}
!Ids = !argus.tile<128xi32, register, "(128,1):(1,0)">
!GI = !argus.tile<128xi32, global>
!GX = !argus.tile<128x8xf32, global>
!R = !argus.tile<128x8xf32, register, "(128,8):(1,128)">
func.func @gather_declared(%X: memref<?x8xf32>, %Y: memref<?x8xf32>, %ids: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %p = arith.muli %gx, %c128 : index
  %n = memref.dim %ids, %c0 : memref<?xi32>
  %x0 = memref.dim %X, %c0 : memref<?x8xf32>
  %y0 = memref.dim %Y, %c0 : memref<?x8xf32>
  %ok1 = arith.cmpi eq, %n, %p : index
  %ok2 = arith.cmpi eq, %y0, %p : index
  %ok = arith.andi %ok1, %ok2 : i1
  argus.assume %ok, "ids and Y have 128 * grid_dim.x rows"
  argus.assume_indices %ids below %x0, "ids are rows of X" : memref<?xi32>
  %r0 = arith.muli %bx, %c128 : index
  %gi = argus.view "ids" %ids[%r0] : memref<?xi32> -> !GI
  %i = argus.load %gi : !GI -> !Ids
  %vx = argus.gather_view "X" %X[%i, %c0] : memref<?x8xf32>, !Ids -> !GX
  %x = argus.load %vx : !GX -> !R
  %gy = argus.view "Y" %Y[%r0, %c0] : memref<?x8xf32> -> !GX
  argus.store %x, %gy : !R, !GX
  return
}
