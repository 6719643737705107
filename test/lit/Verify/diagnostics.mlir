// RUN: argus-opt %s -split-input-file --argus-verify-tags --verify-diagnostics -o /dev/null

// A store whose destination view is one column off: the assertion fails for
// the element held by thread 0, slot 0 (layout (64,4):(1,64) puts row t,
// column v in thread t, slot v).
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!G = !argus.tile<64x4xf32, global>
func.func @store_off_by_one(%C: memref<64x5xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord : !R
  %g = argus.view "C" %C[%c0, %c1] : memref<64x5xf32> -> !G
  %gt = argus.tag %g [%c0, %c1] ["m", "n"] = #Coord : !G
  // expected-note @+8 {{any block, thread 0 (warp 0, lane 0), slot 0}}
  // expected-note @+7 {{dest element (0,0) of C at global (0,1) has tags {m=0, n=1, tensor=0}}}
  // expected-note @+6 {{value element (0,0) held by thread 0 slot 0 has tags {m=0, n=0}}}
  // Column 0 of C is never written:
  // expected-error @+4 {{output-coverage violated at 'argus.store'}}
  // expected-note @+3 {{any block, any thread}}
  // expected-note @+2 {{unwritten element of C at global (0,0)}}
  // expected-note @+1 {{C[0, 0] is inside its sizes [64, 5] but no block, iteration or store op writes it}}
  argus.store %t, %gt : !R, !G
  // expected-error @+1 {{tag assertion 'value.m == dest.m && value.n == dest.n' violated at 'argus.store'}}
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}

// -----

// The same store, correct: proved, no diagnostic. The grid covers C.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!G = !argus.tile<64x4xf32, global>
func.func @store_ok(%C: memref<?x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c64 : index
  %rows = memref.dim %C, %c0 : memref<?x4xf32>
  %M = arith.muli %gx, %c64 : index
  %ok = arith.cmpi eq, %rows, %M : index
  argus.assume %ok, "C has 64 rows per block"
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%m0, %c0] ["m", "n"] = #Coord : !R
  %g = argus.view "C" %C[%m0, %c0] : memref<?x4xf32> -> !G
  %gt = argus.tag %g [%m0, %c0] ["m", "n"] = #Coord : !G
  argus.store %t, %gt : !R, !G
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}

// -----

// A product of two symbolic values is modelled, but that it stays in the
// verifier's index range is an obligation it cannot prove for every
// argument: unknown (a warning naming the assumption), never assumed.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @nonlinear(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %bx = gpu.block_id x
  // expected-warning @+1 {{index-range is unknown at 'arith.muli': the verifier assumes that the product does not wrap}}
  %m0 = arith.muli %bx, %N : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%m0, %m0] ["m", "n"] = #Coord : !R
  %u = argus.add %t, %t : !R
  argus.tag_assert %u, "lhs.m == rhs.m && lhs.n == rhs.n" : !R
  return
}

// -----

// A shared-memory round trip without a barrier: thread t reads an element
// another thread copied. Reported at the load with the writer as a note.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @missing_barrier(%A: memref<64x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<64x4xf32> -> !G
  %gt = argus.tag %g [%c0, %c0] ["m", "k"] = #Coord : !G
  argus.copy %gt, %s0 threads #Copy : !G, !S
  // expected-error @+5 {{unsynchronized-read violated at 'argus.load'}}
  // expected-note @+4 {{any block, thread}}
  // expected-note @+3 {{source element}}
  // expected-note @+2 {{the latest writer is not synchronised with this read: sA[stage 0}}
  // expected-note @+1 {{written by 'argus.copy'}}
  %r = argus.load %s0 : !S -> !R
  argus.tag_assert %r, "result.m == source.m" : !R
  return
}
