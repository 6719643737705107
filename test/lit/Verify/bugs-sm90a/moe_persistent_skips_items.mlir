// Bug corpus (sm_90a): moe_persistent_skips_items (edit of examples/sm90a/moe_grouped_gemm_persistent_ws.mlir).
// both roles step through the work list by twice the grid: every other item is never computed.
// RUN: not argus-opt %s --argus-verify-tags="timeout-ms=5000 report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: output-coverage violated
// JSON: "kind": "output-coverage"
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"

// MoE grouped GEMM (an expert FFN projection) for NVIDIA Hopper (sm_90a),
// persistent: a grid of about one block per SM walks a work list of
// (expert, tile) pairs. The kernel of moe_grouped_gemm_ws.mlir otherwise:
// expert weights through TMA and an mbarrier ring filled by a producer
// warpgroup, token rows gathered with cp.async by the two consumer
// warpgroups themselves, asynchronous wgmma (both operands from shared
// memory), and the rows scattered back to their token slots scaled by
// their top-k routing weight.
//
//   Y[ids[r], :] = weights[r] * (X[rows[r], :] @ W[e])   for sorted position r
//
//   X: [T, 4096] bf16 (tokens), W: [E * 4096, N] bf16 (expert e's K x N
//   matrix at rows e * 4096), Y: [T * topk + pad, N] bf16, one row per
//   token slot (the caller sums a token's topk rows).
//
// The work list. Sorted positions are grouped by expert and padded so that
// every 128-row block belongs to one expert, block_expert[b] (what a MoE
// layer's align step produces). Work item t is the 128 x 256 tile of
// position block b = t % blocks and column slab t / blocks, with expert
// block_expert[b]; block i takes items i, i + grid, i + 2 grid, ... The
// blocks running at one time hold consecutive position blocks of one
// column slab, so the blocks of one expert read that slab of its weights
// from memory about once. An expert id past the last expert of W is
// clamped to it (a corrupt table reads a real expert instead of faulting).
//
// The protocol. W: the producer's slab counter i runs on across work items;
// slab i uses stage i % 4 of the ring: the producer waits until the
// consumers released it (parity (i / 4 + 1) % 2 of empty[s]), announces
// 32 KiB on full[s] and issues the copy; the consumers wait for phase i / 4
// (parity (i / 4) % 2). While the consumers scatter one item's rows, the
// producer is already filling the ring with the next item's slabs. X: each
// item's slabs kt go through the consumers' own 4-stage buffer (stage
// kt % 4), gathered two slabs ahead with cp.async groups; before slab kt's
// wgmma each thread waits for its own group of slab kt, fences its writes
// for the async proxy and the consumers meet at their named barrier. The
// stage slab kt + 2 overwrites held slab kt - 2, whose wgmma every thread
// retired (wait depth 1) in iteration kt - 1, before that barrier; an
// item's first two slabs overwrite the previous item's slabs 60 and 61,
// retired before the barriers of its last two iterations.

#FragC = #argus.frag<"wgmma.m64n256k16.f32.bf16.ss", c, warps = [2, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Row = affine_map<(d0)[s0] -> (d0 + s0)>
// 256 consumer threads, 16 bytes (8 elements) per row chunk: thread t
// takes chunk t % 8 of rows t / 8 + 32 p.
#CopyX = #argus.layout<"((8,32),(8,4)):((1024,1),(128,32))">
!GIds = !argus.tile<128xi32, global>
// Row indices held where they are used: by the copy's threads (thread t
// the rows t / 8 + 32 p of its slots) and by the accumulator's (the rows of
// #FragC: lane / 4 + 16 * warp + 64 * warpgroup, and + 8).
!IdsCopy = !argus.tile<128xi32, register, "((8,32),4):((0,1),32)">
!IdsAcc = !argus.tile<128xi32, register, "((4,8,4,2),2):((0,1,16,64),8)">
!GX = !argus.tile<128x64xbf16, global>
!GW = !argus.tile<64x256xbf16, global>
!GY = !argus.tile<128x256xbf16, global>
!GRows = !argus.tile<128xf32, global>
!SA = !argus.tile<128x64xbf16, shared, "Sw<3,3,3> o (128,64):(64,1)">
!SB = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!RC = !argus.tile<128x256xf32, register, #FragC>
!RO = !argus.tile<128x256xbf16, register, #FragC>
!Rows = !argus.tile<128xf32, register, "((4,8,4,2),2):((0,1,16,64),8)">
!TB = !argus.tensor_map<64x64xbf16, swizzle = 128>
!Ring = !argus.mbarrier<4>

