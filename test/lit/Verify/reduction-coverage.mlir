// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// reduction-coverage: the k loop accumulates every index of the mma's
// reduced dimension (A's tag field k) exactly once. Register-only kernels:
// A and B are tagged fills, so only the loop structure matters.

// A k loop over K / 8 slabs of 8: proved (no diagnostic before the first
// violation below).
// CHECK-NOT: {{warning|error}}
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @step_one(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %kt = arith.divui %K, %c8 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  // Fills carry no tensor whose size gives the end: the range is declared.
  %kend = arith.muli %kt, %c8 : index
  argus.reduced %r over "k" from %c0 to %kend : !RC
  return
}

// -----

// A loop stepping by 3 whose slab is the iteration / 3 (i = 0, 3, 6, ...):
// still every index once (the walk's closed form divides by the step).
// Proved: no diagnostic before the first violation below.
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @step_three_slab_per_third(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %kt = arith.divui %K, %c8 : index
  %n3 = arith.muli %kt, %c3 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r = scf.for %i = %c0 to %n3 step %c3 iter_args(%acc = %acc0) -> (!RC) {
    %s = arith.divui %i, %c3 : index
    %k0 = arith.muli %s, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  %kend = arith.muli %kt, %c8 : index
  argus.reduced %r over "k" from %c0 to %kend : !RC
  return
}

// -----

// A pipelined structure: a main loop over slabs 0 .. kt-2 and a drain loop
// continuing at kt-1 with the main loop's accumulator: the main loop's end
// is the drain loop's start (proved); where the drain loop ends no tensor
// tells, and argus.reduced does not follow chains of loops: unknown, never
// proved with the end unchecked.
// CHECK-LABEL: warning: reduction-coverage is unknown at 'argus.mma': where the reduction ends is not checked: neither A's nor B's elements come from a tensor whose dimension gives the reduced field's extent; declare the range every row accumulates with `argus.reduced %acc over "k" from %lo to %hi`
// CHECK-NEXT: %n = argus.mma
// CHECK-NOT: {{warning|error}}
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @main_and_drain(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ok = arith.cmpi uge, %K, %c8 : index
  argus.assume %ok, "K >= 8"
  %kt = arith.divui %K, %c8 : index
  %kmain = arith.subi %kt, %c1 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r1 = scf.for %i = %c0 to %kmain step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  %r2 = scf.for %i = %kmain to %kt step %c1 iter_args(%acc = %r1) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  return
}

// -----

// The slabs walked downward from the top one (a causal attention visits its
// diagonal key tile first): the fresh accumulator declares where the
// reduction starts (k = the top slab), each iteration's slab ends where the
// previous one began. Proved (no diagnostic before the first violation).
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Acc = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @downward(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cs = arith.constant 8 : index
  %ok = arith.cmpi uge, %K, %c8 : index
  argus.assume %ok, "K >= 8"
  %kt = arith.divui %K, %c8 : index
  %ktl = arith.subi %kt, %c1 : index
  %top = arith.muli %ktl, %c8 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0, %top] ["m", "n", "k"] = #Acc : !RC
  %r = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %back = arith.muli %i, %cs : index
    %k0 = arith.subi %top, %back : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  %kend = arith.muli %kt, %c8 : index
  argus.reduced %r over "k" from %c0 to %kend : !RC
  return
}

// -----

// The k loop steps by 2 slabs: k in [8, 16), [24, 32), ... is never
// accumulated. Violated in iteration 2, after iteration 0.
// CHECK-LABEL: error: reduction-coverage violated at 'argus.mma'
// CHECK-SAME: in iteration 2 of
// CHECK: note: {{.*}} iteration 2 accumulates k = 16 (A([[M:[0-9]+]], 0)) into row [[M]] of the accumulator right after k = 7 (A([[M]], 7) in iteration 0); expected 8: the indices 8 .. 15 are never accumulated
// CHECK-NOT: downward
// CHECK: note: the reduced field is a.k
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @step_two(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %kt = arith.divui %K, %c8 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r = scf.for %i = %c0 to %kt step %c2 iter_args(%acc = %acc0) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  return
}

// -----

