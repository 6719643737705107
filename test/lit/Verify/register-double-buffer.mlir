// Register double-buffering: fragments loaded before the loop and carried
// in iter_args (each iteration loads the next slab's). Iteration 0 uses the
// prologue's fragments, later ones the previous iteration's: the tags of a
// carried value are its init value's at the first iteration, then the
// yielded value's (an induction: base case, then a step). Before, the first
// iteration was never checked: `a.k >= 32`, false there, was proved.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: argus-opt %t/ok.mlir --argus-verify-tags -o /dev/null 2>&1 | count 0
// RUN: not argus-opt %t/first_iteration.mlir --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: tag assertion 'a.k == b.k && a.m == acc.m && b.n == acc.n && a.k >= 32' violated at 'argus.mma' ({{.*}}) in iteration 0 of scf.for
// CHECK: note: a element {{.*}} has tags {k={{[0-9]|[12][0-9]|3[01]}}, m=

//--- ok.mlir
// GEMM C = A * B on AMD MI300X (gfx942) matrix cores.
//
// A: MxK f16 (row-major), B: KxN f16 (row-major), C: MxN f32.
// One 256-thread block (4 waves of 64) computes a 128x128 tile of C; the
// waves form a 2x2 grid, each computing 64x64 with 2x2 repetitions of
// v_mfma_f32_32x32x8_f16. The k-loop stages 128x32 / 32x128 slabs through
// shared memory.
//
// Tags: every element of A carries its global (m, k), every element of B its
// (k, n), every accumulator element its (m, n). At the MFMA the A and B
// elements that meet must agree on k, and both must belong to the
// accumulator element's row and column.

#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
#CopyA = #argus.layout<"((4,64),(8,2)):((1024,1),(128,64))">
#CopyB = #argus.layout<"((16,16),(8,2)):((256,1),(32,16))">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>