func.func @moe_grouped_gemm_persistent_ws(%X: memref<?x4096xbf16>,
                                          %W: memref<?x?xbf16>,
                                          %Y: memref<?x?xbf16>,
                                          %sorted_rows: memref<?xi32>,
                                          %sorted_ids: memref<?xi32>,
                                          %weights: memref<?xf32>,
                                          %block_expert: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c4096 = arith.constant 4096 : index
  // K = 4096: 64 slabs of 64.
  %ktiles = arith.constant 64 : index
  // Shape preconditions (assumed by the verifier, checked at launch).
  %P = memref.dim %sorted_rows, %c0 : memref<?xi32>
  %sz_ids = memref.dim %sorted_ids, %c0 : memref<?xi32>
  %sz_wts = memref.dim %weights, %c0 : memref<?xf32>
  %sz_r2 = arith.cmpi eq, %sz_ids, %P : index
  %sz_r3 = arith.cmpi eq, %sz_wts, %P : index
  %sz_r = arith.andi %sz_r2, %sz_r3 : i1
  argus.assume %sz_r, "sorted_ids and weights have an entry per sorted position"
  %sz_pr = arith.remui %P, %c128 : index
  %sz_p = arith.cmpi eq, %sz_pr, %c0 : index
  argus.assume %sz_p, "the sorted positions are whole blocks of 128"
  %blocks = arith.divui %P, %c128 : index
  %sz_be = memref.dim %block_expert, %c0 : memref<?xi32>
  %sz_b = arith.cmpi eq, %sz_be, %blocks : index
  argus.assume %sz_b, "block_expert has an entry per block of 128 positions"
  %N = memref.dim %W, %c1 : memref<?x?xbf16>
  %sz_y1 = memref.dim %Y, %c1 : memref<?x?xbf16>
  %sz_nr = arith.remui %N, %c256 : index
  %sz_n0 = arith.cmpi eq, %sz_nr, %c0 : index
  %sz_yn = arith.cmpi eq, %sz_y1, %N : index
  %sz_n = arith.andi %sz_n0, %sz_yn : i1
  argus.assume %sz_n, "W and Y have N columns, a multiple of 256"
  %sz_w0 = memref.dim %W, %c0 : memref<?x?xbf16>
  %sz_wr = arith.remui %sz_w0, %c4096 : index
  %sz_we = arith.cmpi eq, %sz_wr, %c0 : index
  %sz_w1 = arith.cmpi uge, %sz_w0, %c4096 : index
  %sz_w = arith.andi %sz_we, %sz_w1 : i1
  argus.assume %sz_w, "W holds whole experts of 4096 rows, at least one"
  %experts = arith.divui %sz_w0, %c4096 : index
  %e_last = arith.subi %experts, %c1 : index
  %c_pmax = arith.constant 1048576 : index
  %c_nmax = arith.constant 65536 : index
  %sz_pm = arith.cmpi ule, %P, %c_pmax : index
  %sz_nm = arith.cmpi ule, %N, %c_nmax : index
  %sz_m = arith.andi %sz_pm, %sz_nm : i1
  argus.assume %sz_m, "at most 2^20 sorted positions and 65536 columns"
  %cols = arith.divui %N, %c256 : index
  %tiles = arith.muli %blocks, %cols : index
  // The producer's slab counter runs up to tiles * 64 on one block.
  %c_cap = arith.constant 65536 : index
  %sz_c = arith.cmpi ult, %tiles, %c_cap : index
  argus.assume %sz_c, "fewer than 65536 work items (128 x 256 tiles)"
  // The routing's data (checked by the launcher before each launch): token
  // rows are rows of X; slot ids are distinct rows of Y (padding positions
  // name spare rows of their own), so the scatter writes each row once.
  %sz_x0 = memref.dim %X, %c0 : memref<?x4096xbf16>
  %sz_y0 = memref.dim %Y, %c0 : memref<?x?xbf16>
  argus.assume_indices %sorted_rows below %sz_x0, "sorted_rows are rows of X" : memref<?xi32>
  argus.assume_indices %sorted_ids below %sz_y0 distinct, "sorted_ids are distinct rows of Y" : memref<?xi32>
  %bid = gpu.block_id x
  %grid0 = gpu.grid_dim x
  %grid = arith.muli %grid0, %c2 : index

  %tmW = argus.tensor_map "W" %W : memref<?x?xbf16> -> !TB
  %sa = argus.alloc "sA" : !argus.buffer<4 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<4 x !SB>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !Ring
  %empty = argus.mbarrier.alloc "empty" arrivals 256 : !Ring

  argus.role "producer" warps 0 to 4 regs 40 {
    argus.region.begin "produce" id 1
    %p_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      %b = arith.remui %t, %blocks : index
      %col = arith.divui %t, %blocks : index
      %n0 = arith.muli %col, %c256 : index
      %e_i32 = memref.load %block_expert[%b] : memref<?xi32>
      %e_id = arith.index_cast %e_i32 : i32 to index
      %e = arith.minui %e_id, %e_last : index
      %wbase = arith.muli %e, %c4096 : index
      %i_next = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%i = %i0) -> (index) {
        %k0 = arith.muli %kt, %c64 : index
        %s = arith.remui %i, %c4 : index
        %round = arith.divui %i, %c4 : index
        %phase = arith.remui %round, %c2 : index
        %free = arith.subi %c1, %phase : index
        argus.mbarrier.wait %empty[%s], %free : !Ring
        argus.mbarrier.arrive_expect_tx %full[%s], 32768 : !Ring
        %sbs = argus.stage %sb[%s] : !argus.buffer<4 x !SB>
        %wrow = arith.addi %wbase, %k0 : index
        %gw = argus.view "W" %W[%wrow, %n0] : memref<?x?xbf16> -> !GW
        %gwt = argus.tag %gw [%wrow, %n0] ["e", "k", "n"] = affine_map<(d0, d1)[s0, s1] -> ((d0 + s0) floordiv 4096, (d0 + s0) mod 4096, d1 + s1)> : !GW
        argus.tma_load %gwt, %sbs, %tmW, %full[%s] : !GW, !SB, !TB, !Ring
        %i1 = arith.addi %i, %c1 : index
        scf.yield %i1 : index
      }
      scf.yield %i_next : index
    }
    argus.region.end id 1
  }

  argus.role "consumer" warps 4 to 12 regs 232 {
    %c_end = scf.for %t = %bid to %tiles step %grid iter_args(%i0 = %c0) -> (index) {
      argus.region.begin "consume" id 2
      %b = arith.remui %t, %blocks : index
      %col = arith.divui %t, %blocks : index
      %r0 = arith.muli %b, %c128 : index
      %n0 = arith.muli %col, %c256 : index
      %e_i32 = memref.load %block_expert[%b] : memref<?xi32>
      %e_id = arith.index_cast %e_i32 : i32 to index
      %e = arith.minui %e_id, %e_last : index
      %grows = argus.view "sorted_rows" %sorted_rows[%r0] : memref<?xi32> -> !GIds
      %rows = argus.load %grows : !GIds -> !IdsCopy
      // Slabs 0 and 1 of X.
      scf.for %p = %c0 to %c2 step %c1 {
        %k0 = arith.muli %p, %c64 : index
        %gx = argus.gather_view "X" %X[%rows, %k0] : memref<?x4096xbf16>, !IdsCopy -> !GX
        %gxt = argus.tag %gx [%r0, %k0, %e] ["r", "k", "e"] = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)> : !GX
        %sas = argus.stage %sa[%p] : !argus.buffer<4 x !SA>
        argus.copy_async %gxt, %sas threads #CopyX : !GX, !SA
        argus.commit_group
      }
      %zero = argus.fill 0.000000e+00 : !RC
      %acc0 = argus.tag %zero [%r0, %n0] ["r", "n"] = #Coord : !RC
      %r:2 = scf.for %kt = %c0 to %ktiles step %c1
          iter_args(%acc = %acc0, %i = %i0) -> (!RC, index) {
        %s = arith.remui %kt, %c4 : index
        %ws = arith.remui %i, %c4 : index
        %round = arith.divui %i, %c4 : index
        %phase = arith.remui %round, %c2 : index
        // Slab kt of X: this thread's copies, then everyone's.
        argus.wait_group 1
        argus.fence_proxy_async
        argus.barrier
        argus.mbarrier.wait %full[%ws], %phase : !Ring
        %sas = argus.stage %sa[%s] : !argus.buffer<4 x !SA>
        %sbs = argus.stage %sb[%ws] : !argus.buffer<4 x !SB>
        %acc1 = argus.mma_async "wgmma.m64n256k16.f32.bf16.ss" %sas, %sbs, %acc : !SA, !SB, !RC
        argus.tag_assert %acc1, "a.k == b.k && a.e == b.e && a.r == acc.r && b.n == acc.n" : !RC
        argus.wgmma_commit
        argus.wgmma_wait 1
        // Slab i - 1's wgmma has retired: hand its W stage back.
        %later = arith.cmpi ne, %kt, %c0 : index
        scf.if %later {
          %i3 = arith.addi %i, %c3 : index
          %prev = arith.remui %i3, %c4 : index
          argus.mbarrier.arrive %empty[%prev] : !Ring
        }
        // Gather slab kt + 2 (an empty group past the end keeps the count).
        %kt2 = arith.addi %kt, %c2 : index
        %more = arith.cmpi ult, %kt2, %ktiles : index
        scf.if %more {
          %k2 = arith.muli %kt2, %c64 : index
          %s2 = arith.remui %kt2, %c4 : index
          %gx = argus.gather_view "X" %X[%rows, %k2] : memref<?x4096xbf16>, !IdsCopy -> !GX
          %gxt = argus.tag %gx [%r0, %k2, %e] ["r", "k", "e"] = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)> : !GX
          %sa2 = argus.stage %sa[%s2] : !argus.buffer<4 x !SA>
          argus.copy_async %gxt, %sa2 threads #CopyX : !GX, !SA
        }
        argus.commit_group
        %i1 = arith.addi %i, %c1 : index
        scf.yield %acc1, %i1 : !RC, index
      }
      %acc = argus.wgmma_wait 0, %r#0 : !RC
      // The last slab's W stage (release slots are named one round on:
      // i - 1 + 4).
      %i3 = arith.addi %r#1, %c3 : index
      %last = arith.remui %i3, %c4 : index
      argus.mbarrier.arrive %empty[%last] : !Ring
      argus.region.end id 2

      // Scale each row by its routing weight and scatter it to its slot.
      argus.region.begin "scatter" id 3
      %gw = argus.view "weights" %weights[%r0] : memref<?xf32> -> !GRows
      %gwt = argus.tag %gw [%r0] ["r"] = #Row : !GRows
      %w = argus.load %gwt : !GRows -> !Rows
      %wb = argus.broadcast %w dim 1 : !Rows -> !RC
      %y = argus.mul %acc, %wb : !RC
      argus.tag_assert %y, "lhs.r == rhs.r" : !RC
      %out = argus.convert %y : !RC -> !RO
      %gids = argus.view "sorted_ids" %sorted_ids[%r0] : memref<?xi32> -> !GIds
      %ids = argus.load %gids : !GIds -> !IdsAcc
      %gy = argus.gather_view "Y" %Y[%ids, %n0] : memref<?x?xbf16>, !IdsAcc -> !GY
      %gyt = argus.tag %gy [%r0, %n0] ["r", "n"] = #Coord : !GY
      argus.store %out, %gyt : !RO, !GY
      argus.tag_assert "value.r == dest.r && value.n == dest.n"
      argus.region.end id 3
      scf.yield %r#1 : index
    }
  }
  return
}
