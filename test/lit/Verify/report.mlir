// The JSON report: one object per check, with status, reason, replay and
// counterexamples (docs/report-schema.md); max-counterexamples=2 gives two
// different elements.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json max-counterexamples=2 timeout-ms=20000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t.json

// DIAG: error: tag assertion 'value.n == dest.n' violated at 'argus.store'
// DIAG: note: any block, thread

#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!G = !argus.tile<64x4xf32, global>
func.func @report(%C: memref<?x?xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c1 = arith.constant 1 : index
  %n1 = arith.addi %N, %c1 : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%N, %N] ["m", "n"] = #Coord : !R
  %g = argus.view "C" %C[%N, %n1] : memref<?x?xf32> -> !G
  %gt = argus.tag %g [%N, %n1] ["m", "n"] = #Coord : !G
  argus.store %t, %gt : !R, !G
  argus.tag_assert "value.n == dest.n"
  return
}

// CHECK: "checks": [
// The assertion is off by one column, at two different elements.
// CHECK: "assert_location": "{{.*}}report.mlir:22:3"
// CHECK: "counterexamples": [
// CHECK: "elements": [
// CHECK: "global_coords": [
// CHECK: "memory": "C"
// CHECK: "operand": "dest"
// CHECK: "tags": {
// CHECK: "operand": "value"
// CHECK: "slot":
// CHECK: "thread":
// CHECK: "lane":
// CHECK: "params": {
// CHECK: "arg1":
// CHECK: "warp": 0
// CHECK: "elements": [
// CHECK: "kind": "assert"
// CHECK: "op": "argus.store"
// CHECK: "predicate": "value.n == dest.n"
// CHECK: "replay": "confirmed"
// CHECK-NEXT: "status": "violated"
// The implicit check of the store.
// CHECK: "kind": "non-injective-write"
// CHECK: "status": "proved"
// CHECK: "kernels": [
// CHECK: "name": "report"
// CHECK: "queries":
// CHECK: "threads": 64
// CHECK: "warp_size": 64
// CHECK: "version": 1