func.func @gemm_mfma(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                     %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  // Shape preconditions (assumed by the verifier, checked at launch): A is
  // M x K, B is K x N, C is M x N; the grid covers M and N exactly with
  // 128 x 128 tiles and K is a multiple of 32.
  %sz_tm = arith.constant 128 : index
  %sz_tn = arith.constant 128 : index
  %sz_gx = gpu.grid_dim x
  %sz_gy = gpu.grid_dim y
  %sz_M = arith.muli %sz_gy, %sz_tm : index
  %sz_N = arith.muli %sz_gx, %sz_tn : index
  %sz_a0 = memref.dim %A, %c0 : memref<?x?xf16>
  %sz_a1 = memref.dim %A, %c1 : memref<?x?xf16>
  %sz_b0 = memref.dim %B, %c0 : memref<?x?xf16>
  %sz_b1 = memref.dim %B, %c1 : memref<?x?xf16>
  %sz_c0 = memref.dim %C, %c0 : memref<?x?xf32>
  %sz_c1 = memref.dim %C, %c1 : memref<?x?xf32>
  %sz_am = arith.cmpi eq, %sz_a0, %sz_M : index
  %sz_ak = arith.cmpi eq, %sz_a1, %K : index
  %sz_a = arith.andi %sz_am, %sz_ak : i1
  argus.assume %sz_a, "A is M x K with M = 128 * grid_dim.y"
  %sz_bk = arith.cmpi eq, %sz_b0, %K : index
  %sz_bn = arith.cmpi eq, %sz_b1, %sz_N : index
  %sz_b = arith.andi %sz_bk, %sz_bn : i1
  argus.assume %sz_b, "B is K x N with N = 128 * grid_dim.x"
  %sz_cm = arith.cmpi eq, %sz_c0, %sz_M : index
  %sz_cn = arith.cmpi eq, %sz_c1, %sz_N : index
  %sz_c = arith.andi %sz_cm, %sz_cn : i1
  argus.assume %sz_c, "C is M x N"
  %sz_kr = arith.remui %K, %c32 : index
  %sz_k = arith.cmpi eq, %sz_kr, %c0 : index
  argus.assume %sz_k, "K is a multiple of 32"
  %sz_k2 = arith.cmpi uge, %K, %c128 : index
  argus.assume %sz_k2, "K >= 128"
  %ktiles = arith.divui %K, %c32 : index

  %sa = argus.alloc "sA" : !argus.buffer<1 x !argus.tile<128x32xf16, shared, "(128,32):(32,1)">>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !argus.tile<32x128xf16, shared, "(32,128):(128,1)">>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !argus.tile<128x32xf16, shared, "(128,32):(32,1)">>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !argus.tile<32x128xf16, shared, "(32,128):(128,1)">>

  %zero = argus.fill 0.000000e+00 : !argus.tile<128x128xf32, register, #FragC>
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<128x128xf32, register, #FragC>

  %kl = arith.subi %ktiles, %c1 : index
  %pa = argus.view "A" %A[%m0, %c0] : memref<?x?xf16> -> !argus.tile<128x32xf16, global>
  %pat = argus.tag %pa [%m0, %c0] ["m", "k"] = #Coord : !argus.tile<128x32xf16, global>
  %pb = argus.view "B" %B[%c0, %n0] : memref<?x?xf16> -> !argus.tile<32x128xf16, global>
  %pbt = argus.tag %pb [%c0, %n0] ["k", "n"] = #Coord : !argus.tile<32x128xf16, global>
  argus.copy %pat, %sa0 threads #CopyA : !argus.tile<128x32xf16, global>, !argus.tile<128x32xf16, shared, "(128,32):(32,1)">
  argus.copy %pbt, %sb0 threads #CopyB : !argus.tile<32x128xf16, global>, !argus.tile<32x128xf16, shared, "(32,128):(128,1)">
  argus.barrier
  %af0 = argus.load %sa0 : !argus.tile<128x32xf16, shared, "(128,32):(32,1)"> -> !argus.tile<128x32xf16, register, #FragA>
  %bf0 = argus.load %sb0 : !argus.tile<32x128xf16, shared, "(32,128):(128,1)"> -> !argus.tile<32x128xf16, register, #FragB>
  argus.barrier
  argus.region.begin "mainloop" id 1
  %acc, %afl, %bfl = scf.for %kt = %c0 to %kl step %c1 iter_args(%acc_i = %acc0, %af = %af0, %bf = %bf0) -> (!argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>) {
    %kn = arith.addi %kt, %c1 : index
    %k0 = arith.muli %kn, %c32 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !argus.tile<128x32xf16, global>
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !argus.tile<128x32xf16, global>
    %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !argus.tile<32x128xf16, global>
    %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !argus.tile<32x128xf16, global>
    argus.copy %gat, %sa0 threads #CopyA : !argus.tile<128x32xf16, global>, !argus.tile<128x32xf16, shared, "(128,32):(32,1)">
    argus.copy %gbt, %sb0 threads #CopyB : !argus.tile<32x128xf16, global>, !argus.tile<32x128xf16, shared, "(32,128):(128,1)">
    argus.barrier
    %afn = argus.load %sa0 : !argus.tile<128x32xf16, shared, "(128,32):(32,1)"> -> !argus.tile<128x32xf16, register, #FragA>
    %bfn = argus.load %sb0 : !argus.tile<32x128xf16, shared, "(32,128):(128,1)"> -> !argus.tile<32x128xf16, register, #FragB>
    %acc_n = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc_i : !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>, !argus.tile<128x128xf32, register, #FragC>
    argus.tag_assert %acc_n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !argus.tile<128x128xf32, register, #FragC>
    argus.barrier
    scf.yield %acc_n, %afn, %bfn : !argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>
  }
  %accf = argus.mma "v_mfma_f32_32x32x8_f16" %afl, %bfl, %acc : !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>, !argus.tile<128x128xf32, register, #FragC>
  argus.region.end id 1

  argus.region.begin "epilogue" id 4
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<128x128xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<128x128xf32, global>
  argus.store %accf, %gct : !argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x128xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  argus.region.end id 4
  return
}

