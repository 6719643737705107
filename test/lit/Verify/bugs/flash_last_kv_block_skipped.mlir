// Bug corpus: flash_last_kv_block_skipped (edit of examples/flash_attention_fwd.mlir).
// The key loop stops one 64-key block early (S / 64 - 1 blocks): the last
// keys never reach the softmax or P V. P is computed in registers and names
// no tensor, so the end of its key range is V's (the mma's B): until
// 2026-12-03 reduction-coverage skipped the end here and this was proved.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// JSON: "kind": "reduction-coverage"
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"

// Flash-attention forward (one head) on AMD MI300X (gfx942):
//   O = softmax(Q K^T / sqrt(D)) V,  Q, K, V, O: [S, D] f16 row-major, D = 64.
//
// A 256-thread block (4 waves stacked along the query rows) owns 128 query
// rows and streams over the keys 64 at a time, keeping the running row
// maximum m, the running row sum l and the unnormalised output O in
// registers (online softmax). Both products use v_mfma_f32_32x32x8_f16.
//
// Tags: queries and outputs carry their row m and head dimension d; keys and
// values carry their key index n and d. The assertions say that the scores
// pair the right query with the right key over the same d, that the row
// statistics meet the rows they belong to, and that P meets V over the same
// key.

#FragQ = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [4, 1]>
#FragKt = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [4, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [4, 1]>
#Copy64 = #argus.layout<"((8,32),(8,2)):((512,1),(64,32))">
#Copy128 = #argus.layout<"((8,32),(8,4)):((1024,1),(128,32))">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Row = affine_map<(d0)[s0] -> (d0 + s0)>
!GQ = !argus.tile<128x64xf16, global>
!GKV = !argus.tile<64x64xf16, global>
!SQ = !argus.tile<128x64xf16, shared, "(128,64):(64,1)">
!SKV = !argus.tile<64x64xf16, shared, "(64,64):(64,1)">
!SKt = !argus.tile<64x64xf16, shared, "(64,64):(1,64)">
!RQ = !argus.tile<128x64xf16, register, #FragQ>
!RKt = !argus.tile<64x64xf16, register, #FragKt>
!RS = !argus.tile<128x64xf32, register, #FragC>
!RP = !argus.tile<128x64xf16, register, #FragQ>
!RP32 = !argus.tile<128x64xf32, register, #FragQ>
!Rows = !argus.tile<128xf32, register, "((64,4),32):((0,32),1)">

