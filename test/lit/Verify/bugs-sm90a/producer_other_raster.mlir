// Bug corpus (sm_90a): producer_other_raster (edit of examples/sm90a/gemm_tma_ws.mlir).
// the producer walks the tiles column-major while the consumers walk them row-major: from the second tile on, the consumers multiply the wrong tiles of A and B.
// RUN: not argus-opt %s --argus-verify-tags="timeout-ms=3000 report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: {{tag assertion .* violated at}}
// CHECK: note: {{.*}}has tags {{[{]}}k={{[0-9]+}}, m=128
// JSON: "kind": "assert"
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"

// Warp-specialized persistent GEMM for NVIDIA Hopper (sm_90a): TMA copies
// completing on mbarriers, a 4-stage ring, one producer warpgroup and two
// consumer warpgroups issuing asynchronous wgmma (both operands from shared
// memory), one k-slab's wgmma in flight while the next is issued.
//
// A: M x K bf16 row-major, B: K x N bf16 row-major, C: M x N bf16 (f32
// accumulation). Each block walks the 128 x 256 tiles of C persistently
// (tiles b, b + G, b + 2G, ... for a grid of G blocks, row-major raster).
//
// The pipeline protocol: slab i of a block (counted across its tiles) uses
// stage s = i % 4 of both rings. The producer waits until the consumers
// released the stage (phase i / 4 - 1 of empty[s], parity (i / 4 + 1) % 2;
// a fresh barrier counts as having completed the phase before its first),
// announces 48 KiB on full[s] and issues the copies. The consumers wait for
// phase i / 4 of full[s] (parity (i / 4) % 2), issue slab i's wgmma, retire
// slab i - 1's (wait depth 1) and then release stage (i - 1) % 4.

#FragC = #argus.frag<"wgmma.m64n256k16.f32.bf16.ss", c, warps = [2, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!GA = !argus.tile<128x64xbf16, global>
!GB = !argus.tile<64x256xbf16, global>
!GC = !argus.tile<128x256xbf16, global>
!SA = !argus.tile<128x64xbf16, shared, "Sw<3,3,3> o (128,64):(64,1)">
!SB = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!RC = !argus.tile<128x256xf32, register, #FragC>
!RO = !argus.tile<128x256xbf16, register, #FragC>
!TA = !argus.tensor_map<128x64xbf16, swizzle = 128>
!TB = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<4>

