// Bug corpus: two_blocks_same_tile (edit of examples/gemm_wgmma.mlir).
// block rows by and by+1 both compute the tile at row (by / 2) * 64: those tiles are written twice and half of C is never written; tags, views and bounds all agree.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"
// CHECK-NOT: tag assertion

// GEMM on NVIDIA Hopper (sm_90a) with warpgroup MMA: wgmma.m64n128k16,
// A from registers, B from a 128-byte-swizzled shared-memory tile.
//
// A: MxK f16 row-major, B: KxN f16 row-major, C: MxN f32. One warpgroup
// (128 threads) computes a 64x128 tile of C; k-slabs are 32 deep (two
// wgmma k-steps).

#FragA = #argus.frag<"wgmma.m64n128k16.f32.f16", a, warps = [1, 1]>
#FragC = #argus.frag<"wgmma.m64n128k16.f32.f16", c, warps = [1, 1]>
#CopyA = #argus.layout<"((4,32),(8,2)):((512,1),(64,32))">
#CopyB = #argus.layout<"((16,8),(8,4)):((256,1),(32,8))">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!GA = !argus.tile<64x32xf16, global>
!GB = !argus.tile<32x128xf16, global>
!SA = !argus.tile<64x32xf16, shared, "Sw<2,3,2> o (64,32):(32,1)">
!SB = !argus.tile<32x128xf16, shared, "Sw<3,3,3> o (32,(64,2)):(64,(1,2048))">
!RA = !argus.tile<64x32xf16, register, #FragA>
!RC = !argus.tile<64x128xf32, register, #FragC>

func.func @gemm_wgmma(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                      %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %c2_rows = arith.constant 2 : index
  %by_half = arith.divui %by, %c2_rows : index
  %m0 = arith.muli %by_half, %c64 : index
  %n0 = arith.muli %bx, %c128 : index
  // Shape preconditions (assumed by the verifier, checked at launch): A is
  // M x K, B is K x N, C is M x N; the grid covers M and N exactly with
  // 64 x 128 tiles and K is a multiple of 32.
  %sz_tm = arith.constant 64 : index
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
  argus.assume %sz_a, "A is M x K with M = 64 * grid_dim.y"
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
  %ktiles = arith.divui %K, %c32 : index

  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %sa0 = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %sb0 = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>

  %zero = argus.fill 0.000000e+00 : !RC
  %acc0 = argus.tag %zero [%m0, %n0] ["m", "n"] = #Coord : !RC

  argus.region.begin "mainloop" id 1
  %acc = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc_i = %acc0) -> (!RC) {
    %k0 = arith.muli %kt, %c32 : index
    argus.region.begin "load_tiles" id 2
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf16> -> !GA
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !GA
    %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !GB
    %gbt = argus.tag %gb [%k0, %n0] ["k", "n"] = #Coord : !GB
    argus.copy_async %gat, %sa0 threads #CopyA : !GA, !SA
    argus.copy_async %gbt, %sb0 threads #CopyB : !GB, !SB
    argus.commit_group
    argus.wait_group 0
    argus.barrier
    argus.region.end id 2

    argus.region.begin "wgmma" id 3
    %af = argus.load %sa0 : !SA -> !RA
    %acc_n = argus.mma "wgmma.m64n128k16.f32.f16" %af, %sb0, %acc_i : !RA, !SB, !RC
    argus.tag_assert %acc_n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    argus.region.end id 3
    argus.barrier
    scf.yield %acc_n : !RC
  }
  argus.region.end id 1

  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<64x128xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<64x128xf32, global>
  // CHECK-DAG: error: output-once violated at 'argus.store' ({{.*}}:[[@LINE+3]]:
  // CHECK-DAG: note: C[{{[0-9]+}}, {{[0-9]+}}] is written twice: by 'argus.store' {{.*}} in block (0, 0) and by 'argus.store' {{.*}} in block (0, 1)
  // CHECK-DAG: error: output-coverage violated at 'argus.store' ({{.*}}:[[@LINE+1]]:
  argus.store %acc, %gct : !RC, !argus.tile<64x128xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}
