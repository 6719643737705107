// The exit status of argus-opt --argus-verify-tags: 0 only when every check
// of every kernel is proved, 1 when a check is violated, 2 when nothing is
// violated but some check is unknown (0 with allow-unknown=true, which still
// warns). Each kernel is its own file (split-file).
//
// RUN: rm -rf %t && split-file %s %t
//
// Proved: exit 0, no diagnostic, only "proved" in the report.
// RUN: sh -c 'argus-opt %t/proved.mlir --argus-verify-tags="report=%t/proved.json" -o /dev/null; echo exit=$?' 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: FileCheck %s --check-prefix=PROVED-JSON < %t/proved.json
// PROVED-NOT: warning
// PROVED-NOT: error
// PROVED: exit=0
// PROVED-JSON: "status": "proved"
// PROVED-JSON-NOT: "status": "unknown"
// PROVED-JSON-NOT: "status": "violated"
//
// Unknown (a product of two symbolic index values): a warning, exit 2.
// RUN: sh -c 'argus-opt %t/unknown.mlir --argus-verify-tags="report=%t/unknown.json" -o /dev/null; echo exit=$?' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: FileCheck %s --check-prefix=UNKNOWN-JSON < %t/unknown.json
// UNKNOWN: warning: index-range is unknown at 'arith.muli': the verifier assumes that the product does not wrap
// UNKNOWN-NOT: error
// UNKNOWN: exit=2
// UNKNOWN-JSON: "status": "unknown"
// UNKNOWN-JSON-NOT: "status": "violated"
//
// The same with allow-unknown=true: still the warning, exit 0.
// RUN: sh -c 'argus-opt %t/unknown.mlir --argus-verify-tags="allow-unknown=true" -o /dev/null; echo exit=$?' 2>&1 | FileCheck %s --check-prefix=ALLOWED
// ALLOWED: warning: index-range is unknown at 'arith.muli'
// ALLOWED: exit=0
//
// allow-unknown=false spelled out is the default: exit 2.
// RUN: sh -c 'argus-opt %t/unknown.mlir --argus-verify-tags="allow-unknown=false" -o /dev/null 2>/dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT2
// EXIT2: exit=2
//
// Violated: an error, the pass fails, exit 1 (also with allow-unknown=true).
// RUN: sh -c 'argus-opt %t/violated.mlir --argus-verify-tags -o /dev/null; echo exit=$?' 2>&1 | FileCheck %s --check-prefix=VIOLATED
// RUN: sh -c 'argus-opt %t/violated.mlir --argus-verify-tags="allow-unknown=true" -o /dev/null 2>/dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT1
// VIOLATED: error: tag assertion 'value.m == dest.m && value.n == dest.n' violated at 'argus.store'
// VIOLATED: exit=1
// EXIT1: exit=1
//
// A violation wins over an unknown check of another kernel of the module.
// RUN: cat %t/unknown.mlir %t/violated.mlir > %t/both.mlir
// RUN: sh -c 'argus-opt %t/both.mlir --argus-verify-tags -o /dev/null 2>/dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT1
//
// One unknown kernel among proved ones (-split-input-file): the worst
// outcome of all parts counts, exit 2; a proved part after it does not hide
// it.
// RUN: cat %t/unknown.mlir %t/separator.mlir %t/proved.mlir > %t/parts.mlir
// RUN: sh -c 'argus-opt %t/parts.mlir -split-input-file --argus-verify-tags -o /dev/null 2>/dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT2
// RUN: sh -c 'argus-opt %t/parts.mlir -split-input-file --argus-verify-tags="allow-unknown=true" -o /dev/null 2>/dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT0
// EXIT0: exit=0
//
// Without the verifier nothing is recorded: exit 0 as for any pipeline.
// RUN: sh -c 'argus-opt %t/unknown.mlir -o /dev/null; echo exit=$?' | FileCheck %s --check-prefix=EXIT0

//--- proved.mlir
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

//--- unknown.mlir
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @nonlinear(%N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %bx = gpu.block_id x
  %m0 = arith.muli %bx, %N : index
  %z = argus.fill 0.0 : !R
  %t = argus.tag %z [%m0, %m0] ["m", "n"] = #Coord : !R
  %u = argus.add %t, %t : !R
  argus.tag_assert %u, "lhs.m == rhs.m && lhs.n == rhs.n" : !R
  return
}

//--- violated.mlir
#Coord1 = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!R1 = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!G1 = !argus.tile<64x4xf32, global>
func.func @store_off_by_one(%C: memref<64x5xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = argus.fill 0.0 : !R1
  %t = argus.tag %z [%c0, %c0] ["m", "n"] = #Coord1 : !R1
  %g = argus.view "C" %C[%c0, %c1] : memref<64x5xf32> -> !G1
  %gt = argus.tag %g [%c0, %c1] ["m", "n"] = #Coord1 : !G1
  argus.store %t, %gt : !R1, !G1
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}

//--- separator.mlir
// -----
