// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// scf.if: copies, barriers, loads and index values under a block-uniform
// condition (a boundary tile, a role branch). Every check of this kernel is
// proved: no diagnostic.
// CHECK-NOT: {{error:|warning:}}
// CHECK-LABEL: error: unwritten-read violated
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @guarded_copy(%A: memref<256x4xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %z = argus.fill 0.0 : !R
  scf.for %kt = %c0 to %K step %c1 {
    %tail = arith.cmpi ult, %kt, %c4 : index
    // The row offset picked by a branch: an index-valued scf.if.
    %row = scf.if %tail -> (index) {
      %r = arith.muli %kt, %c64 : index
      scf.yield %r : index
    } else {
      scf.yield %c0 : index
    }
    scf.if %tail {
      %g = argus.view "A" %A[%row, %c0] : memref<256x4xf32> -> !G
      %gt = argus.tag %g [%row, %c0] ["k", "n"] = #Coord : !G
      argus.copy %gt, %s0 threads #Copy : !G, !S
      argus.barrier
      %x = argus.load %s0 : !S -> !R
      %want = arith.muli %kt, %c64 : index
      %ref = argus.tag %z [%want, %c0] ["k", "n"] = #Coord : !R
      %y = argus.add %x, %ref : !R
      argus.tag_assert %y, "lhs.k == rhs.k && lhs.n == rhs.n" : !R
      argus.barrier
    }
  }
  return
}

// -----

// The copy is guarded but the read is not: when the condition is false the
// read sees nothing.
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @read_outside_guard(%A: memref<64x4xf32>, %N: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s = argus.alloc "sA" : !argus.buffer<1 x !S>
  %s0 = argus.stage %s[%c0] : !argus.buffer<1 x !S>
  %big = arith.cmpi uge, %N, %c2 : index
  scf.if %big {
    %g = argus.view "A" %A[%c0, %c0] : memref<64x4xf32> -> !G
    argus.copy %g, %s0 threads #Copy : !G, !S
  }
  argus.barrier
  // CHECK-SAME: at 'argus.load' ({{.*}}:[[@LINE+2]]:
  // CHECK: note: kernel arguments: {{.*}}arg1=1
  %x = argus.load %s0 : !S -> !R
  return
}

// -----

// Index values carried through iter_args: a k offset advanced by 32 and a
// stage index rotated modulo 2 each iteration (closed forms x0 + n c and
// (x0 + n c) mod S). Proved: no diagnostic.
// CHECK-NOT: {{error:|warning:}}
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Copy = #argus.layout<"(64,4):(4,1)">
!G = !argus.tile<64x4xf32, global>
!S = !argus.tile<64x4xf32, shared, "(64,4):(4,1)">
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
func.func @carried_offsets(%A: memref<64x1024xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %s = argus.alloc "sA" : !argus.buffer<2 x !S>
  %z = argus.fill 0.0 : !R
  %r:2 = scf.for %kt = %c0 to %c256 step %c1 iter_args(%k = %c0, %st = %c0) -> (index, index) {
    %g = argus.view "A" %A[%c0, %k] : memref<64x1024xf32> -> !G
    %gt = argus.tag %g [%c0, %k] ["m", "k"] = #Coord : !G
    %sk = argus.stage %s[%st] : !argus.buffer<2 x !S>
    argus.copy %gt, %sk threads #Copy : !G, !S
    argus.barrier
    %x = argus.load %sk : !S -> !R
    %want = arith.muli %kt, %c4 : index
    %ref = argus.tag %z [%c0, %want] ["m", "k"] = #Coord : !R
    %y = argus.add %x, %ref : !R
    argus.tag_assert %y, "lhs.k == rhs.k" : !R
    argus.barrier
    %kn = arith.addi %k, %c4 : index
    %s1 = arith.addi %st, %c1 : index
    %sn = arith.remui %s1, %c2 : index
    scf.yield %kn, %sn : index, index
  }
  return
}
