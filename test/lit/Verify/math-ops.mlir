// RUN: argus-opt %s -split-input-file --argus-verify-tags --verify-diagnostics -o /dev/null

// The math ops keep their operands' tags like add (issue 15): a row-wise
// RMSNorm-shaped kernel with a column mask (iota + cmp + select), a scalar
// epsilon (splat) and every unary function between load and store. Proved.
#Coord = affine_map<(d0, d1)[s0] -> (d0 + s0, d1)>
!G = !argus.tile<64x4xf32, global>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!I = !argus.tile<64x4xi32, register, "(64,4):(1,64)">
!M = !argus.tile<64x4xi1, register, "(64,4):(1,64)">
!Rows = !argus.tile<64xf32, register, "(64,1):(1,1)">
func.func @rmsnorm_rows(%X: memref<?x4xf32>, %Y: memref<?x4xf32>, %eps: f32, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %rows = memref.dim %X, %c0 : memref<?x4xf32>
  %rows_y = memref.dim %Y, %c0 : memref<?x4xf32>
  %gy = gpu.grid_dim y
  %cover = arith.muli %gy, %c64 : index
  %ok1 = arith.cmpi eq, %rows, %cover : index
  %ok2 = arith.cmpi eq, %rows_y, %cover : index
  argus.assume %ok1, "X rows == 64 * gridDim.y"
  argus.assume %ok2, "Y rows == 64 * gridDim.y"
  %gx = argus.view "X" %X[%m0, %c0] : memref<?x4xf32> -> !G
  %gxt = argus.tag %gx [%m0] ["m", "n"] = #Coord : !G
  %x = argus.load %gxt : !G -> !R
  argus.tag_assert %x, "result.m == source.m && result.n == source.n" : !R
  %col = argus.iota dim 1 : !I
  %ncol = argus.splat %n : index -> !I
  %inside = argus.cmp lt %col, %ncol : !I -> !M
  %zero = argus.fill 0.0 : !R
  %xm = argus.select %inside, %x, %zero : !M, !R
  // The constant branch carries no tags: the loaded element's are kept.
  argus.tag_assert %xm, "result.m == lhs.m && result.n == lhs.n" : !R
  %sq = argus.mul %xm, %xm : !R
  %ss = argus.reduce sum %sq dim 1 : !R -> !Rows
  %ssb = argus.broadcast %ss dim 1 : !Rows -> !R
  %e = argus.splat %eps : f32 -> !R
  %v = argus.add %ssb, %e : !R
  %r = argus.rsqrt %v : !R
  %y0 = argus.mul %xm, %r : !R
  %y1 = argus.sqrt %y0 : !R
  %y2 = argus.log %y1 : !R
  %y3 = argus.log2 %y2 : !R
  %y4 = argus.tanh %y3 : !R
  %y5 = argus.sigmoid %y4 : !R
  %y6 = argus.gelu %y5 : !R
  %y7 = argus.relu %y6 : !R
  %y8 = argus.abs %y7 : !R
  %y9 = argus.min %y8, %x : !R
  argus.tag_assert %y9, "result.m == lhs.m && result.n == rhs.n" : !R
  %gy_ = argus.view "Y" %Y[%m0, %c0] : memref<?x4xf32> -> !G
  %gyt = argus.tag %gy_ [%m0] ["m", "n"] = #Coord : !G
  argus.store %y9, %gyt : !R, !G
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}

// -----

// A select between two tagged values: the element comes from either branch,
// so a field both carry is the chosen branch's. "result.n == lhs.n" fails
// where the mask picks the other (transposed) branch: violated.
!R = !argus.tile<64x64xf32, register, "(64,64):(1,64)">
!M = !argus.tile<64x64xi1, register, "(64,64):(1,64)">
func.func @select_branches(%a: f32)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 0.0 : !R
  %l = argus.tag %z [] ["m", "n"] = affine_map<(d0, d1) -> (d0, d1)> : !R
  %r = argus.tag %z [] ["m", "n"] = affine_map<(d0, d1) -> (d0, d1 + 1)> : !R
  %m = argus.cmp gt %l, %r : !R -> !M
  // expected-note @+3 {{any block, thread}}
  // expected-note @+2 {{lhs element (0,0) held by thread 0 slot 0 has tags {m=0, n=0}}}
  // expected-note @+1 {{result element (0,0) held by thread 0 slot 0 has tags {lhs.m=0, lhs.n=0, m=0, mask.lhs.m=0}}
  %s = argus.select %m, %l, %r : !M, !R
  argus.tag_assert %s, "result.m == lhs.m" : !R
  // expected-error @+1 {{tag assertion 'result.n == lhs.n' violated at 'argus.select'}}
  argus.tag_assert %s, "result.n == lhs.n" : !R
  argus.tag_assert %s, "result.n == lhs.n || result.n == rhs.n" : !R
  return
}