// The drain loop restarts at slab 0 instead of continuing at kt-1: the
// main loop's slabs are accumulated twice.
// CHECK-LABEL: error: reduction-coverage violated at 'argus.mma'
// CHECK-SAME: in iteration 0 of
// CHECK: note: the first iteration ({{.*}} iteration 0) accumulates k = 0 at A({{[0-9]+}}, 0) into row {{[0-9]+}} of the accumulator; expected 8 (where the {{.*}} stopped, or its own start if it runs no iteration)
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @drain_restarts(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ok = arith.cmpi uge, %K, %c8 : index
  argus.assume %ok, "K >= 8"
  %kt = arith.divui %K, %c8 : index
  %kmain = arith.subi %kt, %c1 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r1 = scf.for %i = %c0 to %kmain step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  %r2 = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %r1) -> (!RC) {
    %k0 = arith.muli %i, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  return
}

// -----

// Downward by 2 slabs: every other slab is skipped. Violated in iteration
// 1, explained as a downward walk (its first tile goes down).
// CHECK-LABEL: error: reduction-coverage violated at 'argus.mma'
// CHECK-SAME: in iteration 1 of
// CHECK: note: {{.*}} iteration 1 accumulates k = [[GOT:[0-9]+]] (A({{[0-9]+}}, 0)) into row {{[0-9]+}} of the accumulator right after k = {{[0-9]+}} ({{.*}} in iteration 0); expected {{[0-9]+}} (the tiles walk downward): the indices {{[0-9]+}} .. {{[0-9]+}} are never accumulated
// CHECK: note: the reduced field is a.k
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Acc = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @downward_step_two(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cs = arith.constant 16 : index
  %ok = arith.cmpi uge, %K, %c8 : index
  argus.assume %ok, "K >= 8"
  %kt = arith.divui %K, %c8 : index
  %ktl = arith.subi %kt, %c1 : index
  %top = arith.muli %ktl, %c8 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0, %top] ["m", "n", "k"] = #Acc : !RC
  %r = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %back = arith.muli %i, %cs : index
    %k0 = arith.subi %top, %back : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  return
}

// -----

// Two mmas accumulate into one iter_arg per iteration: the first one's
// accumulator is carried, but the loop yields the second one's result.
// Unknown, never proved.
// CHECK-LABEL: warning: reduction-coverage is unknown at 'argus.mma': the accumulator is carried by the {{.*}}, but the loop does not yield this mma's result
// CHECK-NOT: {{warning|error}}
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @two_mmas(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %kt = arith.divui %K, %c16 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0] ["m", "n"] = #Coord : !RC
  %r = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %k0 = arith.muli %i, %c16 : index
    %k1 = arith.addi %k0, %c8 : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    %a1 = argus.tag %za [%c0, %k1] ["m", "k"] = #Coord : !RA
    %b1 = argus.tag %zb [%k1, %c0] ["k", "n"] = #Coord : !RB
    %n1 = argus.mma "v_mfma_f32_32x32x8_f16" %a1, %b1, %n : !RA, !RB, !RC
    scf.yield %n1 : !RC
  }
  return
}

// -----

// The downward walk without argus.reduced: the declared start is no
// tensor's end, so where the reduction ends is unknown (never proved).
// CHECK-LABEL: warning: reduction-coverage is unknown at 'argus.mma': where the reduction ends is not checked: the fresh accumulator declares where it starts, and no tensor dimension gives its end; declare the range every row accumulates with `argus.reduced %acc over "k" from %lo to %hi`
#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Acc = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)>
!RA = !argus.tile<32x8xf16, register, #FragA>
!RB = !argus.tile<8x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
func.func @downward_end_undeclared(%K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cs = arith.constant 8 : index
  %ok = arith.cmpi uge, %K, %c8 : index
  argus.assume %ok, "K >= 8"
  %kt = arith.divui %K, %c8 : index
  %ktl = arith.subi %kt, %c1 : index
  %top = arith.muli %ktl, %c8 : index
  %za = argus.fill 0.0 : !RA
  %zb = argus.fill 0.0 : !RB
  %zc = argus.fill 0.0 : !RC
  %acc0 = argus.tag %zc [%c0, %c0, %top] ["m", "n", "k"] = #Acc : !RC
  %r = scf.for %i = %c0 to %kt step %c1 iter_args(%acc = %acc0) -> (!RC) {
    %back = arith.muli %i, %cs : index
    %k0 = arith.subi %top, %back : index
    %a = argus.tag %za [%c0, %k0] ["m", "k"] = #Coord : !RA
    %b = argus.tag %zb [%k0, %c0] ["k", "n"] = #Coord : !RB
    %n = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %acc : !RA, !RB, !RC
    argus.tag_assert %n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    scf.yield %n : !RC
  }
  return
}

