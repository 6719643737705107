// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// view-tag with constant offsets: a constant in the tag map equal to the
// view's constant offset is that offset folded in (what a Python int slab
// index in both the view and the tag lambda gives), as a symbol equal to
// the offset is.

// The slab at the constant column 32, tagged k = d1 + 32: the global
// column. Proved (no diagnostic before the violation below).
// CHECK-NOT: {{warning|error}}
!G = !argus.tile<32x32xf16, global>
func.func @constant_offset_folded(%A: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c32 : index
  %ga = argus.view "A" %A[%m0, %c32] : memref<?x?xf16> -> !G
  %gat = argus.tag %ga [%m0] ["m", "k"] = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 + 32)> : !G
  return
}

// -----

// The view moved to column 64 with the tag left at 32: the constant is no
// offset of the view, and the tag is wrong.
// CHECK-LABEL: error: view-tag violated at 'argus.tag'
// CHECK: note: field 'k' of A element {{.*}} at global ({{[0-9]+}}, 64) is 32 but the tag map at the global coordinate gives 96
!G = !argus.tile<32x32xf16, global>
func.func @constant_offset_moved(%A: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c32 : index
  %ga = argus.view "A" %A[%m0, %c64] : memref<?x?xf16> -> !G
  %gat = argus.tag %ga [%m0] ["m", "k"] = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 + 32)> : !G
  return
}
