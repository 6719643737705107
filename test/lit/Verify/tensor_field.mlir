// The implicit tag field "tensor": every element read from or written to a
// global view carries the function-argument number of the viewed memref. It
// flows through copies into shared memory (the latest writer), loads,
// elementwise ops and mma operands like any other field, so assertions can
// tell tensors with the same field names apart.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t.json

#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
#Copy = #argus.layout<"(256,16):(16,1)">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<64x64xf16, global>
!S = !argus.tile<64x64xf16, shared, "(64,64):(64,1)">
!RA = !argus.tile<64x64xf16, register, #FragA>
!RB = !argus.tile<64x64xf16, register, #FragB>
!RC = !argus.tile<64x64xf32, register, #FragC>
!GC = !argus.tile<64x64xf32, global>
!G4 = !argus.tile<64x4xf32, global>
!R4 = !argus.tile<64x4xf32, register, "(64,4):(1,64)">

// A from %A (argument 0), B from %B (argument 1), C stored to %C (2): the
// operands of the mma come from different tensors, through shared memory.
// CHECK-LABEL: "predicate": "a.tensor == 0 && b.tensor == 1 && a.tensor != b.tensor && a.k == b.k"
// CHECK: "status": "proved"
// CHECK-LABEL: "predicate": "value.m == dest.m && dest.tensor == 2"
// CHECK: "status": "proved"
func.func @tensor_ok(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                     %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %ktiles = arith.divui %K, %c64 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !S>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !S>
  %zero = argus.fill 0.000000e+00 : !RC
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
  %acc = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %k0 = arith.muli %kt, %c64 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !G
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !G
    %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !G
    %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !G
    argus.copy %gat, %sa0 threads #Copy : !G, !S
    argus.copy %gbt, %sb0 threads #Copy : !G, !S
    argus.barrier
    %af = argus.load %sa0 : !S -> !RA
    %bf = argus.load %sb0 : !S -> !RB
    %acc_n = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc_i : !RA, !RB, !RC
    argus.tag_assert %acc_n, "a.tensor == 0 && b.tensor == 1 && a.tensor != b.tensor && a.k == b.k" : !RC
    argus.barrier
    scf.yield %acc_n : !RC
  }
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !GC
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !GC
  argus.store %acc, %gct : !RC, !GC
  argus.tag_assert "value.m == dest.m && dest.tensor == 2"
  return
}

// The B slab is read from A's tensor under A's name: the k fields still
// agree and the names are consistent, but b.tensor says where it came from.
// CHECK-LABEL: "predicate": "b.tensor == 1 && a.k == b.k"
// CHECK: "replay": "confirmed"
// CHECK-NEXT: "status": "violated"
// DIAG: error: tag assertion 'b.tensor == 1 && a.k == b.k' violated at 'argus.mma'
// DIAG: note: b element ({{[0-9]+}},{{[0-9]+}}) of sB {{.*}}has tags {k={{[0-9]+}}, n={{[0-9]+}}, tensor=0}
// DIAG: note: 'argus.load' at {{.*}} reads sB[{{.*}} written by 'argus.copy' at {{.*}}, from A[
func.func @b_from_a(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                    %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %ktiles = arith.divui %K, %c64 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !S>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !S>
  %zero = argus.fill 0.000000e+00 : !RC
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
  %acc = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %k0 = arith.muli %kt, %c64 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !G
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !G
    %gb = argus.view "A" %A[%k0, %n0] : memref<?x?xf16> -> !G
    %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !G
    argus.copy %gat, %sa0 threads #Copy : !G, !S
    argus.copy %gbt, %sb0 threads #Copy : !G, !S
    argus.barrier
    %af = argus.load %sa0 : !S -> !RA
    %bf = argus.load %sb0 : !S -> !RB
    %acc_n = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc_i : !RA, !RB, !RC
    argus.tag_assert %acc_n, "b.tensor == 1 && a.k == b.k" : !RC
    argus.barrier
    scf.yield %acc_n : !RC
  }
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !GC
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !GC
  argus.store %acc, %gct : !RC, !GC
  return
}

// Untagged global views carry only "tensor"; elementwise results carry both
// operands' (lhs wins); a store into the tensor the lhs came from.
// CHECK-LABEL: "predicate": "lhs.tensor == 0 && rhs.tensor == 1 && result.tensor == 0 && result.rhs.tensor == 1"
// CHECK: "status": "proved"
// CHECK-LABEL: "predicate": "dest.tensor == value.tensor && dest.tensor != value.rhs.tensor"
// CHECK: "status": "proved"
// CHECK-LABEL: "predicate": "dest.tensor == value.rhs.tensor"
// CHECK: "replay": "confirmed"
// CHECK-NEXT: "status": "violated"
// DIAG: error: tag assertion 'dest.tensor == value.rhs.tensor' violated at 'argus.store'
// DIAG: note: dest element ({{[0-9]+}},{{[0-9]+}}) of X at global ({{[0-9]+}},{{[0-9]+}}) has tags {tensor=0}
func.func @tensor_elementwise(%X: memref<?x?xf32>, %Y: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %r0 = arith.muli %bx, %c64 : index
  %gx = argus.view "X" %X[%r0, %c0] : memref<?x?xf32> -> !G4
  %gy = argus.view "Y" %Y[%r0, %c0] : memref<?x?xf32> -> !G4
  %x = argus.load %gx : !G4 -> !R4
  %y = argus.load %gy : !G4 -> !R4
  %s = argus.add %x, %y : !R4
  argus.tag_assert %s, "lhs.tensor == 0 && rhs.tensor == 1 && result.tensor == 0 && result.rhs.tensor == 1" : !R4
  argus.store %s, %gx : !R4, !G4
  argus.tag_assert "dest.tensor == value.tensor && dest.tensor != value.rhs.tensor"
  argus.store %s, %gx : !R4, !G4
  argus.tag_assert "dest.tensor == value.rhs.tensor"
  return
}