func.func @flash_attention_fwd(%Q: memref<?x64xf16>, %K: memref<?x64xf16>,
                               %V: memref<?x64xf16>, %O: memref<?x64xf16>,
                               %S: index)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %q0 = arith.muli %bx, %c128 : index
  // Shape preconditions (assumed by the verifier, checked at launch): Q and
  // O have 128 * grid_dim.x rows, K and V have S rows, S a multiple of 64.
  %sz_gx = gpu.grid_dim x
  %sz_L = arith.muli %sz_gx, %c128 : index
  %sz_q = memref.dim %Q, %c0 : memref<?x64xf16>
  %sz_o = memref.dim %O, %c0 : memref<?x64xf16>
  %sz_k = memref.dim %K, %c0 : memref<?x64xf16>
  %sz_v = memref.dim %V, %c0 : memref<?x64xf16>
  %sz_qok = arith.cmpi eq, %sz_q, %sz_L : index
  %sz_ook = arith.cmpi eq, %sz_o, %sz_L : index
  %sz_qo = arith.andi %sz_qok, %sz_ook : i1
  argus.assume %sz_qo, "Q and O have 128 * grid_dim.x rows"
  %sz_kok = arith.cmpi eq, %sz_k, %S : index
  %sz_vok = arith.cmpi eq, %sz_v, %S : index
  %sz_kv = arith.andi %sz_kok, %sz_vok : i1
  argus.assume %sz_kv, "K and V have S rows"
  %sz_sr = arith.remui %S, %c64 : index
  %sz_s = arith.cmpi eq, %sz_sr, %c0 : index
  argus.assume %sz_s, "S is a multiple of 64"
  %nfull = arith.divui %S, %c64 : index
  %nblocks = arith.subi %nfull, %c1 : index

  %sq = argus.alloc "sQ" : !argus.buffer<1 x !SQ>
  %sk = argus.alloc "sK" : !argus.buffer<1 x !SKV>
  %sv = argus.alloc "sV" : !argus.buffer<1 x !SKV>
  %sq0 = argus.stage %sq[%c0] : !argus.buffer<1 x !SQ>
  %sk0 = argus.stage %sk[%c0] : !argus.buffer<1 x !SKV>
  %sv0 = argus.stage %sv[%c0] : !argus.buffer<1 x !SKV>

  // Q is loaded once.
  argus.region.begin "load_q" id 1
  %gq = argus.view "Q" %Q[%q0, %c0] : memref<?x64xf16> -> !GQ
  %gqt = argus.tag %gq [%q0, %c0] ["m", "d"] = #Coord : !GQ
  argus.copy %gqt, %sq0 threads #Copy128 : !GQ, !SQ
  argus.barrier
  %qf = argus.load %sq0 : !SQ -> !RQ
  argus.region.end id 1

  %ninf = argus.fill 0xFFF0000000000000 : !Rows
  %m_init = argus.tag %ninf [%q0] ["m"] = #Row : !Rows
  %zrow = argus.fill 0.000000e+00 : !Rows
  %l_init = argus.tag %zrow [%q0] ["m"] = #Row : !Rows
  %zo = argus.fill 0.000000e+00 : !RS
  %o_init = argus.tag %zo [%q0, %c0] ["m", "d"] = #Coord : !RS

  argus.region.begin "kv_loop" id 2
  %res:3 = scf.for %j = %c0 to %nblocks step %c1
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init) -> (!Rows, !Rows, !RS) {
    %n0 = arith.muli %j, %c64 : index
    argus.region.begin "load_kv" id 3
    %gk = argus.view "K" %K[%n0, %c0] : memref<?x64xf16> -> !GKV
    %gkt = argus.tag %gk [%n0, %c0] ["n", "d"] = #Coord : !GKV
    %gv = argus.view "V" %V[%n0, %c0] : memref<?x64xf16> -> !GKV
    %gvt = argus.tag %gv [%n0, %c0] ["n", "d"] = #Coord : !GKV
    argus.copy %gkt, %sk0 threads #Copy64 : !GKV, !SKV
    argus.copy %gvt, %sv0 threads #Copy64 : !GKV, !SKV
    argus.barrier
    argus.region.end id 3

    // S = Q K^T: K^T is the transposed view of the key tile.
    argus.region.begin "qk" id 4
    %skt = argus.transpose %sk0 : !SKV -> !SKt
    %ktf = argus.load %skt : !SKt -> !RKt
    %zs = argus.fill 0.000000e+00 : !RS
    %s0 = argus.tag %zs [%q0, %n0] ["m", "n"] = #Coord : !RS
    %s = argus.mma "v_mfma_f32_32x32x8_f16" %qf, %ktf, %s0 : !RQ, !RKt, !RS
    argus.tag_assert %s, "a.d == b.d && a.m == acc.m && b.n == acc.n" : !RS
    %ss = argus.scale %s by 1.250000e-01 : !RS
    argus.region.end id 4

    // Online softmax.
    argus.region.begin "softmax" id 5
    %mt = argus.reduce max %ss dim 1 : !RS -> !Rows
    %m_new = argus.max %m_i, %mt : !Rows
    argus.tag_assert %m_new, "lhs.m == rhs.m" : !Rows
    %mb = argus.broadcast %m_new dim 1 : !Rows -> !RS
    %d = argus.sub %ss, %mb : !RS
    argus.tag_assert %d, "lhs.m == rhs.m" : !RS
    %p = argus.exp %d : !RS
    %dm = argus.sub %m_i, %m_new : !Rows
    %alpha = argus.exp %dm : !Rows
    %ps = argus.reduce sum %p dim 1 : !RS -> !Rows
    %la = argus.mul %l_i, %alpha : !Rows
    %l_new = argus.add %la, %ps : !Rows
    argus.tag_assert %l_new, "lhs.m == rhs.m" : !Rows
    argus.region.end id 5

    // O = O * alpha + P V.
    argus.region.begin "pv" id 6
    %ab = argus.broadcast %alpha dim 1 : !Rows -> !RS
    %os = argus.mul %o_i, %ab : !RS
    argus.tag_assert %os, "lhs.m == rhs.m" : !RS
    %pa = argus.convert_layout %p : !RS -> !RP32
    %p16 = argus.convert %pa : !RP32 -> !RP
    %vf = argus.load %sv0 : !SKV -> !RKt
    // CHECK-DAG: error: reduction-coverage violated at 'argus.mma' ({{.*}}:[[@LINE+2]]:
    // CHECK-DAG: note: the last iteration ({{.*}}) accumulates n = {{[0-9]+}} (A({{[0-9]+}}, 63)) into row {{[0-9]+}} of the accumulator, but n is coordinate 0 of 'V', whose extent there is {{[0-9]+}}: the indices {{[0-9]+}} .. {{[0-9]+}} are never accumulated
    %o_new = argus.mma "v_mfma_f32_32x32x8_f16" %p16, %vf, %os : !RP, !RKt, !RS
    argus.tag_assert %o_new, "a.n == b.n && a.m == acc.m && b.d == acc.d" : !RS
    argus.region.end id 6
    // The next iteration overwrites sK and sV.
    argus.barrier
    scf.yield %m_new, %l_new, %o_new : !Rows, !Rows, !RS
  }
  argus.region.end id 2

  argus.region.begin "epilogue" id 7
  %lb = argus.broadcast %res#1 dim 1 : !Rows -> !RS
  %on = argus.div %res#2, %lb : !RS
  argus.tag_assert %on, "lhs.m == rhs.m" : !RS
  %o16 = argus.convert %on : !RS -> !argus.tile<128x64xf16, register, #FragC>
  %go = argus.view "O" %O[%q0, %c0] : memref<?x64xf16> -> !GQ
  %got = argus.tag %go [%q0, %c0] ["m", "d"] = #Coord : !GQ
  argus.store %o16, %got : !argus.tile<128x64xf16, register, #FragC>, !GQ
  argus.tag_assert "value.m == dest.m && value.d == dest.d"
  argus.region.end id 7
  return
}