//--- first_iteration.mlir
// GEMM C = A * B on AMD MI300X (gfx942) matrix cores.
//
// A: MxK f16 (row-major), B: KxN f16 (row-major), C: MxN f32.
// One 256-thread block (4 waves of 64) computes a 128x128 tile of C; the
// waves form a 2x2 grid, each computing 64x64 with 2x2 repetitions of
// v_mfma_f32_32x32x8_f16. The k-loop stages 128x32 / 32x128 slabs through
// shared memory.
//
// Tags: every element of A carries its global (m, k), every element of B its
// (k, n), every accumulator element its (m, n). At the MFMA the A and B
// elements that meet must agree on k, and both must belong to the
// accumulator element's row and column.

#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [2, 2]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [2, 2]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [2, 2]>
#CopyA = #argus.layout<"((4,64),(8,2)):((1024,1),(128,64))">
#CopyB = #argus.layout<"((16,16),(8,2)):((256,1),(32,16))">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>

func.func @gemm_mfma(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                     %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  // Shape preconditions (assumed by the verifier, checked at launch): A is
  // M x K, B is K x N, C is M x N; the grid covers M and N exactly with
  // 128 x 128 tiles and K is a multiple of 32.
  %sz_tm = arith.constant 128 : index
  %sz_tn = arith.constant 128 : index
  %sz_gx = gpu.grid_dim x
  %sz_gy = gpu.grid_dim y
  %sz_M = arith.muli %sz_gy, %sz_tm : index
  %sz_N = arith.muli %sz_gx, %sz_tn : index
  %sz_a0 = memref.dim %A, %c0 : memref<?x?xf16>
  %sz_a1 = memref.dim %A, %c1 : memref<?x?xf16>
  %sz_b0 = memref.dim %B, %c0 : memref<?x?xf16>
  %sz_b1 = memref.dim %B, %c1 : memref<?x?xf16>
  %sz_c0 = memref.dim %C, %c0 : memref<?x?xf32>
  %sz_c1 = memref.dim %C, %c1 : memref<?x?xf32>
  %sz_am = arith.cmpi eq, %sz_a0, %sz_M : index
  %sz_ak = arith.cmpi eq, %sz_a1, %K : index
  %sz_a = arith.andi %sz_am, %sz_ak : i1
  argus.assume %sz_a, "A is M x K with M = 128 * grid_dim.y"
  %sz_bk = arith.cmpi eq, %sz_b0, %K : index
  %sz_bn = arith.cmpi eq, %sz_b1, %sz_N : index
  %sz_b = arith.andi %sz_bk, %sz_bn : i1
  argus.assume %sz_b, "B is K x N with N = 128 * grid_dim.x"
  %sz_cm = arith.cmpi eq, %sz_c0, %sz_M : index
  %sz_cn = arith.cmpi eq, %sz_c1, %sz_N : index
  %sz_c = arith.andi %sz_cm, %sz_cn : i1
  argus.assume %sz_c, "C is M x N"
  %sz_kr = arith.remui %K, %c32 : index
  %sz_k = arith.cmpi eq, %sz_kr, %c0 : index
  argus.assume %sz_k, "K is a multiple of 32"
  %sz_k2 = arith.cmpi uge, %K, %c128 : index
  argus.assume %sz_k2, "K >= 128"
  %ktiles = arith.divui %K, %c32 : index

  %sa = argus.alloc "sA" : !argus.buffer<1 x !argus.tile<128x32xf16, shared, "(128,32):(32,1)">>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !argus.tile<32x128xf16, shared, "(32,128):(128,1)">>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !argus.tile<128x32xf16, shared, "(128,32):(32,1)">>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !argus.tile<32x128xf16, shared, "(32,128):(128,1)">>

  %zero = argus.fill 0.000000e+00 : !argus.tile<128x128xf32, register, #FragC>
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<128x128xf32, register, #FragC>

  %kl = arith.subi %ktiles, %c1 : index
  %pa = argus.view "A" %A[%m0, %c0] : memref<?x?xf16> -> !argus.tile<128x32xf16, global>
  %pat = argus.tag %pa [%m0, %c0] ["m", "k"] = #Coord : !argus.tile<128x32xf16, global>
  %pb = argus.view "B" %B[%c0, %n0] : memref<?x?xf16> -> !argus.tile<32x128xf16, global>
  %pbt = argus.tag %pb [%c0, %n0] ["k", "n"] = #Coord : !argus.tile<32x128xf16, global>
  argus.copy %pat, %sa0 threads #CopyA : !argus.tile<128x32xf16, global>, !argus.tile<128x32xf16, shared, "(128,32):(32,1)">
  argus.copy %pbt, %sb0 threads #CopyB : !argus.tile<32x128xf16, global>, !argus.tile<32x128xf16, shared, "(32,128):(128,1)">
  argus.barrier
  %af0 = argus.load %sa0 : !argus.tile<128x32xf16, shared, "(128,32):(32,1)"> -> !argus.tile<128x32xf16, register, #FragA>
  %bf0 = argus.load %sb0 : !argus.tile<32x128xf16, shared, "(32,128):(128,1)"> -> !argus.tile<32x128xf16, register, #FragB>
  argus.barrier
  argus.region.begin "mainloop" id 1
  %acc, %afl, %bfl = scf.for %kt = %c0 to %kl step %c1 iter_args(%acc_i = %acc0, %af = %af0, %bf = %bf0) -> (!argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>) {
    %kn = arith.addi %kt, %c1 : index
    %k0 = arith.muli %kn, %c32 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !argus.tile<128x32xf16, global>
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !argus.tile<128x32xf16, global>
    %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !argus.tile<32x128xf16, global>
    %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !argus.tile<32x128xf16, global>
    argus.copy %gat, %sa0 threads #CopyA : !argus.tile<128x32xf16, global>, !argus.tile<128x32xf16, shared, "(128,32):(32,1)">
    argus.copy %gbt, %sb0 threads #CopyB : !argus.tile<32x128xf16, global>, !argus.tile<32x128xf16, shared, "(32,128):(128,1)">
    argus.barrier
    %afn = argus.load %sa0 : !argus.tile<128x32xf16, shared, "(128,32):(32,1)"> -> !argus.tile<128x32xf16, register, #FragA>
    %bfn = argus.load %sb0 : !argus.tile<32x128xf16, shared, "(32,128):(128,1)"> -> !argus.tile<32x128xf16, register, #FragB>
    %acc_n = argus.mma "v_mfma_f32_32x32x8_f16" %af, %bf, %acc_i : !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>, !argus.tile<128x128xf32, register, #FragC>
    argus.tag_assert %acc_n, "a.k == b.k && a.m == acc.m && b.n == acc.n && a.k >= 32" : !argus.tile<128x128xf32, register, #FragC>
    argus.barrier
    scf.yield %acc_n, %afn, %bfn : !argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>
  }
  %accf = argus.mma "v_mfma_f32_32x32x8_f16" %afl, %bfl, %acc : !argus.tile<128x32xf16, register, #FragA>, !argus.tile<32x128xf16, register, #FragB>, !argus.tile<128x128xf32, register, #FragC>
  argus.region.end id 1

  argus.region.begin "epilogue" id 4
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<128x128xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<128x128xf32, global>
  argus.store %accf, %gct : !argus.tile<128x128xf32, register, #FragC>, !argus.tile<128x128xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  argus.region.end id 4
  return
}
