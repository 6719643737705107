// RUN: argus-opt %s -split-input-file --argus-verify-tags -verify-diagnostics -o /dev/null

// A precondition states a fact about integers. Its bit-vector reading wraps
// where N = 512 * grid_dim.x leaves the modelled range (grid_dim.x = 32769
// gives 512), and such a launch is no counterexample: the bounds checks are
// proved, and only the precondition's own product is unknown (the verifier
// cannot model that launch), naming the launch that wraps.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @precondition_may_wrap(%A: memref<?xf32>, %C: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c512 : index
  // expected-warning @below {{index-range is unknown at 'arith.muli': the verifier assumes that the product does not wrap, which it cannot prove (e.g. block_id.x=0, grid_dim.x=}}
  %N = arith.muli %gx, %c512 : index
  %a0 = memref.dim %A, %c0 : memref<?xf32>
  %c0d = memref.dim %C, %c0 : memref<?xf32>
  %ok = arith.cmpi eq, %a0, %N : index
  %ok2 = arith.cmpi eq, %c0d, %N : index
  %okb = arith.andi %ok, %ok2 : i1
  argus.assume %okb, "A and C are 512 * grid_dim.x"
  %ga = argus.view "A" %A[%m0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %gc = argus.view "C" %C[%m0] : memref<?xf32> -> !G
  argus.store %r, %gc : !R, !G
  return
}

// -----

// The same kernel with the grid bounded: everything is proved.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @precondition_bounded(%A: memref<?xf32>, %C: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %c8192 = arith.constant 8192 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %small = arith.cmpi ule, %gx, %c8192 : index
  argus.assume %small, "at most 8192 blocks"
  %m0 = arith.muli %bx, %c512 : index
  %N = arith.muli %gx, %c512 : index
  %a0 = memref.dim %A, %c0 : memref<?xf32>
  %c0d = memref.dim %C, %c0 : memref<?xf32>
  %ok = arith.cmpi eq, %a0, %N : index
  %ok2 = arith.cmpi eq, %c0d, %N : index
  %okb = arith.andi %ok, %ok2 : i1
  argus.assume %okb, "A and C are 512 * grid_dim.x"
  %ga = argus.view "A" %A[%m0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %gc = argus.view "C" %C[%m0] : memref<?xf32> -> !G
  argus.store %r, %gc : !R, !G
  return
}

// -----

// Two copies of the same product in two preconditions: neither proves the
// other's range (each is checked without assuming any precondition's
// obligations), so both stay unknown.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @two_copies(%A: memref<?xf32>, %C: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %m0 = arith.muli %bx, %c512 : index
  // expected-warning @below {{index-range is unknown at 'arith.muli'}}
  %N = arith.muli %gx, %c512 : index
  // expected-warning @below {{index-range is unknown at 'arith.muli'}}
  %N2 = arith.muli %gx, %c512 : index
  %a0 = memref.dim %A, %c0 : memref<?xf32>
  %c0d = memref.dim %C, %c0 : memref<?xf32>
  %ok = arith.cmpi eq, %a0, %N : index
  argus.assume %ok, "A is 512 * grid_dim.x"
  %ok2 = arith.cmpi eq, %c0d, %N2 : index
  argus.assume %ok2, "C is 512 * grid_dim.x"
  %ga = argus.view "A" %A[%m0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %gc = argus.view "C" %C[%m0] : memref<?xf32> -> !G
  argus.store %r, %gc : !R, !G
  return
}
