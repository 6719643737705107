// Declared argument roles (argus.access): an input is never written, an
// output is written. Without them, a kernel storing its result into the
// wrong tensor of the same shape had every check proved.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: argus-opt %t/ok.mlir --argus-verify-tags="report=-" -o /dev/null | FileCheck %s --check-prefix=OK
// RUN: not argus-opt %t/into_input.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: argus-opt %t/undeclared.mlir --argus-verify-tags="report=-" -o /dev/null | FileCheck %s --check-prefix=UNDECLARED

// OK: "kind": "argument-access"
// OK: "predicate": "argument 0 ('X') is an input: never written"
// OK: "status": "proved"
// OK: "kind": "argument-access"
// OK: "predicate": "argument 1 ('Y') is an output: written by the kernel"
// OK: "status": "proved"
// OK-NOT: argument roles: no tensor argument declares

// The result stored into X (declared "in") instead of Y: both are reported.
// INPUT-DAG: error: argument-access violated at 'argus.store'
// INPUT-DAG: note: argument 0 ('X') is declared argus.access = "in" but 'argus.store' at {{.*}} writes it
// INPUT-DAG: error: argument-access violated at 'func.func'
// INPUT-DAG: note: argument 1 is declared argus.access = "out" but no op of the kernel writes it

// UNDECLARED: "unchecked": [
// UNDECLARED: argument roles: no tensor argument declares argus.access
// UNDECLARED-NOT: "kind": "argument-access"

//--- ok.mlir
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @ok(%X: memref<512xf32> {argus.access = "in"}, %Y: memref<512xf32> {argus.access = "out"})
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %gx = argus.view "X" %X[%c0] : memref<512xf32> -> !G
  %r = argus.load %gx : !G -> !R
  %gy = argus.view "Y" %Y[%c0] : memref<512xf32> -> !G
  argus.store %r, %gy : !R, !G
  return
}

//--- into_input.mlir
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @into_input(%X: memref<512xf32> {argus.access = "in"}, %Y: memref<512xf32> {argus.access = "out"})
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %gx = argus.view "X" %X[%c0] : memref<512xf32> -> !G
  %r = argus.load %gx : !G -> !R
  %e = argus.exp %r : !R
  argus.store %e, %gx : !R, !G
  return
}

//--- undeclared.mlir
!G = !argus.tile<512xf32, global>
!R = !argus.tile<512xf32, register, "(128,4):(1,128)">
func.func @undeclared(%X: memref<512xf32>, %Y: memref<512xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %gx = argus.view "X" %X[%c0] : memref<512xf32> -> !G
  %r = argus.load %gx : !G -> !R
  %gy = argus.view "Y" %Y[%c0] : memref<512xf32> -> !G
  argus.store %r, %gy : !R, !G
  return
}
