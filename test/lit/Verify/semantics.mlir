// RUN: argus-opt %s -split-input-file --argus-verify-tags --verify-diagnostics -o /dev/null

// Nested loops: an outer loop over two column tiles, an inner k-loop with a
// loop-carried accumulator, shared memory reused across both loops. Proved.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @nested(%A: memref<?x8xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  // The k loop reads rows kt .. kt + 63 for every kt < K.
  %rows = memref.dim %A, %c0 : memref<?x8xf32>
  %need = arith.addi %K, %c63 : index
  %ok = arith.cmpi uge, %rows, %need : index
  argus.assume %ok, "A has K + 63 rows"
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  scf.for %j = %c0 to %c2 step %c1 {
    %n0 = arith.muli %j, %c4 : index
    %z = argus.fill 0.0 : !R
    %acc0 = argus.tag %z [%c0, %n0] ["m", "n"] = #Coord : !R
    %acc = scf.for %kt = %c0 to %K step %c1 iter_args(%acc_i = %acc0) -> (!R) {
      %g = argus.view "A" %A[%kt, %n0] : memref<?x8xf32> -> !G
      %gt = argus.tag %g [%n0] ["n"] = affine_map<(d0, d1)[s0] -> (d1 + s0)> : !G
      argus.copy %gt, %s0 threads #Copy : !G, !S
      argus.barrier
      %x = argus.load %s0 : !S -> !R
      %y = argus.add %acc_i, %x : !R
      argus.tag_assert %y, "lhs.n == rhs.n" : !R
      argus.barrier
      scf.yield %y : !R
    }
    argus.tag_assert %acc, "result.m >= 0 && result.m < 64 && result.n >= 0" : !R
  }
  return
}

// -----

// A reduction: the reduced coordinate is a range fact. "input.n == 0" holds
// for one reduced element and not the others: unknown. "input.m < 0" fails
// for every reduced element: violated.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!Rows = !argus.tile<64xf32, register, "(64,1):(1,1)">
func.func @reduce(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord : !R
  // expected-note @+2 {{any block, thread}}
  // expected-note @+1 {{input element}}
  %r = argus.reduce max %t dim 1 : !R -> !Rows
  // expected-warning @+1 {{depends on a reduced dimension}}
  argus.tag_assert %r, "input.n == 0" : !Rows
  // expected-error @+2 {{tag assertion 'input.m < 0' violated at 'argus.reduce'}}
  // expected-note @+1 {{kernel arguments}}
  argus.tag_assert %r, "input.m < 0" : !Rows
  argus.tag_assert %r, "result.m == input.m" : !Rows
  return
}
