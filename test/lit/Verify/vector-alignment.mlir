// RUN: argus-opt %s -split-input-file --argus-verify-tags -verify-diagnostics -o /dev/null

// The misaligned-vector check: a copy whose thread layout moves 4 f32 (16
// bytes) per vector along A's rows faults on the H200 when A's row length
// K is not a multiple of 4 (row 1 starts 4K bytes after row 0). Found for
// K = 5: the clipped view's vectors that lie wholly inside the tensor are
// the ones moved as vectors.
!G = !argus.tile<64x32xf32, global>
!S = !argus.tile<64x32xf32, shared, "(64,32):(32,1)">
func.func @ragged_rows(%A: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a1 = memref.dim %A, %c1 : memref<?x?xf32>
  %ok = arith.cmpi eq, %a1, %K : index
  argus.assume %ok, "A has K columns"
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %kt = arith.ceildivui %K, %c32 : index
  scf.for %i = %c0 to %kt step %c1 {
    %k0 = arith.muli %i, %c32 : index
    %ga = argus.view "A" %A[%c0, %k0] clipped : memref<?x?xf32> -> !G
    // expected-error @below {{misaligned-vector violated at 'argus.copy'}}
    // expected-note @below {{any block, thread 8 (warp 0, lane 8), slot 0}}
    // expected-note @below {{source element}}
    // expected-note @below {{kernel arguments: arg1=5, arg0.dim0=2, arg0.dim1=5}}
    // expected-note @below {{reads A[1, 0] as the first of a 4-element (16-byte) vector, at linear offset 5 of a tensor of sizes [2, 5], not a multiple of 4; hint: state that the row length}}
    argus.copy %ga, %s0 threads "((8,16),(4,4)):((256,1),(64,16))" : !G, !S
    argus.barrier
  }
  return
}

// -----

// The same copy under the precondition K % 4 == 0: proved. With a thread
// layout of one element per slot along the rows (no vectors), any K is
// fine and there is nothing to check.
!G = !argus.tile<64x32xf32, global>
!S = !argus.tile<64x32xf32, shared, "(64,32):(32,1)">
func.func @aligned_rows(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %a1 = memref.dim %A, %c1 : memref<?x?xf32>
  %ok = arith.cmpi eq, %a1, %K : index
  %r = arith.remui %K, %c4 : index
  %ok4 = arith.cmpi eq, %r, %c0 : index
  %both = arith.andi %ok, %ok4 : i1
  argus.assume %both, "A has K columns, K a multiple of 4"
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %kt = arith.ceildivui %K, %c32 : index
  scf.for %i = %c0 to %kt step %c1 {
    %k0 = arith.muli %i, %c32 : index
    %ga = argus.view "A" %A[%c0, %k0] clipped : memref<?x?xf32> -> !G
    argus.copy %ga, %s0 threads "((8,16),(4,4)):((256,1),(64,16))" : !G, !S
    argus.barrier
    %gb = argus.view "B" %B[%c0, %k0] clipped : memref<?x?xf32> -> !G
    argus.copy %gb, %s0 threads "((32,4),16):((64,1),4)" : !G, !S
    argus.barrier
  }
  return
}

// -----

// Rows of a multiple of 4, but the view starts one column in (a shifted
// window, as a convolution's): every vector is misaligned.
!G = !argus.tile<64x32xf32, global>
!S = !argus.tile<64x32xf32, shared, "(64,32):(32,1)">
func.func @shifted_window(%A: memref<?x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %ga = argus.view "A" %A[%c0, %c1] clipped : memref<?x128xf32> -> !G
  // expected-error @below {{misaligned-vector violated at 'argus.copy'}}
  // expected-note @below {{any block, thread 0 (warp 0, lane 0), slot 0}}
  // expected-note @below {{source element}}
  // expected-note @below {{kernel arguments}}
  // expected-note @below {{reads A[0, 1] as the first of a 4-element (16-byte) vector, at linear offset 1}}
  argus.copy %ga, %s0 threads "((8,16),(4,4)):((256,1),(64,16))" : !G, !S
  return
}
