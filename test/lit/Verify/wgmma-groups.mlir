// Which wgmma_wait retires an mma_async's group (WgmmaGroups.cpp), as the
// verifier reads it: `wgmma-ready` for register reads of the accumulator
// (an uncommitted wgmma belongs to no group, so even wait 0 needs a commit
// after it; a loop's result needs a commit after every mma it may come
// from) and `wgmma-register-operand` for A in registers (retired by a wait
// in the mma's block, or its registers may be reused while it reads them).
// The shared operands are never written here (unwritten-read is not what
// this file tests); only the wgmma checks are listed, per kernel.
//
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null
// RUN: %python -c "import json; [print(c['kernel'], c['kind'], c['status']) for c in json.load(open('%t.json'))['checks'] if c['kind'].startswith('wgmma')]" | FileCheck %s
// RUN: not argus-opt %s --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG

// CHECK-LABEL: wait_uncommitted wgmma-ready violated
// CHECK-NEXT: loop_committed_after wgmma-ready proved
// CHECK-NEXT: loop_never_committed wgmma-ready violated
// CHECK-NEXT: loop_commit_before_mma wgmma-ready unknown
// CHECK-NEXT: loop_wait_top_of_iteration wgmma-ready proved
// CHECK-NEXT: loop_wait_top_of_iteration wgmma-ready proved
// CHECK-NEXT: register_a_retired wgmma-ready proved
// CHECK-NEXT: register_a_retired wgmma-register-operand proved
// CHECK-NEXT: register_a_in_flight wgmma-ready proved
// CHECK-NEXT: register_a_in_flight wgmma-register-operand violated
// CHECK-NEXT: register_a_nested_commit wgmma-ready unknown
// CHECK-NEXT: register_a_nested_commit wgmma-register-operand unknown
// CHECK-NOT: {{.}}

// DIAG: wgmma-register-operand violated at 'argus.mma_async'
// DIAG: note: {{.*}}no wgmma_wait after it in its block retires the group (wait N needs N + 1 commits after the mma)
// DIAG-SAME: hint: retire the group in the same iteration

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
#FragA = #argus.frag<"wgmma.m64n128k16.f32.bf16", a, warps = [1, 1]>
#FragC2 = #argus.frag<"wgmma.m64n128k16.f32.bf16", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
!RA = !argus.tile<64x64xbf16, register, #FragA>
!RC2 = !argus.tile<64x128xf32, register, #FragC2>
!G = !argus.tile<64x128xf32, global>

// wgmma_wait 0 without a commit after the mma: its wgmma belongs to no group.
func.func @wait_uncommitted(%c: memref<64x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  %r = argus.wgmma_wait 0, %acc : !RC
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %r, %g : !RC, !G
  return
}

// A loop's accumulator committed after the loop, then wait 0: proved.
func.func @loop_committed_after(%c: memref<64x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC) {
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %x : !SA, !SB, !RC
    scf.yield %y : !RC
  }
  argus.wgmma_commit
  %r = argus.wgmma_wait 0, %acc : !RC
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %r, %g : !RC, !G
  return
}

// The loop's mma never committed (no commit anywhere): violated.
func.func @loop_never_committed(%c: memref<64x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC) {
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %x : !SA, !SB, !RC
    scf.yield %y : !RC
  }
  %r = argus.wgmma_wait 0, %acc : !RC
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %r, %g : !RC, !G
  return
}

// The commit at the top of each iteration leaves the last mma uncommitted at
// the wait after the loop; the verifier cannot show a commit after every mma
// it may come from: unknown.
func.func @loop_commit_before_mma(%c: memref<64x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC) {
    argus.wgmma_commit
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %x : !SA, !SB, !RC
    scf.yield %y : !RC
  }
  %r = argus.wgmma_wait 0, %acc : !RC
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %r, %g : !RC, !G
  return
}

// Each iteration first retires the previous iteration's wgmma (committed
// at the end of that iteration) and reads its accumulator: proved.
func.func @loop_wait_top_of_iteration(%c: memref<64x128xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC) {
    %r = argus.wgmma_wait 0, %x : !RC
    %s = argus.scale %r by 5.000000e-01 : !RC
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %s : !SA, !SB, !RC
    argus.wgmma_commit
    scf.yield %y : !RC
  }
  %f = argus.wgmma_wait 0, %acc : !RC
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %f, %g : !RC, !G
  return
}

// A in registers, retired in its iteration (commit, wait 0): proved.
func.func @register_a_retired(%c: memref<64x128xf32>, %fa: !RA)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC2
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC2) {
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16" %fa, %b, %x : !RA, !SB, !RC2
    argus.wgmma_commit
    %w = argus.wgmma_wait 0, %y : !RC2
    scf.yield %w : !RC2
  }
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %acc, %g : !RC2, !G
  return
}

// A in registers with one group left in flight into the next iteration
// (wait 1): the registers may be taken while the wgmma reads them.
func.func @register_a_in_flight(%c: memref<64x128xf32>, %fa: !RA)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC2
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %z) -> (!RC2) {
    %y = argus.mma_async "wgmma.m64n128k16.f32.bf16" %fa, %b, %x : !RA, !SB, !RC2
    argus.wgmma_commit
    %w = argus.wgmma_wait 1, %y : !RC2
    scf.yield %w : !RC2
  }
  %r = argus.wgmma_wait 0, %acc : !RC2
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %r, %g : !RC2, !G
  return
}

// Commits only inside an scf.if before the wait: not counted, unknown.
func.func @register_a_nested_commit(%c: memref<64x128xf32>, %fa: !RA, %p: i1)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC2
  %y = argus.mma_async "wgmma.m64n128k16.f32.bf16" %fa, %b, %z : !RA, !SB, !RC2
  scf.if %p {
    argus.wgmma_commit
  }
  %w = argus.wgmma_wait 0, %y : !RC2
  %g = argus.view "C" %c[%c0, %c0] : memref<64x128xf32> -> !G
  argus.store %w, %g : !RC2, !G
  return
}
