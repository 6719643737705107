// MoE grouped GEMM (the expert FFN up-projection) on AMD MI300X (gfx942),
// bf16 inputs with v_mfma_f32_32x32x8_bf16.
//
//   Y[t, :] = X[t, :] * W[e(t)]        X: [T, 4096] bf16, W: [E * 4096, N] bf16
//
// Tokens are sorted by expert and padded so that every 64-row block belongs
// to one expert: sorted_ids[P] lists token ids, block_expert[P / 64] the
// expert of each block. Block (bx, by) gathers the 64 tokens of block by,
// multiplies them by 32x64 slabs of W[e] and scatters a 64x64 tile of Y.
//
// Tags: a gathered X element carries its position r in the sorted order, its
// k and the expert e its block is routed to; a W element carries the expert
// e and k it belongs to (derived from its row: row = e * 4096 + k) and its
// column n. The MFMA must pair X and W elements of the same k and expert.

#FragA = #argus.frag<"v_mfma_f32_32x32x8_bf16", a, warps = [2, 2]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_bf16", b, warps = [2, 2]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_bf16", c, warps = [2, 2]>
#CopyX = #argus.layout<"((4,64),8):((512,1),64)">
#CopyW = #argus.layout<"((8,32),8):((256,1),32)">
!Ids = !argus.tile<64xi32, register, "(256,64):(0,1)">
!GX = !argus.tile<64x32xbf16, global>
!GW = !argus.tile<32x64xbf16, global>
!SX = !argus.tile<64x32xbf16, shared, "Sw<2,3,2> o (64,32):(32,1)">
!SW = !argus.tile<32x64xbf16, shared, "Sw<3,3,3> o (32,64):(64,1)">
!RA = !argus.tile<64x32xbf16, register, #FragA>
!RB = !argus.tile<32x64xbf16, register, #FragB>
!RC = !argus.tile<64x64xf32, register, #FragC>

