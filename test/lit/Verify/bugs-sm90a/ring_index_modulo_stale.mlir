// Bug corpus (sm_90a): ring_index_modulo_stale (edit of examples/sm90a/gemm_tma_store_ws.mlir).
// the consumers wait on full[i rem 4], a modulus left from the 4-stage ring of gemm_tma_ws, on a 3-stage ring: slot 3 waits on an mbarrier past the ring (the word after it in shared memory). Before mbarrier-index the protocol checks were only unknown ("not `slot rem 3`").
// RUN: not argus-opt %s --argus-verify-tags="timeout-ms=5000 report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: mbarrier-index violated
// CHECK: note: {{.*}}uses mbarrier 3 of 'full', which has 3 (a slot modulo 3 is probably intended)
// JSON: "kind": "mbarrier-index"
// JSON: "replay": "confirmed"
// Warp-specialized persistent GEMM for NVIDIA Hopper (sm_90a) with a bulk
// tensor store epilogue: as gemm_tma_ws.mlir (TMA copies completing on
// mbarriers, one producer and two consumer warpgroups issuing asynchronous
// wgmma), but with a 3-stage ring, and C leaves through shared memory: the
// consumers write the tile into sC, fence it for the async proxy, and one
// thread issues its bulk tensor store, which runs while the consumers go on
// with the next tile's mainloop. Before sC is written again, the issuing
// thread waits until the previous store has read it (tma_store_wait 0) and
// the consumers' named barrier passes that on.
//
// A: M x K bf16 row-major, B: K x N bf16 row-major, C: M x N bf16 (f32
// accumulation), 128 x 256 tiles walked persistently in row-major order.
// M, N and K need not be multiples of the tile (clipped views: TMA fills
// what lies outside A and B with zeros and clips the store to C); TMA needs
// rows of 16-byte multiples: K and N are multiples of 8.
//
// The pipeline protocol is gemm_tma_ws.mlir's with 3 stages: slab i of a
// block uses stage s = i % 3; the producer waits for parity (i / 3 + 1) % 2
// of empty[s], the consumers for parity (i / 3) % 2 of full[s], and after
// retiring slab i - 1's wgmma release stage (i - 1) % 3.

#FragC = #argus.frag<"wgmma.m64n256k16.f32.bf16.ss", c, warps = [2, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!GA = !argus.tile<128x64xbf16, global>
!GB = !argus.tile<64x256xbf16, global>
!GC = !argus.tile<128x256xbf16, global>
!SA = !argus.tile<128x64xbf16, shared, "Sw<3,3,3> o (128,64):(64,1)">
!SB = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!RC = !argus.tile<128x256xf32, register, #FragC>
!RO = !argus.tile<128x256xbf16, register, #FragC>
!SC = !argus.tile<128x256xbf16, shared, "Sw<3,3,3> o (128,(64,4)):(64,(1,8192))">
!TC = !argus.tensor_map<128x64xbf16, swizzle = 128>
!TA = !argus.tensor_map<128x64xbf16, swizzle = 128>
!TB = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<3>