func.func @gemm_tma_ws(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>,
                       %C: memref<?x?xbf16>, %M: index, %N: index, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // Shape preconditions (assumed by the verifier, checked at launch).
  %sz_a0 = memref.dim %A, %c0 : memref<?x?xbf16>
  %sz_a1 = memref.dim %A, %c1 : memref<?x?xbf16>
  %sz_b0 = memref.dim %B, %c0 : memref<?x?xbf16>
  %sz_b1 = memref.dim %B, %c1 : memref<?x?xbf16>
  %sz_c0 = memref.dim %C, %c0 : memref<?x?xbf16>
  %sz_c1 = memref.dim %C, %c1 : memref<?x?xbf16>
  %sz_am = arith.cmpi eq, %sz_a0, %M : index
  %sz_ak = arith.cmpi eq, %sz_a1, %K : index
  %sz_a = arith.andi %sz_am, %sz_ak : i1
  argus.assume %sz_a, "A is M x K"
  %sz_bk = arith.cmpi eq, %sz_b0, %K : index
  %sz_bn = arith.cmpi eq, %sz_b1, %N : index
  %sz_b = arith.andi %sz_bk, %sz_bn : i1
  argus.assume %sz_b, "B is K x N"
  %sz_cm = arith.cmpi eq, %sz_c0, %M : index
  %sz_cn = arith.cmpi eq, %sz_c1, %N : index
  %sz_c = arith.andi %sz_cm, %sz_cn : i1
  argus.assume %sz_c, "C is M x N"
  %sz_mr = arith.remui %M, %c128 : index
  %sz_m = arith.cmpi eq, %sz_mr, %c0 : index
  argus.assume %sz_m, "M is a multiple of 128"
  %sz_nr = arith.remui %N, %c256 : index
  %sz_n = arith.cmpi eq, %sz_nr, %c0 : index
  argus.assume %sz_n, "N is a multiple of 256"
  %sz_kr = arith.remui %K, %c64 : index
  %sz_k = arith.cmpi eq, %sz_kr, %c0 : index
  argus.assume %sz_k, "K is a multiple of 64"

  %sz_k1 = arith.cmpi uge, %K, %c64 : index
  argus.assume %sz_k1, "K >= 64"

  %tiles_m = arith.divui %M, %c128 : index
  %tiles_n = arith.divui %N, %c256 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %ktiles = arith.divui %K, %c64 : index
  // The slab counter runs up to tiles * ktiles on one block.
  %c_cap = arith.constant 4194304 : index
  %sz_cap = arith.divui %c_cap, %ktiles : index
  %sz_w = arith.cmpi ult, %tiles, %sz_cap : index
  argus.assume %sz_w, "(M / 128) * (N / 256) * (K / 64) < 2^22"
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x

  %tmA = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA
  %tmB = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TB
  %sa = argus.alloc "sA" : !argus.buffer<4 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<4 x !SB>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 256 : !Ring

  argus.role "producer" warps 0 to 4 regs 40 {
    argus.region.begin "produce" id 1
    %p_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      %tm = arith.remui %t, %tiles_m : index
      %tn = arith.divui %t, %tiles_m : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %i_next = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%i = %i0) -> (index) {
        %k0 = arith.muli %kt, %c64 : index
        %s = arith.remui %i, %c4 : index
        %round = arith.divui %i, %c4 : index
        %phase = arith.remui %round, %c2 : index
        %free = arith.subi %c1, %phase : index
        argus.mbarrier.wait %empty[%s], %free : !Ring
        argus.mbarrier.arrive_expect_tx %full[%s], 49152 : !Ring
        %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xbf16> -> !GA
        %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !GA
        %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xbf16> -> !GB
        %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !GB
        %sas = argus.stage %sa[%s] : !argus.buffer<4 x !SA>
        %sbs = argus.stage %sb[%s] : !argus.buffer<4 x !SB>
        argus.tma_load %gat, %sas, %tmA, %full[%s] : !GA, !SA, !TA, !Ring
        argus.tma_load %gbt, %sbs, %tmB, %full[%s] : !GB, !SB, !TB, !Ring
        %i1 = arith.addi %i, %c1 : index
        scf.yield %i1 : index
      }
      scf.yield %i_next : index
    }
    argus.region.end id 1
  }

  argus.role "consumer" warps 4 to 12 regs 232 {
    argus.region.begin "consume" id 2
    %c_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %zero = argus.fill 0.000000e+00 : !RC
      %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
      %r:2 = scf.for %kt = %c0 to %ktiles step %c1
          iter_args(%acc = %acc0, %i = %i0) -> (!RC, index) {
        %s = arith.remui %i, %c4 : index
        %round = arith.divui %i, %c4 : index
        %phase = arith.remui %round, %c2 : index
        argus.mbarrier.wait %full[%s], %phase : !Ring
        %sas = argus.stage %sa[%s] : !argus.buffer<4 x !SA>
        %sbs = argus.stage %sb[%s] : !argus.buffer<4 x !SB>
        %acc1 = argus.mma_async "wgmma.m64n256k16.f32.bf16.ss" %sas, %sbs, %acc : !SA, !SB, !RC
        argus.tag_assert %acc1, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
        argus.wgmma_commit
        argus.wgmma_wait 1
        // Slab i - 1's wgmma has retired: hand its stage back.
        %later = arith.cmpi ne, %kt, %c0 : index
        scf.if %later {
          %i3 = arith.addi %i, %c3 : index
          %prev = arith.remui %i3, %c4 : index
          argus.mbarrier.arrive %empty[%prev] : !Ring
        }
        %i1 = arith.addi %i, %c1 : index
        scf.yield %acc1, %i1 : !RC, index
      }
      %acc = argus.wgmma_wait 0, %r#0 : !RC
      %i3 = arith.addi %r#1, %c3 : index
      %last = arith.remui %i3, %c4 : index
      argus.mbarrier.arrive %empty[%last] : !Ring
      %out = argus.convert %acc : !RC -> !RO
      %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xbf16> -> !GC
      %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !GC
      argus.store %out, %gct : !RO, !GC
      argus.tag_assert "value.m == dest.m && value.n == dest.n"
      scf.yield %r#1 : index
    }
    argus.region.end id 2
  }
  return
}