func.func @moe_grouped_gemm(%X: memref<?x4096xbf16>, %W: memref<?x?xbf16>,
                            %Y: memref<?x?xf32>, %sorted_ids: memref<?xi32>,
                            %block_expert: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %r0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  // Shape preconditions (assumed by the verifier, checked at launch): the
  // grid covers the sorted token ids (64 per block row) and the N columns of
  // W and Y (64 per block column); W holds 4096 rows per expert.
  %sz_gx = gpu.grid_dim x
  %sz_gy = gpu.grid_dim y
  %sz_R = arith.muli %sz_gy, %c64 : index
  %sz_N = arith.muli %sz_gx, %c64 : index
  %sz_ids = memref.dim %sorted_ids, %c0 : memref<?xi32>
  %sz_w0 = memref.dim %W, %c0 : memref<?x?xbf16>
  %sz_w1 = memref.dim %W, %c1 : memref<?x?xbf16>
  %sz_y1 = memref.dim %Y, %c1 : memref<?x?xf32>
  %sz_rok = arith.cmpi eq, %sz_ids, %sz_R : index
  argus.assume %sz_rok, "sorted_ids has 64 * grid_dim.y entries"
  %sz_wn = arith.cmpi eq, %sz_w1, %sz_N : index
  %sz_yn = arith.cmpi eq, %sz_y1, %sz_N : index
  %sz_n = arith.andi %sz_wn, %sz_yn : i1
  argus.assume %sz_n, "W and Y have N = 64 * grid_dim.x columns"
  // The routing's data (checked by the launcher before each launch): every
  // sorted position names a distinct token row of X and Y (top-1 routing
  // with no padding: a padding position naming a token would write its row
  // of Y twice).
  %sz_x0 = memref.dim %X, %c0 : memref<?x4096xbf16>
  %sz_y0 = memref.dim %Y, %c0 : memref<?x?xf32>
  %sz_yx = arith.cmpi eq, %sz_y0, %sz_x0 : index
  argus.assume %sz_yx, "Y has a row per token of X"
  argus.assume_indices %sorted_ids below %sz_x0 distinct, "sorted_ids are distinct token rows" : memref<?xi32>

  // Routing: the expert of this block and the tokens it gathers.
  argus.region.begin "route" id 1
  %e_i32 = memref.load %block_expert[%by] : memref<?xi32>
  %e = arith.index_cast %e_i32 : i32 to index
  // Precondition: W holds at most 1024 experts (the verifier's index range
  // covers their rows; the compiled kernel traps on a larger id).
  %c1024 = arith.constant 1024 : index
  %e_ok = arith.cmpi ult, %e, %c1024 : index
  argus.assume %e_ok, "expert ids are below 1024"
  %sz_e1 = arith.addi %e, %c1 : index
  %sz_we = arith.muli %sz_e1, %c4096 : index
  %sz_wok = arith.cmpi ule, %sz_we, %sz_w0 : index
  argus.assume %sz_wok, "the expert's 4096 rows are inside W"
  %wbase = arith.muli %e, %c4096 : index
  %gids = argus.view "sorted_ids" %sorted_ids[%r0] : memref<?xi32> -> !argus.tile<64xi32, global>
  %ids = argus.load %gids : !argus.tile<64xi32, global> -> !Ids
  argus.region.end id 1

  %sx = argus.alloc "sX" : !argus.buffer<1 x !SX>
  %sw = argus.alloc "sW" : !argus.buffer<1 x !SW>
  %sx0 = argus.stage %sx[%c0] : !argus.buffer<1 x !SX>
  %sw0 = argus.stage %sw[%c0] : !argus.buffer<1 x !SW>

  %zero = argus.fill 0.000000e+00 : !RC
  %acc0 = argus.tag %zero [%r0, %n0] ["r", "n"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)> : !RC

  argus.region.begin "mainloop" id 2
  %acc = scf.for %kt = %c0 to %c128 step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %k0 = arith.muli %kt, %c32 : index
    %gx = argus.gather_view "X" %X[%ids, %k0] : memref<?x4096xbf16>, !Ids -> !GX
    %gxt = argus.tag %gx [%r0, %k0, %e] ["r", "k", "e"] = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)> : !GX
    %wrow = arith.addi %wbase, %k0 : index
    %gw = argus.view "W" %W[%wrow, %n0] : memref<?x?xbf16> -> !GW
    %gwt = argus.tag %gw [%wrow, %n0] ["e", "k", "n"] = affine_map<(d0, d1)[s0, s1] -> ((d0 + s0) floordiv 4096, (d0 + s0) mod 4096, d1 + s1)> : !GW
    argus.copy %gxt, %sx0 threads #CopyX : !GX, !SX
    argus.copy %gwt, %sw0 threads #CopyW : !GW, !SW
    argus.barrier
    %af = argus.load %sx0 : !SX -> !RA
    %bf = argus.load %sw0 : !SW -> !RB
    %acc_n = argus.mma "v_mfma_f32_32x32x8_bf16" %af, %bf, %acc_i : !RA, !RB, !RC
    argus.tag_assert %acc_n, "a.k == b.k && a.e == b.e && a.r == acc.r && b.n == acc.n" : !RC
    argus.barrier
    scf.yield %acc_n : !RC
  }
  argus.region.end id 2

  // Scatter the rows back to their tokens.
  argus.region.begin "scatter" id 3
  %gy = argus.gather_view "Y" %Y[%ids, %n0] : memref<?x?xf32>, !Ids -> !argus.tile<64x64xf32, global>
  %gyt = argus.tag %gy [%r0, %n0] ["r", "n"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)> : !argus.tile<64x64xf32, global>
  argus.store %acc, %gyt : !RC, !argus.tile<64x64xf32, global>
  argus.tag_assert "value.r == dest.r && value.n == dest.n"
  argus.region.end id 3
  return
}
