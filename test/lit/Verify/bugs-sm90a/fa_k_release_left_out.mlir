// Bug corpus (sm_90a): fa_k_release_left_out (edit of examples/sm90a/flash_attention_ws.mlir).
// the consumers' release of each K stage inside the key loop is left out (only the prologue's release of slot 0 remains): from the fourth key tile on, the producer waits for a release that never comes (deadlock). Proved before the waits were matched against arrivals; found by test/fuzz/mutate_sm90a.py and the concrete model.
// RUN: not argus-opt %s --argus-verify-tags="timeout-ms=5000 report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: mbarrier-arrivals violated
// CHECK: note: {{.*}}waits for completion {{[0-9]+}} of stage {{[0-9]+}} of 'kempty', but in this launch only {{[0-9]+}} arrival instance(s) name slots of that stage: the phase never completes (deadlock)
// JSON: "kind": "mbarrier-arrivals"
// JSON: "replay": "confirmed"
// Flash-attention forward for NVIDIA Hopper (sm_90a), FlashAttention-3
// structure: one producer warpgroup loads Q once and streams K and V tiles
// through a 2-stage TMA ring completing on mbarriers; two consumer
// warpgroups (64 query rows each) compute S = Q K^T with asynchronous
// wgmma (both operands from shared memory, K^T read K-major), the online
// softmax in registers (row max / row sum within each thread and across
// the quad with shuffles, exp2 with log2(e) / sqrt(D) folded into one
// scale), P converted to bf16 in registers as wgmma's A operand for P V,
// and write O normalised plus the log-sum-exp of each row.
//
//   O = softmax(Q K^T / sqrt(D)) V,  LSE = log(sum(exp(Q K^T / sqrt(D))))
//
// Q, K, V, O: [B * H * S, D] bf16 row-major (the [B, H, S, D] tensors of a
// framework, heads stacked along the rows), D = 128; LSE: [B * H * S] f32.
// Block (x, y) computes query tile x (128 rows) of head y: rows
// y * S + 128 x ... of Q and O; keys and values y * S ... y * S + S - 1.
// S is a multiple of 128.
//
// Tags: query, output and statistics rows carry their global row m, keys
// and values their global row n, and Q, K, V, O their head dimension d. The
// score accumulator of key tile j is declared as the pairs (m, n) of rows
// y * S + 128 x + i and y * S + 128 j + k, so a key tile of another head or
// tile fails the assertion on S.
//
// The pipeline protocol: key tile j uses stage s = j % 2 of the K and V
// rings. The producer waits until the consumers released the stage (phase
// j / 2 - 1 of kempty[s] / vempty[s], parity (j / 2 + 1) % 2), announces
// 32 KiB on kfull[s] / vfull[s] and issues the copies. The consumers wait
// for phase j / 2 of kfull[s] (parity (j / 2) % 2), compute S and retire
// it, release the K stage, and later do the same with V for P V.

#FragS = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [2, 1]>
#FragP = #argus.frag<"wgmma.m64n128k16.f32.bf16", a, warps = [2, 1]>
#FragO = #argus.frag<"wgmma.m64n128k16.f32.bf16", c, warps = [2, 1]>
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
#Row = affine_map<(d0)[s0] -> (d0 + s0)>
!G = !argus.tile<128x128xbf16, global>
!SQK = !argus.tile<128x128xbf16, shared, "Sw<3,3,3> o (128,(64,2)):(64,(1,8192))">
!SKt = !argus.tile<128x128xbf16, shared, "Sw<3,3,3> o ((64,2),128):((1,8192),64)">
!RS = !argus.tile<128x128xf32, register, #FragS>
!RP32 = !argus.tile<128x128xf32, register, #FragP>
!RP = !argus.tile<128x128xbf16, register, #FragP>
!RO = !argus.tile<128x128xf32, register, #FragO>
!RO16 = !argus.tile<128x128xbf16, register, #FragO>
!Rows = !argus.tile<128xf32, register, "((4,8,4,2),2):((0,1,16,64),8)">
!GRows = !argus.tile<128xf32, global>
!TM = !argus.tensor_map<128x64xbf16, swizzle = 128>
!One = !argus.mbarrier<1>
!Ring = !argus.mbarrier<2>

