// No proof is vacuous (docs/Verifier.md, "Premises"). Each kernel below
// would have every check proved by a verifier that does not look at its
// premises.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: not argus-opt %t/grid.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not argus-opt %t/arg.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not argus-opt %t/contra.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONTRA
// RUN: not argus-opt %t/dead.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEAD
// RUN: not argus-opt %t/dead.mlir --argus-verify-tags="report=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=WITNESS

// GRID-LABEL: error: assumptions (no launch satisfies them) violated at 'func.func'
// GRID-DAG: note: conflicting: argus.assume "grid_dim.x is 131072" at
// GRID-DAG: note: conflicting: model limit: 
// GRID-NOT: out-of-bounds
// GRID-NOT: is unknown

// ARG-LABEL: error: assumptions (no launch satisfies them) violated at 'func.func'
// ARG-DAG: note: conflicting: argus.assume "K is at least 70000" at
// ARG-DAG: note: conflicting: model limit: arg2 in [1, 65536)

// CONTRA-LABEL: error: assumptions (no launch satisfies them) violated at 'func.func'
// CONTRA-DAG: note: conflicting: argus.assume "N is 1024"
// CONTRA-DAG: note: conflicting: argus.assume "N is 2048"
// CONTRA-NOT: model limit

// DEAD: warning: non-injective-write is unknown at 'argus.store': vacuous: argus.store at {{.*}} never executes for any launch the assumptions admit
// The output is never written for any launch: a real finding, not vacuous.
// DEAD: error: output-coverage violated at 'argus.store'
// WITNESS: "kind": "assumptions"
// WITNESS: "status": "proved"
// WITNESS: "witness": "arg2=

//--- grid.mlir
// No proof is vacuous. A grid assumption pinning grid_dim.x above the
// model's range (2^16) contradicts the model: every query would be unsat
// and every check proved, the planted out-of-bounds store included. The
// verdict is an error naming the conflicting constraints; nothing else runs.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @grid_pinned_above_the_model(%A: memref<?xf32>, %C: memref<?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c131072 = arith.constant 131072 : index
  %bx = gpu.block_id x
  %gx = gpu.grid_dim x
  %pin = arith.cmpi eq, %gx, %c131072 : index
  argus.assume %pin, "grid_dim.x is 131072"
  %m0 = arith.muli %bx, %c512 : index
  %m1 = arith.addi %m0, %c1 : index
  %a0 = memref.dim %A, %c0 : memref<?xf32>
  %c0d = memref.dim %C, %c0 : memref<?xf32>
  %N = arith.muli %gx, %c512 : index
  %ok = arith.cmpi eq, %a0, %N : index
  %ok2 = arith.cmpi eq, %c0d, %N : index
  %okb = arith.andi %ok, %ok2 : i1
  argus.assume %okb, "A and C are 512 * grid_dim.x"
  %ga = argus.view "A" %A[%m0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  // One element past the block's tile: out of bounds in the last block.
  %gc = argus.view "C" %C[%m1] : memref<?xf32> -> !G
  argus.store %r, %gc : !R, !G
  return
}

//--- arg.mlir
// An argument assumed above the model's range (kernel arguments are below
// 2^16): the same error, naming the argument's limit.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @argument_above_the_model(%A: memref<?xf32>, %C: memref<?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c70000 = arith.constant 70000 : index
  %big = arith.cmpi uge, %K, %c70000 : index
  argus.assume %big, "K is at least 70000"
  %bx = gpu.block_id x
  %c512 = arith.constant 512 : index
  %m0 = arith.muli %bx, %c512 : index
  %ga = argus.view "A" %A[%m0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  %gc = argus.view "C" %C[%m0] : memref<?xf32> -> !G
  argus.store %r, %gc : !R, !G
  return
}

//--- contra.mlir
// Two assumptions that contradict each other: both are named.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @contradicting_assumptions(%A: memref<?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %a = arith.cmpi eq, %N, %c1024 : index
  argus.assume %a, "N is 1024"
  %b = arith.cmpi eq, %N, %c2048 : index
  argus.assume %b, "N is 2048"
  %c0 = arith.constant 0 : index
  %ga = argus.view "A" %A[%c0] : memref<?xf32> -> !G
  %r = argus.load %ga : !G -> !R
  argus.store %r, %ga : !R, !G
  return
}

//--- dead.mlir
// A site that never runs: a branch whose condition no admitted launch
// takes. Its checks would be proved vacuously; they are unknown instead.
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @dead_branch(%A: memref<?xf32>, %C: memref<?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %small = arith.cmpi ult, %N, %c512 : index
  argus.assume %small, "N is below 512"
  %huge = arith.cmpi uge, %N, %c512 : index
  scf.if %huge {
    %ga = argus.view "A" %A[%c0] : memref<?xf32> -> !G
    %r = argus.load %ga : !G -> !R
    %gc = argus.view "C" %C[%c0] : memref<?xf32> -> !G
    argus.store %r, %gc : !R, !G
  }
  return
}
