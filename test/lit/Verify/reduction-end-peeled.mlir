// The end of a reduction whose last slab is peeled off the k loop
// (reduction-coverage): the mmas after the loop must continue where it
// stopped, one index after another, and the last of them reaches the end
// of the dimension. Until 2026-12-02 a loop whose accumulator went on to a
// straight-line mma had no checked end, and both kernels were proved.
// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// The peeled mma accumulates the loop's last slab again (slab nk - 2
// instead of nk - 1): the last slab of K is never accumulated.
// CHECK-LABEL: error: reduction-coverage violated
// CHECK: note: the mma after the scf.for at {{.*}} does not continue row {{[0-9]+}} where the loop stopped, one index after another: an index is skipped or accumulated twice
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

func.func @undeclared_repeat(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  // A is M x K and B is K x N with K a multiple of 128; the grid covers C
  // (M x N) exactly.
  %m1 = arith.addi %m0, %c64 : index
  %n1 = arith.addi %n0, %c64 : index
  %a0 = memref.dim %A, %c0 : memref<?x?xf16>
  %a1 = memref.dim %A, %c1 : memref<?x?xf16>
  %b0 = memref.dim %B, %c0 : memref<?x?xf16>
  %b1 = memref.dim %B, %c1 : memref<?x?xf16>
  %cm = memref.dim %C, %c0 : memref<?x?xf32>
  %cn = memref.dim %C, %c1 : memref<?x?xf32>
  %okam = arith.cmpi uge, %a0, %m1 : index
  %okak = arith.cmpi eq, %a1, %K : index
  %okbk = arith.cmpi eq, %b0, %K : index
  %okbn = arith.cmpi uge, %b1, %n1 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %rows = arith.muli %gy, %c64 : index
  %cols = arith.muli %gx, %c64 : index
  %okcm = arith.cmpi eq, %cm, %rows : index
  %okcn = arith.cmpi eq, %cn, %cols : index
  %oka = arith.andi %okam, %okak : i1
  %okb = arith.andi %okbk, %okbn : i1
  %okc = arith.andi %okcm, %okcn : i1
  argus.assume %oka, "A covers this block's rows and has K columns"
  %krem = arith.remui %K, %c128 : index
  %okk = arith.cmpi eq, %krem, %c0 : index
  argus.assume %okk, "K is a multiple of 128"
  %kpos = arith.cmpi uge, %K, %c128 : index
  argus.assume %kpos, "K >= 128"
  argus.assume %okb, "B is K x N and covers this block's columns"
  argus.assume %okc, "C is (64 grid_dim.y) x (64 grid_dim.x)"
  // The second half of the columns of A: [K / 2, K), in K / 128 slabs, the
  // last one peeled off the loop.
  %kh = arith.constant 0 : index
  %nk = arith.divui %K, %c64 : index
  %nloop = arith.subi %nk, %c1 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !S>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !S>
  %zero = argus.fill 0.000000e+00 : !RC
  // k: where the reduction starts (declared).
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
  %acc = scf.for %kt = %c0 to %nloop step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %kk = arith.muli %kt, %c64 : index
    %k0 = arith.addi %kh, %kk : index
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
    argus.tag_assert %acc_n, "a.k == b.k" : !RC
    argus.barrier
    scf.yield %acc_n : !RC
  }
  // The last slab.
  %kl = arith.subi %nk, %c2 : index
  %kk = arith.muli %kl, %c64 : index
  %k0 = arith.addi %kh, %kk : index
  %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !G
  %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !G
  %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !G
  %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !G
  argus.copy %gat, %sa0 threads #Copy : !G, !S
  argus.copy %gbt, %sb0 threads #Copy : !G, !S
  argus.barrier
  %af = argus.load %sa0 : !S -> !RA
  %bf = argus.load %sb0 : !S -> !RB
  %accl = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc : !RA, !RB, !RC
  argus.tag_assert %accl, "a.k == b.k" : !RC
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<64x64xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<64x64xf32, global>
  argus.store %accl, %gct : !RC, !argus.tile<64x64xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}

// -----

// The loop stops two slabs short and the peeled mma takes the last: the
// slab between them is skipped.
// CHECK-LABEL: error: reduction-coverage violated
// CHECK: does not continue row
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

func.func @undeclared_short(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  // A is M x K and B is K x N with K a multiple of 128; the grid covers C
  // (M x N) exactly.
  %m1 = arith.addi %m0, %c64 : index
  %n1 = arith.addi %n0, %c64 : index
  %a0 = memref.dim %A, %c0 : memref<?x?xf16>
  %a1 = memref.dim %A, %c1 : memref<?x?xf16>
  %b0 = memref.dim %B, %c0 : memref<?x?xf16>
  %b1 = memref.dim %B, %c1 : memref<?x?xf16>
  %cm = memref.dim %C, %c0 : memref<?x?xf32>
  %cn = memref.dim %C, %c1 : memref<?x?xf32>
  %okam = arith.cmpi uge, %a0, %m1 : index
  %okak = arith.cmpi eq, %a1, %K : index
  %okbk = arith.cmpi eq, %b0, %K : index
  %okbn = arith.cmpi uge, %b1, %n1 : index
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %rows = arith.muli %gy, %c64 : index
  %cols = arith.muli %gx, %c64 : index
  %okcm = arith.cmpi eq, %cm, %rows : index
  %okcn = arith.cmpi eq, %cn, %cols : index
  %oka = arith.andi %okam, %okak : i1
  %okb = arith.andi %okbk, %okbn : i1
  %okc = arith.andi %okcm, %okcn : i1
  argus.assume %oka, "A covers this block's rows and has K columns"
  %krem = arith.remui %K, %c128 : index
  %okk = arith.cmpi eq, %krem, %c0 : index
  argus.assume %okk, "K is a multiple of 128"
  %kpos = arith.cmpi uge, %K, %c128 : index
  argus.assume %kpos, "K >= 128"
  argus.assume %okb, "B is K x N and covers this block's columns"
  argus.assume %okc, "C is (64 grid_dim.y) x (64 grid_dim.x)"
  // The second half of the columns of A: [K / 2, K), in K / 128 slabs, the
  // last one peeled off the loop.
  %kh = arith.constant 0 : index
  %nk = arith.divui %K, %c64 : index
  %nloop = arith.subi %nk, %c2 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !S>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !S>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !S>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !S>
  %zero = argus.fill 0.000000e+00 : !RC
  // k: where the reduction starts (declared).
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
  %acc = scf.for %kt = %c0 to %nloop step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %kk = arith.muli %kt, %c64 : index
    %k0 = arith.addi %kh, %kk : index
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
    argus.tag_assert %acc_n, "a.k == b.k" : !RC
    argus.barrier
    scf.yield %acc_n : !RC
  }
  // The last slab.
  %kl = arith.subi %nk, %c1 : index
  %kk = arith.muli %kl, %c64 : index
  %k0 = arith.addi %kh, %kk : index
  %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !G
  %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !G
  %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !G
  %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !G
  argus.copy %gat, %sa0 threads #Copy : !G, !S
  argus.copy %gbt, %sb0 threads #Copy : !G, !S
  argus.barrier
  %af = argus.load %sa0 : !S -> !RA
  %bf = argus.load %sb0 : !S -> !RB
  %accl = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc : !RA, !RB, !RC
  argus.tag_assert %accl, "a.k == b.k" : !RC
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<64x64xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<64x64xf32, global>
  argus.store %accl, %gct : !RC, !argus.tile<64x64xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}
