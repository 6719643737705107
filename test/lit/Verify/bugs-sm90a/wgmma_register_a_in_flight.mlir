// Bug corpus (sm_90a): wgmma_register_a_in_flight (examples/python/gemm_tf32_kn.py
// with in_flight=True, its IR as the DSL prints it).
// The tf32 K x N GEMM reads B^T's fragment into registers (the wgmma's A)
// and keeps one slab's wgmma in flight (wgmma_wait 1): the next slab's
// fragment load may take the registers the running wgmma still reads (on
// the H200 the results were wrong, errors up to 1.3). Every tag and the
// pipeline protocol are right; only the register operand's lifetime is not.
// RUN: not argus-opt %s --argus-verify-tags="timeout-ms=5000 report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: wgmma-register-operand violated at 'argus.mma_async'
// CHECK: note: {{.*}}reads A from registers until its group retires, but no wgmma_wait after it in its block retires the group
// CHECK-NOT: error:
// JSON: "kind": "wgmma-register-operand"
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"

#map = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
module {
  func.func @gemm_tf32_kn(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>, %arg2: memref<?x?xf32>, %arg3: index, %arg4: index, %arg5: index) attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
    %0 = arith.cmpi eq, %dim, %arg3 : index
    argus.assume %0, "A.dim0 (M) == the parameter M"
    %c1 = arith.constant 1 : index
    %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %1 = arith.cmpi eq, %dim_0, %arg5 : index
    argus.assume %1, "A.dim1 (K) == the parameter K"
    %dim_1 = memref.dim %arg1, %c0 : memref<?x?xf32>
    %2 = arith.cmpi eq, %dim_1, %arg5 : index
    argus.assume %2, "B.dim0 (K) == the parameter K"
    %dim_2 = memref.dim %arg1, %c1 : memref<?x?xf32>
    %3 = arith.cmpi eq, %dim_2, %arg4 : index
    argus.assume %3, "B.dim1 (N) == the parameter N"
    %dim_3 = memref.dim %arg2, %c0 : memref<?x?xf32>
    %4 = arith.cmpi eq, %dim_3, %arg3 : index
    argus.assume %4, "C.dim0 (M) == the parameter M"
    %dim_4 = memref.dim %arg2, %c1 : memref<?x?xf32>
    %5 = arith.cmpi eq, %dim_4, %arg4 : index
    argus.assume %5, "C.dim1 (N) == the parameter N"
    %c4 = arith.constant 4 : index
    %6 = arith.remui %arg5, %c4 : index
    %7 = arith.cmpi eq, %6, %c0 : index
    argus.assume %7, "K is a multiple of 4 (16-byte rows of A for TMA)"
    %8 = arith.remui %arg4, %c4 : index
    %9 = arith.cmpi eq, %8, %c0 : index
    argus.assume %9, "N is a multiple of 4 (16-byte rows of B for TMA)"
    %10 = arith.cmpi uge, %arg5, %c4 : index
    argus.assume %10, "K >= 4"
    %c128 = arith.constant 128 : index
    %11 = arith.ceildivui %arg4, %c128 : index
    %c256 = arith.constant 256 : index
    %12 = arith.ceildivui %arg3, %c256 : index
    %13 = arith.muli %12, %11 : index
    %c32 = arith.constant 32 : index
    %14 = arith.ceildivui %arg5, %c32 : index
    %c4194304 = arith.constant 4194304 : index
    %15 = arith.divui %c4194304, %14 : index
    %16 = arith.cmpi ult, %13, %15 : index
    argus.assume %16, "ceil(M / 256) * ceil(N / 128) * ceil(K / 32) < 2^22"
    %block_id_x = gpu.block_id  x
    %grid_dim_x = gpu.grid_dim  x
    %17 = argus.tensor_map "A" %arg0 : memref<?x?xf32> -> <256x32xf32, swizzle = 128>
    %18 = argus.tensor_map "B" %arg1 : memref<?x?xf32> -> <32x32xf32, swizzle = 128>
    %19 = argus.alloc "sA" : <4 x <256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)">>
    %20 = argus.alloc "sB" : <4 x <32x128xf32, shared, "Sw<3,2,3> o (32,(32,4)):(32,(1,1024))">>
    %21 = argus.mbarrier.alloc "full" arrivals 1 : <4>
    %22 = argus.mbarrier.alloc "empty" arrivals 256 : <4>
    argus.role "producer" warps 0 to 4 regs 40 {
      %23 = scf.for %arg6 = %block_id_x to %13 step %grid_dim_x iter_args(%arg7 = %c0) -> (index) {
        %24 = arith.divui %arg6, %11 : index
        %25 = arith.muli %24, %c256 : index
        %26 = arith.remui %arg6, %11 : index
        %27 = arith.muli %26, %c128 : index
        %28 = scf.for %arg8 = %c0 to %14 step %c1 iter_args(%arg9 = %arg7) -> (index) {
          %29 = arith.muli %arg8, %c32 : index
          %30 = arith.remui %arg9, %c4 : index
          %31 = arith.divui %arg9, %c4 : index
          %c2 = arith.constant 2 : index
          %32 = arith.remui %31, %c2 : index
          %33 = arith.subi %c1, %32 : index
          argus.mbarrier.wait %22[%30], %33 : <4>
          argus.mbarrier.arrive_expect_tx %21[%30], 49152 : <4>
          %34 = argus.view "A" %arg0[%25, %29] clipped : memref<?x?xf32> -> <256x32xf32, global>
          %35 = argus.tag %34[%25, %29] ["m", "k"] = #map : <256x32xf32, global>
          %36 = argus.view "B" %arg1[%29, %27] clipped : memref<?x?xf32> -> <32x128xf32, global>
          %37 = argus.tag %36[%29, %27] ["k", "n"] = #map : <32x128xf32, global>
          %38 = argus.stage %19[%30] : <4 x <256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)">>
          argus.tma_load %35, %38, %17, %21[%30] : <256x32xf32, global>, <256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)">, <256x32xf32, swizzle = 128>, <4>
          %39 = argus.stage %20[%30] : <4 x <32x128xf32, shared, "Sw<3,2,3> o (32,(32,4)):(32,(1,1024))">>
          argus.tma_load %37, %39, %18, %21[%30] : <32x128xf32, global>, <32x128xf32, shared, "Sw<3,2,3> o (32,(32,4)):(32,(1,1024))">, <32x32xf32, swizzle = 128>, <4>
          %40 = arith.addi %arg9, %c1 : index
          scf.yield %40 : index
        }
        scf.yield %28 : index
      }
    }
    argus.role "consumer" warps 4 to 12 regs 232 {
      %23 = scf.for %arg6 = %block_id_x to %13 step %grid_dim_x iter_args(%arg7 = %c0) -> (index) {
        %24 = arith.divui %arg6, %11 : index
        %25 = arith.muli %24, %c256 : index
        %26 = arith.remui %arg6, %11 : index
        %27 = arith.muli %26, %c128 : index
        %28 = argus.fill 0.000000e+00 : <128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>
        %29 = argus.tag %28[%27, %25] ["n", "m"] = #map : <128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>
        %30:2 = scf.for %arg8 = %c0 to %14 step %c1 iter_args(%arg9 = %29, %arg10 = %arg7) -> (!argus.tile<128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>, index) {
          %37 = arith.remui %arg10, %c4 : index
          %38 = arith.divui %arg10, %c4 : index
          %c2 = arith.constant 2 : index
          %39 = arith.remui %38, %c2 : index
          argus.mbarrier.wait %21[%37], %39 : <4>
          %40 = argus.stage %20[%37] : <4 x <32x128xf32, shared, "Sw<3,2,3> o (32,(32,4)):(32,(1,1024))">>
          %41 = argus.transpose %40 : <32x128xf32, shared, "Sw<3,2,3> o (32,(32,4)):(32,(1,1024))"> -> <128x32xf32, shared, "Sw<3,2,3> o ((32,4),32):((1,1024),32)">
          %42 = argus.load %41 : <128x32xf32, shared, "Sw<3,2,3> o ((32,4),32):((1,1024),32)"> -> <128x32xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", a, warps = [2, 1]>>
          %43 = argus.stage %19[%37] : <4 x <256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)">>
          %44 = argus.transpose %43 : <256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)"> -> <32x256xf32, shared, "Sw<3,2,3> o (32,256):(1,32)">
          %45 = argus.mma_async "wgmma.m64n256k8.f32.tf32" %42, %44, %arg9 : <128x32xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", a, warps = [2, 1]>>, <32x256xf32, shared, "Sw<3,2,3> o (32,256):(1,32)">, <128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>
          argus.tag_assert %45, "a.k == b.k && a.n == acc.n && b.m == acc.m" : !argus.tile<128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>
          argus.wgmma_commit
          argus.wgmma_wait 1
          %46 = arith.cmpi ne, %arg8, %c0 : index
          scf.if %46 {
            %c3_5 = arith.constant 3 : index
            %48 = arith.addi %arg10, %c3_5 : index
            %49 = arith.remui %48, %c4 : index
            argus.mbarrier.arrive %22[%49] : <4>
          }
          %47 = arith.addi %arg10, %c1 : index
          scf.yield %45, %47 : !argus.tile<128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>, index
        }
        %31 = argus.wgmma_wait 0, %30#0 : !argus.tile<128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>
        %c3 = arith.constant 3 : index
        %32 = arith.addi %30#1, %c3 : index
        %33 = arith.remui %32, %c4 : index
        argus.mbarrier.arrive %22[%33] : <4>
        %34 = argus.view "C" %arg2[%25, %27] clipped : memref<?x?xf32> -> <256x128xf32, global>
        %35 = argus.tag %34[%25, %27] ["m", "n"] = #map : <256x128xf32, global>
        %36 = argus.transpose %35 : <256x128xf32, global> -> <128x256xf32, global>
        argus.store %31, %36 : <128x256xf32, register, #argus.frag<"wgmma.m64n256k8.f32.tf32", c, warps = [2, 1]>>, <128x256xf32, global>
        argus.tag_assert "value.m == dest.m && value.n == dest.n"
        scf.yield %30#1 : index
      }
    }
    return
  }
}
