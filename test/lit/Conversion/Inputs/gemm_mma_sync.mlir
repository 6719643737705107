// Plain (not pipelined) GEMM on NVIDIA Hopper (sm_90a) with mma.sync
// m16n8k16: the structure of examples/gemm_mfma.mlir with NVIDIA's
// instruction. A: MxK f16 row-major, B: KxN f16 row-major, C: MxN f32.
// A 128-thread block (4 warps in a 2x2 grid) computes a 64x64 tile of C;
// the k-loop stages 64x32 / 32x64 slabs through swizzled shared memory with
// synchronous copies.

#FragA = #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [2, 2]>
#FragB = #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [2, 2]>
#FragC = #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>
#CopyA = #argus.layout<"((4,32),(8,2)):((512,1),(64,32))">
#CopyB = #argus.layout<"((8,16),(8,2)):((256,1),(32,16))">
#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!SA = !argus.tile<64x32xf16, shared, "Sw<2,3,2> o (64,32):(32,1)">
!SB = !argus.tile<32x64xf16, shared, "Sw<3,3,3> o (32,64):(64,1)">
!BufA = !argus.buffer<1 x !SA>
!BufB = !argus.buffer<1 x !SB>
!GA = !argus.tile<64x32xf16, global>
!GB = !argus.tile<32x64xf16, global>
!RA = !argus.tile<64x32xf16, register, #FragA>
!RB = !argus.tile<32x64xf16, register, #FragB>
!RC = !argus.tile<64x64xf32, register, #FragC>

func.func @gemm_mma_sync(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                         %C: memref<?x?xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %ktiles = arith.divui %K, %c32 : index

  %sa = argus.alloc "sA" : !BufA
  %sb = argus.alloc "sB" : !BufB
  %sa0 = argus.stage %sa[%c0] : !BufA
  %sb0 = argus.stage %sb[%c0] : !BufB

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
    argus.copy %gat, %sa0 threads #CopyA : !GA, !SA
    argus.copy %gbt, %sb0 threads #CopyB : !GB, !SB
    argus.barrier
    argus.region.end id 2

    argus.region.begin "mma" id 3
    %af = argus.load %sa0 : !SA -> !RA
    %bf = argus.load %sb0 : !SB -> !RB
    %acc_n = argus.mma "mma.m16n8k16.f32.f16" %af, %bf, %acc_i : !RA, !RB, !RC
    argus.tag_assert %acc_n, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !RC
    argus.region.end id 3
    argus.barrier
    scf.yield %acc_n : !RC
  }
  argus.region.end id 1

  argus.region.begin "epilogue" id 4
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf32> -> !argus.tile<64x64xf32, global>
  %gct = argus.tag %gc [%m0, %n0] ["m", "n"] = #Coord : !argus.tile<64x64xf32, global>
  argus.store %acc, %gct : !RC, !argus.tile<64x64xf32, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  argus.region.end id 4
  return
}