func.func @flash_attention_ws(%Q: memref<?x?xbf16>, %K: memref<?x?xbf16>,
                              %V: memref<?x?xbf16>, %O: memref<?x?xbf16>,
                              %LSE: memref<?xf32>, %S: index)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  // Shape preconditions (assumed by the verifier, checked at launch).
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %sz_sr = arith.remui %S, %c128 : index
  %sz_s = arith.cmpi eq, %sz_sr, %c0 : index
  argus.assume %sz_s, "S is a multiple of 128"
  %sz_tiles = arith.muli %gx, %c128 : index
  %sz_gx = arith.cmpi eq, %sz_tiles, %S : index
  argus.assume %sz_gx, "grid_dim.x * 128 == S (one block per query tile)"
  %c_cap = arith.constant 4194304 : index
  %sz_rows_cap = arith.divui %c_cap, %S : index
  %sz_cap = arith.cmpi ult, %gy, %sz_rows_cap : index
  argus.assume %sz_cap, "grid_dim.y * S < 2^22 rows"
  %rows = arith.muli %gy, %S : index
  %c128i = arith.constant 128 : index
  %sz_q0 = memref.dim %Q, %c0 : memref<?x?xbf16>
  %sz_q1 = memref.dim %Q, %c1 : memref<?x?xbf16>
  %sz_k0 = memref.dim %K, %c0 : memref<?x?xbf16>
  %sz_k1 = memref.dim %K, %c1 : memref<?x?xbf16>
  %sz_v0 = memref.dim %V, %c0 : memref<?x?xbf16>
  %sz_v1 = memref.dim %V, %c1 : memref<?x?xbf16>
  %sz_o0 = memref.dim %O, %c0 : memref<?x?xbf16>
  %sz_o1 = memref.dim %O, %c1 : memref<?x?xbf16>
  %sz_l0 = memref.dim %LSE, %c0 : memref<?xf32>
  %sz_qr = arith.cmpi eq, %sz_q0, %rows : index
  %sz_qc = arith.cmpi eq, %sz_q1, %c128i : index
  %sz_q = arith.andi %sz_qr, %sz_qc : i1
  argus.assume %sz_q, "Q is (grid_dim.y * S) x 128"
  %sz_kr = arith.cmpi eq, %sz_k0, %rows : index
  %sz_kc = arith.cmpi eq, %sz_k1, %c128i : index
  %sz_k = arith.andi %sz_kr, %sz_kc : i1
  argus.assume %sz_k, "K is (grid_dim.y * S) x 128"
  %sz_vr = arith.cmpi eq, %sz_v0, %rows : index
  %sz_vc = arith.cmpi eq, %sz_v1, %c128i : index
  %sz_v = arith.andi %sz_vr, %sz_vc : i1
  argus.assume %sz_v, "V is (grid_dim.y * S) x 128"
  %sz_or = arith.cmpi eq, %sz_o0, %rows : index
  %sz_oc = arith.cmpi eq, %sz_o1, %c128i : index
  %sz_o = arith.andi %sz_or, %sz_oc : i1
  argus.assume %sz_o, "O is (grid_dim.y * S) x 128"
  %sz_l = arith.cmpi eq, %sz_l0, %rows : index
  argus.assume %sz_l, "LSE has grid_dim.y * S rows"

  %bx = gpu.block_id x
  %by = gpu.block_id y
  %head0 = arith.muli %by, %S : index
  %qoff = arith.muli %bx, %c128 : index
  %q0 = arith.addi %head0, %qoff : index
  %ntiles = arith.divui %S, %c128 : index

  %tmQ = argus.tensor_map "Q" %Q : memref<?x?xbf16> -> !TM
  %tmK = argus.tensor_map "K" %K : memref<?x?xbf16> -> !TM
  %tmV = argus.tensor_map "V" %V : memref<?x?xbf16> -> !TM
  %sq = argus.alloc "sQ" : !argus.buffer<1 x !SQK>
  %sk = argus.alloc "sK" : !argus.buffer<2 x !SQK>
  %sv = argus.alloc "sV" : !argus.buffer<2 x !SQK>
  %qfull = argus.mbarrier.alloc "qfull" arrivals 1 : !One
  %kfull = argus.mbarrier.alloc "kfull" arrivals 1 : !Ring
  %vfull = argus.mbarrier.alloc "vfull" arrivals 1 : !Ring
  %kempty = argus.mbarrier.alloc "kempty" arrivals 256 : !Ring
  %vempty = argus.mbarrier.alloc "vempty" arrivals 256 : !Ring

  argus.role "producer" warps 0 to 4 regs 40 {
    argus.region.begin "produce" id 1
    argus.mbarrier.arrive_expect_tx %qfull[%c0], 32768 : !One
    %gq = argus.view "Q" %Q[%q0, %c0] : memref<?x?xbf16> -> !G
    %gqt = argus.tag %gq [%q0, %c0] ["m", "d"] = #Coord : !G
    %sq0 = argus.stage %sq[%c0] : !argus.buffer<1 x !SQK>
    argus.tma_load %gqt, %sq0, %tmQ, %qfull[%c0] : !G, !SQK, !TM, !One
    scf.for %j = %c0 to %ntiles step %c1 {
      %s = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %free = arith.subi %c1, %phase : index
      %kvoff = arith.muli %j, %c128 : index
      %n0 = arith.addi %head0, %kvoff : index
      argus.mbarrier.wait %kempty[%s], %free : !Ring
      argus.mbarrier.arrive_expect_tx %kfull[%s], 32768 : !Ring
      %gk = argus.view "K" %K[%n0, %c0] : memref<?x?xbf16> -> !G
      %gkt = argus.tag %gk [%n0, %c0] ["n", "d"] = #Coord : !G
      %sks = argus.stage %sk[%s] : !argus.buffer<2 x !SQK>
      argus.tma_load %gkt, %sks, %tmK, %kfull[%s] : !G, !SQK, !TM, !Ring
      argus.mbarrier.wait %vempty[%s], %free : !Ring
      argus.mbarrier.arrive_expect_tx %vfull[%s], 32768 : !Ring
      %gv = argus.view "V" %V[%n0, %c0] : memref<?x?xbf16> -> !G
      %gvt = argus.tag %gv [%n0, %c0] ["n", "d"] = #Coord : !G
      %svs = argus.stage %sv[%s] : !argus.buffer<2 x !SQK>
      argus.tma_load %gvt, %svs, %tmV, %vfull[%s] : !G, !SQK, !TM, !Ring
    }
    argus.region.end id 1
  }

  argus.role "consumer" warps 4 to 12 regs 232 {
    argus.region.begin "consume" id 2
    argus.mbarrier.wait %qfull[%c0], %c0 : !One
    %sq0 = argus.stage %sq[%c0] : !argus.buffer<1 x !SQK>
    %ninf = argus.fill 0xFFF0000000000000 : !Rows
    %m_init = argus.tag %ninf [%q0] ["m"] = #Row : !Rows
    %zrow = argus.fill 0.000000e+00 : !Rows
    %l_init = argus.tag %zrow [%q0] ["m"] = #Row : !Rows
    %zo = argus.fill 0.000000e+00 : !RO
    // n: the keys P V accumulates start at this head's first row of K.
    %o_init = argus.tag %zo [%q0, %c0, %head0] ["m", "d", "n"] = affine_map<(d0, d1)[s0, s1, s2] -> (d0 + s0, d1 + s1, s2)> : !RO

    // Key tile 0: S_0 and its softmax (O is still zero: no rescale).
    argus.mbarrier.wait %kfull[%c0], %c0 : !Ring
    %sk0 = argus.stage %sk[%c0] : !argus.buffer<2 x !SQK>
    %sk0t = argus.transpose %sk0 : !SQK -> !SKt
    %zs0 = argus.fill 0.000000e+00 : !RS
    %s0_init = argus.tag %zs0 [%q0, %head0] ["m", "n"] = #Coord : !RS
    %s0_acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %sq0, %sk0t, %s0_init : !SQK, !SKt, !RS
    argus.tag_assert %s0_acc, "a.d == b.d && a.m == acc.m && b.n == acc.n" : !RS
    argus.wgmma_commit
    %s0 = argus.wgmma_wait 0, %s0_acc : !RS
    argus.mbarrier.arrive %kempty[%c0] : !Ring
    // 1 / sqrt(128) * log2(e)
    %s0s = argus.scale %s0 by 0.12751743074 : !RS
    %m0 = argus.reduce max %s0s dim 1 : !RS -> !Rows
    %m0b = argus.broadcast %m0 dim 1 : !Rows -> !RS
    %d0 = argus.sub %s0s, %m0b : !RS
    argus.tag_assert %d0, "lhs.m == rhs.m" : !RS
    %p0 = argus.exp2 %d0 : !RS
    %l0 = argus.reduce sum %p0 dim 1 : !RS -> !Rows
    %p0a = argus.convert_layout %p0 : !RS -> !RP32
    %p0h = argus.convert %p0a : !RP32 -> !RP

    // Key tile j: S_j = Q K_j^T is issued, then P_{j-1} V_{j-1}; the
    // softmax of S_j runs while P V is in flight (wait depth 1), and O is
    // rescaled once P V retired.
    %res:4 = scf.for %j = %c1 to %ntiles step %c1
        iter_args(%m_i = %m0, %l_i = %l0, %o_i = %o_init, %p_i = %p0h) -> (!Rows, !Rows, !RO, !RP) {
      %s = arith.remui %j, %c2 : index
      %round = arith.divui %j, %c2 : index
      %phase = arith.remui %round, %c2 : index
      %jp = arith.subi %j, %c1 : index
      %sp = arith.remui %jp, %c2 : index
      %roundp = arith.divui %jp, %c2 : index
      %phasep = arith.remui %roundp, %c2 : index
      %kvoff = arith.muli %j, %c128 : index
      %n0 = arith.addi %head0, %kvoff : index

      argus.mbarrier.wait %kfull[%s], %phase : !Ring
      %sks = argus.stage %sk[%s] : !argus.buffer<2 x !SQK>
      %skt = argus.transpose %sks : !SQK -> !SKt
      %zs = argus.fill 0.000000e+00 : !RS
      %s_init = argus.tag %zs [%q0, %n0] ["m", "n"] = #Coord : !RS
      %s_acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %sq0, %skt, %s_init : !SQK, !SKt, !RS
      argus.tag_assert %s_acc, "a.d == b.d && a.m == acc.m && b.n == acc.n" : !RS
      argus.wgmma_commit

      argus.mbarrier.wait %vfull[%sp], %phasep : !Ring
      %svp = argus.stage %sv[%sp] : !argus.buffer<2 x !SQK>
      %o_acc = argus.mma_async "wgmma.m64n128k16.f32.bf16" %p_i, %svp, %o_i : !RP, !SQK, !RO
      argus.tag_assert %o_acc, "a.n == b.n && a.m == acc.m && b.d == acc.d" : !RO
      argus.wgmma_commit

      %sc = argus.wgmma_wait 1, %s_acc : !RS
      // (the release of K stage s is left out here)
      %s2 = argus.scale %sc by 0.12751743074 : !RS
      %mt = argus.reduce max %s2 dim 1 : !RS -> !Rows
      %m_new = argus.max %m_i, %mt : !Rows
      argus.tag_assert %m_new, "lhs.m == rhs.m" : !Rows
      %mb = argus.broadcast %m_new dim 1 : !Rows -> !RS
      %d = argus.sub %s2, %mb : !RS
      argus.tag_assert %d, "lhs.m == rhs.m" : !RS
      %p = argus.exp2 %d : !RS
      %dm = argus.sub %m_i, %m_new : !Rows
      %alpha = argus.exp2 %dm : !Rows
      %ps = argus.reduce sum %p dim 1 : !RS -> !Rows
      %la = argus.mul %l_i, %alpha : !Rows
      %l_new = argus.add %la, %ps : !Rows
      argus.tag_assert %l_new, "lhs.m == rhs.m" : !Rows
      %pa = argus.convert_layout %p : !RS -> !RP32
      %ph = argus.convert %pa : !RP32 -> !RP

      %o_done = argus.wgmma_wait 0, %o_acc : !RO
      argus.mbarrier.arrive %vempty[%sp] : !Ring
      %ab = argus.broadcast %alpha dim 1 : !Rows -> !RO
      %os = argus.mul %o_done, %ab : !RO
      argus.tag_assert %os, "lhs.m == rhs.m" : !RO
      scf.yield %m_new, %l_new, %os, %ph : !Rows, !Rows, !RO, !RP
    }

    // The last key tile's P V.
    %jl = arith.subi %ntiles, %c1 : index
    %sl = arith.remui %jl, %c2 : index
    %roundl = arith.divui %jl, %c2 : index
    %phasel = arith.remui %roundl, %c2 : index
    argus.mbarrier.wait %vfull[%sl], %phasel : !Ring
    %svl = argus.stage %sv[%sl] : !argus.buffer<2 x !SQK>
    %o_accl = argus.mma_async "wgmma.m64n128k16.f32.bf16" %res#3, %svl, %res#2 : !RP, !SQK, !RO
    argus.tag_assert %o_accl, "a.n == b.n && a.m == acc.m && b.d == acc.d" : !RO
    argus.wgmma_commit
    %o_fin = argus.wgmma_wait 0, %o_accl : !RO
    argus.mbarrier.arrive %vempty[%sl] : !Ring

    // O / l, and LSE = (m + log2 l) * ln 2 (the scores were in log2 units).
    %lb = argus.broadcast %res#1 dim 1 : !Rows -> !RO
    %on = argus.div %o_fin, %lb : !RO
    argus.tag_assert %on, "lhs.m == rhs.m" : !RO
    %o16 = argus.convert %on : !RO -> !RO16
    // The keys P V accumulated: this head's, [head0, head0 + S).
    %hend = arith.addi %head0, %S : index
    argus.reduced %o16 over "n" from %head0 to %hend : !RO16
    %go = argus.view "O" %O[%q0, %c0] : memref<?x?xbf16> -> !G
    %got = argus.tag %go [%q0, %c0] ["m", "d"] = #Coord : !G
    argus.store %o16, %got : !RO16, !G
    argus.tag_assert "value.m == dest.m && value.d == dest.d"
    %ll = argus.log2 %res#1 : !Rows
    %lse2 = argus.add %res#0, %ll : !Rows
    argus.tag_assert %lse2, "lhs.m == rhs.m" : !Rows
    // ln 2
    %lse = argus.scale %lse2 by 0.69314718056 : !Rows
    %gl = argus.view "LSE" %LSE[%q0] : memref<?xf32> -> !GRows
    %glt = argus.tag %gl [%q0] ["m"] = #Row : !GRows
    argus.store %lse, %glt : !Rows, !GRows
    argus.tag_assert "value.m == dest.m"
    argus.region.end id 2
  }
  return
}
