// RUN: argus-opt %s -split-input-file --argus-verify-tags --verify-diagnostics -o /dev/null

// Zero fill of the stage, then a copy of the whole stage: the fill is never
// the latest writer of a read, so the read's tags come from the copy alone.
// Proved (every check, without warnings).
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @fill_then_copy(%A: memref<64x4xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %m0 = arith.constant 0 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %z = argus.fill 0.0 : !R
  argus.store %z, %s0 : !R, !S
  argus.barrier
  %g = argus.view "A" %A[%m0, %c0] : memref<64x4xf32> -> !G
  %gt = argus.tag %g [%m0, %c0] ["m", "k"] = #Coord : !G
  argus.copy %gt, %s0 threads #Copy : !G, !S
  argus.barrier
  %x = argus.load %s0 : !S -> !R
  %r = argus.tag %z [%m0, %c0] ["m", "k"] = #Coord : !R
  %y = argus.add %x, %r : !R
  argus.tag_assert %y, "lhs.m == rhs.m && lhs.k == rhs.k" : !R
  return
}

// -----

// Two copies into one stage with different thread layouts, ordered by a
// barrier: not a race. The second write is the latest. Proved.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
#Copy2 = #argus.layout<"(64,4):(1,64)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @ordered_overwrite(%A: memref<64x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<64x8xf32> -> !G
  %gt = argus.tag %g [%c0, %c0] ["m", "k"] = #Coord : !G
  argus.copy %gt, %s0 threads #Copy : !G, !S
  argus.barrier
  %g2 = argus.view "A" %A[%c0, %c4] : memref<64x8xf32> -> !G
  %gt2 = argus.tag %g2 [%c0, %c4] ["m", "k"] = #Coord : !G
  argus.copy %gt2, %s0 threads #Copy2 : !G, !S
  argus.barrier
  %x = argus.load %s0 : !S -> !R
  %r = argus.fill 0.0 : !R
  %rt = argus.tag %r [%c0, %c4] ["m", "k"] = #Coord : !R
  %y = argus.add %x, %rt : !R
  argus.tag_assert %y, "lhs.k == rhs.k" : !R
  return
}

// -----

// The same two copies with the same thread layout and no barrier: each
// element is written twice by one thread, which program order orders. Proved.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @same_thread_overwrite(%A: memref<64x8xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<64x8xf32> -> !G
  %gt = argus.tag %g [%c0, %c0] ["m", "k"] = #Coord : !G
  argus.copy %gt, %s0 threads #Copy : !G, !S
  %g2 = argus.view "A" %A[%c0, %c4] : memref<64x8xf32> -> !G
  %gt2 = argus.tag %g2 [%c0, %c4] ["m", "k"] = #Coord : !G
  argus.copy %gt2, %s0 threads #Copy : !G, !S
  argus.barrier
  %x = argus.load %s0 : !S -> !R
  %r = argus.fill 0.0 : !R
  %rt = argus.tag %r [%c0, %c4] ["m", "k"] = #Coord : !R
  %y = argus.add %x, %rt : !R
  argus.tag_assert %y, "lhs.k == rhs.k" : !R
  return
}

// -----

// Register double-buffering: the fragment of slab kt is carried in iter_args
// while slab kt+1 loads. Its tags at iteration kt are what iteration kt-1
// yielded (or the prologue's at kt = 0). Proved.
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<64x4xf32, global>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @register_double_buffer(%A: memref<?x4xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // A holds the K + 1 slabs the loop reads.
  %rows = memref.dim %A, %c0 : memref<?x4xf32>
  %k1 = arith.addi %K, %c1 : index
  %need = arith.muli %k1, %c64 : index
  %ok = arith.cmpi uge, %rows, %need : index
  argus.assume %ok, "A has (K + 1) * 64 rows"
  %g0 = argus.view "A" %A[%c0, %c0] : memref<?x4xf32> -> !G
  %g0t = argus.tag %g0 [%c0, %c0] ["k", "n"] = #Coord : !G
  %x0 = argus.load %g0t : !G -> !R
  %z = argus.fill 0.0 : !R
  %r = scf.for %kt = %c0 to %K step %c1 iter_args(%x = %x0) -> (!R) {
    %kt1 = arith.addi %kt, %c1 : index
    %row1 = arith.muli %kt1, %c64 : index
    %g1 = argus.view "A" %A[%row1, %c0] : memref<?x4xf32> -> !G
    %g1t = argus.tag %g1 [%row1, %c0] ["k", "n"] = #Coord : !G
    %xn = argus.load %g1t : !G -> !R
    %row = arith.muli %kt, %c64 : index
    %ref = argus.tag %z [%row, %c0] ["k", "n"] = #Coord : !R
    %y = argus.add %x, %ref : !R
    argus.tag_assert %y, "lhs.k == rhs.k && lhs.n == rhs.n" : !R
    scf.yield %xn : !R
  }
  // After the loop (K >= 1 iterations): the last slab's fragment.
  %rowl = arith.muli %K, %c64 : index
  %refl = argus.tag %z [%rowl, %c0] ["k", "n"] = #Coord : !R
  %yl = argus.add %r, %refl : !R
  argus.tag_assert %yl, "lhs.k == rhs.k && lhs.n == rhs.n" : !R
  return
}