func.func @gemm_tma_store_ws(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>,
                       %C: memref<?x?xbf16>, %M: index, %N: index, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
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
  %c8 = arith.constant 8 : index
  %sz_nr = arith.remui %N, %c8 : index
  %sz_n = arith.cmpi eq, %sz_nr, %c0 : index
  argus.assume %sz_n, "N is a multiple of 8 (16-byte rows of B for TMA)"
  %sz_kr = arith.remui %K, %c8 : index
  %sz_k = arith.cmpi eq, %sz_kr, %c0 : index
  argus.assume %sz_k, "K is a multiple of 8 (16-byte rows of A for TMA)"

  %sz_k1 = arith.cmpi uge, %K, %c8 : index
  argus.assume %sz_k1, "K >= 8"

  %tiles_m = arith.ceildivui %M, %c128 : index
  %tiles_n = arith.ceildivui %N, %c256 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %ktiles = arith.ceildivui %K, %c64 : index
  // The slab counter runs up to tiles * ktiles on one block.
  %c_cap = arith.constant 4194304 : index
  %sz_cap = arith.divui %c_cap, %ktiles : index
  %sz_w = arith.cmpi ult, %tiles, %sz_cap : index
  argus.assume %sz_w, "ceil(M / 128) * ceil(N / 256) * ceil(K / 64) < 2^22"
  %bid = gpu.block_id x
  %grid = gpu.grid_dim x

  %tmA = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA
  %tmB = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TB
  %tmC = argus.tensor_map "C" %C : memref<?x?xbf16> -> !TC
  %sa = argus.alloc "sA" : !argus.buffer<3 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<3 x !SB>
  %sc = argus.alloc "sC" : !argus.buffer<1 x !SC>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 256 : !Ring

  argus.role "producer" warps 0 to 4 regs 40 {
    argus.region.begin "produce" id 1
    %p_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %i_next = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%i = %i0) -> (index) {
        %k0 = arith.muli %kt, %c64 : index
        %s = arith.remui %i, %c3 : index
        %round = arith.divui %i, %c3 : index
        %phase = arith.remui %round, %c2 : index
        %free = arith.subi %c1, %phase : index
        argus.mbarrier.wait %empty[%s], %free : !Ring
        argus.mbarrier.arrive_expect_tx %full[%s], 49152 : !Ring
        %ga = argus.view "A" %A[%m0, %k0] clipped : memref<?x?xbf16> -> !GA
        %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !GA
        %gb = argus.view "B" %B[%k0, %n0] clipped : memref<?x?xbf16> -> !GB
        %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !GB
        %sas = argus.stage %sa[%s] : !argus.buffer<3 x !SA>
        %sbs = argus.stage %sb[%s] : !argus.buffer<3 x !SB>
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
    %scs = argus.stage %sc[%c0] : !argus.buffer<1 x !SC>
    %c_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %zero = argus.fill 0.000000e+00 : !RC
      %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC
      %r:2 = scf.for %kt = %c0 to %ktiles step %c1
          iter_args(%acc = %acc0, %i = %i0) -> (!RC, index) {
        %s = arith.remui %i, %c3 : index
        %round = arith.divui %i, %c3 : index
        %phase = arith.remui %round, %c2 : index
        %c4w = arith.constant 4 : index
        %s4 = arith.remui %i, %c4w : index
        argus.mbarrier.wait %full[%s4], %phase : !Ring
        %sas = argus.stage %sa[%s] : !argus.buffer<3 x !SA>
        %sbs = argus.stage %sb[%s] : !argus.buffer<3 x !SB>
        %acc1 = argus.mma_async "wgmma.m64n256k16.f32.bf16.ss" %sas, %sbs, %acc : !SA, !SB, !RC
        argus.tag_assert %acc1, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
        argus.wgmma_commit
        argus.wgmma_wait 1
        // Slab i - 1's wgmma has retired: hand its stage back.
        %later = arith.cmpi ne, %kt, %c0 : index
        scf.if %later {
          %i2 = arith.addi %i, %c2 : index
          %prev = arith.remui %i2, %c3 : index
          argus.mbarrier.arrive %empty[%prev] : !Ring
        }
        %i1 = arith.addi %i, %c1 : index
        scf.yield %acc1, %i1 : !RC, index
      }
      %acc = argus.wgmma_wait 0, %r#0 : !RC
      %i2 = arith.addi %r#1, %c2 : index
      %last = arith.remui %i2, %c3 : index
      argus.mbarrier.arrive %empty[%last] : !Ring
      %out = argus.convert %acc : !RC -> !RO
      // The previous tile's bulk store has finished reading sC.
      argus.tma_store_wait 0
      argus.barrier
      argus.store %out, %scs : !RO, !SC
      // Every writer fences its stores for the async proxy, then the
      // consumers' barrier orders them before the bulk store.
      argus.fence_proxy_async
      argus.barrier
      %gc = argus.view "C" %C[%m0, %n0] clipped : memref<?x?xbf16> -> !GC
      %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !GC
      argus.tma_store %scs, %gct, %tmC : !SC, !GC, !TC
      argus.tag_assert "source.m == dest.m && source.n == dest.n"
      scf.yield %r#1 : index
    }
    argus.tma_store_wait 0
    argus.region.end id 2
  }
  return
}
