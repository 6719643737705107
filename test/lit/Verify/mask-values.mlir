// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// An integer tile whose elements follow from their coordinates (iota,
// splat of an index, an integer fill, comparisons of those) has its value
// as the field `value` in assertions: a select's `mask.value` checks a mask
// against the positions the selected tile's tags name (a causal mask keeps
// key n at or before query m).

// iota dim 0 >= iota dim 1 on a tile whose rows and columns start at the
// same position: the mask keeps n <= m exactly. Proved (no diagnostic
// before the first violation below).
// CHECK-NOT: {{warning|error}}
!R = !argus.tile<32x32xf32, register, "(32,32):(1,32)">
!RI = !argus.tile<32x32xi32, register, "(32,32):(1,32)">
!RM = !argus.tile<32x32xi1, register, "(32,32):(1,32)">
#Diag = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 + s0)>
func.func @causal_mask(%q0: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %z = argus.fill 1.0 : !R
  %s = argus.tag %z [%q0] ["m", "n"] = #Diag : !R
  %qi = argus.iota dim 0 : !RI
  %ki = argus.iota dim 1 : !RI
  %keep = argus.cmp ge %qi, %ki : !RI -> !RM
  %ninf = argus.fill 0xFFF0000000000000 : !R
  %m = argus.select %keep, %s, %ninf : !RM, !R
  argus.tag_assert %m, "mask.value == 1 && lhs.n <= lhs.m || mask.value == 0 && lhs.n > lhs.m" : !R
  return
}

// -----

// A bound through a splat: keep column k while k < %len, i.e. key
// n < n0 + %len (S's tag declares that end as the field `end`). Proved.
!R = !argus.tile<32x32xf32, register, "(32,32):(1,32)">
!RI = !argus.tile<32x32xi32, register, "(32,32):(1,32)">
!RM = !argus.tile<32x32xi1, register, "(32,32):(1,32)">
#Keys = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s1 + s2)>
func.func @length_mask(%q0: index, %n0: index, %len: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %cap = arith.constant 1048576 : index
  %ok_n = arith.cmpi ult, %n0, %cap : index
  %ok_l = arith.cmpi ult, %len, %cap : index
  %ok = arith.andi %ok_n, %ok_l : i1
  argus.assume %ok, "n0, len < 2^20"
  %z = argus.fill 1.0 : !R
  %s = argus.tag %z [%q0, %n0, %len] ["m", "n", "end"] = #Keys : !R
  %ki = argus.iota dim 1 : !RI
  %l = argus.splat %len : index -> !RI
  %keep = argus.cmp lt %ki, %l : !RI -> !RM
  %ninf = argus.fill 0xFFF0000000000000 : !R
  %m = argus.select %keep, %s, %ninf : !RM, !R
  argus.tag_assert %m, "mask.value == 1 && lhs.n < lhs.end || mask.value == 0 && lhs.n >= lhs.end" : !R
  return
}

// -----

// Off by one: cmp gt drops each query's own key. Violated, with the
// element whose mask value disagrees.
// CHECK-LABEL: error: tag assertion{{.*}} violated
// CHECK: note: lhs element ([[I:[0-9]+]],[[I]]) held by {{.*}} has tags {m=[[M:[0-9]+]], n=[[M]]}
// CHECK: note: mask element ([[I]],[[I]]) held by {{.*}} has tags {value=0}
!R = !argus.tile<32x32xf32, register, "(32,32):(1,32)">
!RI = !argus.tile<32x32xi32, register, "(32,32):(1,32)">
!RM = !argus.tile<32x32xi1, register, "(32,32):(1,32)">
#Diag = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 + s0)>
func.func @causal_mask_off_by_one(%q0: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %z = argus.fill 1.0 : !R
  %s = argus.tag %z [%q0] ["m", "n"] = #Diag : !R
  %qi = argus.iota dim 0 : !RI
  %ki = argus.iota dim 1 : !RI
  %keep = argus.cmp gt %qi, %ki : !RI -> !RM
  %ninf = argus.fill 0xFFF0000000000000 : !R
  %m = argus.select %keep, %s, %ninf : !RM, !R
  argus.tag_assert %m, "mask.value == 1 && lhs.n <= lhs.m || mask.value == 0 && lhs.n > lhs.m" : !R
  return
}

// -----

// A mask loaded from memory has no value the verifier knows: unknown, with
// the reason, never proved.
// CHECK-LABEL: warning: tag assertion{{.*}} unknown
// CHECK-SAME: mask.value
!R = !argus.tile<32x32xf32, register, "(32,32):(1,32)">
!RM = !argus.tile<32x32xi1, register, "(32,32):(1,32)">
!GM = !argus.tile<32x32xi1, global>
#Diag = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 + s0)>
func.func @loaded_mask(%M: memref<32x32xi1>, %q0: index)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %z = argus.fill 1.0 : !R
  %s = argus.tag %z [%q0] ["m", "n"] = #Diag : !R
  %g = argus.view "M" %M[%c0, %c0] : memref<32x32xi1> -> !GM
  %keep = argus.load %g : !GM -> !RM
  %ninf = argus.fill 0xFFF0000000000000 : !R
  %m = argus.select %keep, %s, %ninf : !RM, !R
  argus.tag_assert %m, "mask.value == 1 && lhs.n <= lhs.m || mask.value == 0 && lhs.n > lhs.m" : !R
  return
}
