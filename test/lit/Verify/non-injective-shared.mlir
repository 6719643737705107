// RUN: not argus-opt %s --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s
// non-injective-write of a shared store is decided from the layouts alone
// (the writers' addresses enumerated; the solver only names a collision):
// a replicated register tile stored to a swizzled stage is violated, naming
// both writers of one offset; the same store of an unreplicated tile is
// proved.
!G = !argus.tile<32x8xf16, global>
!Rep = !argus.tile<32x8xf16, register, "((32,2),8):((8,0),1)">
!One = !argus.tile<32x8xf16, register, "((32,2),4):((8,4),1)">
!S = !argus.tile<32x8xf16, shared, "Sw<1,3,3> o (32,8):(8,1)">

// CHECK-LABEL: error: non-injective-write violated at 'argus.store'
// CHECK-SAME: ({{.*}}:[[@LINE+11]]:
// CHECK: note: dest element ([[ROW:[0-9]+]],[[COL:[0-9]+]]) of sA held by thread [[T1:[0-9]+]] slot [[S1:[0-9]+]]
// CHECK: note: dest (second writer) element ([[ROW]],[[COL]]) of sA held by thread {{[0-9]+}} slot [[S1]]
// CHECK: note: thread [[T1]] slot [[S1]] and thread {{[0-9]+}} slot [[S1]] both write sA offset {{[0-9]+}} (stage-relative)
func.func @two_writers(%A: memref<32x8xf16>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<32x8xf16> -> !G
  %r = argus.load %g : !G -> !Rep
  argus.store %r, %s0 : !Rep, !S
  argus.barrier
  return
}

// CHECK-NOT: non-injective-write violated
func.func @one_writer(%A: memref<32x8xf16>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %g = argus.view "A" %A[%c0, %c0] : memref<32x8xf16> -> !G
  %r = argus.load %g : !G -> !One
  argus.store %r, %s0 : !One, !S
  argus.barrier
  return
}
