// A 3x3 convolution as an implicit GEMM (examples/python/conv2d.py's
// conv3x3, traced): argus.im2col_view tiles of the channels-last input X
// times the transposed tiles of the (CO, 9 C) weights. The verifier sees an
// im2col view as a tile of the im2col matrix: its tags are checked against
// the matrix coordinate, and the k loop must cover its 9 C columns (the
// bug corpus has the two edits: bugs/conv_window_ahead.mlir,
// bugs/conv_k_loop_short.mlir).
// RUN: argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s --allow-empty
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT

// No warning (unknown) and no error (violated).
// CHECK-NOT: warning
// CHECK-NOT: error
// REPORT-DAG: "kind": "view-tag"
// REPORT-DAG: "kind": "reduction-coverage"
// REPORT-DAG: "kind": "output-coverage"
// REPORT-NOT: "status": "unknown"
// REPORT-NOT: "status": "violated"

#map = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
func.func @conv3x3(%arg0: memref<?x?x?x?xf16>, %arg1: memref<?x?xf16>, %arg2: memref<?x?xf16>) attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90">} {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg1, %c0 : memref<?x?xf16>
  %c1 = arith.constant 1 : index
  %dim_0 = memref.dim %arg2, %c1 : memref<?x?xf16>
  %0 = arith.cmpi eq, %dim_0, %dim : index
  argus.assume %0, "Y.dim1 (CO) == Wt.dim0"
  %dim_1 = memref.dim %arg0, %c0 : memref<?x?x?x?xf16>
  %dim_2 = memref.dim %arg0, %c1 : memref<?x?x?x?xf16>
  %c2 = arith.constant 2 : index
  %dim_3 = memref.dim %arg0, %c2 : memref<?x?x?x?xf16>
  %c3 = arith.constant 3 : index
  %dim_4 = memref.dim %arg0, %c3 : memref<?x?x?x?xf16>
  %dim_5 = memref.dim %arg1, %c0 : memref<?x?xf16>
  %dim_6 = memref.dim %arg1, %c1 : memref<?x?xf16>
  %c4194304 = arith.constant 4194304 : index
  %1 = arith.cmpi ult, %dim_2, %c4194304 : index
  %2 = arith.cmpi ult, %dim_3, %c4194304 : index
  %3 = arith.andi %1, %2 : i1
  %c466033 = arith.constant 466033 : index
  %4 = arith.cmpi ult, %dim_4, %c466033 : index
  %5 = arith.andi %3, %4 : i1
  argus.assume %5, "sizes in the index range"
  %6 = arith.addi %dim_2, %c2 : index
  %7 = arith.cmpi uge, %6, %c3 : index
  %8 = arith.addi %dim_3, %c2 : index
  %9 = arith.cmpi uge, %8, %c3 : index
  %10 = arith.andi %7, %9 : i1
  argus.assume %10, "the dilated window fits in the padded input"
  %11 = arith.divui %c4194304, %dim_2 : index
  %12 = arith.divui %11, %dim_3 : index
  %13 = arith.cmpi ule, %dim_1, %12 : index
  argus.assume %13, "N * OH * OW output positions in the index range"
  %dim_7 = memref.dim %arg2, %c0 : memref<?x?xf16>
  %14 = arith.muli %dim_1, %dim_2 : index
  %15 = arith.muli %14, %dim_3 : index
  %16 = arith.cmpi eq, %dim_7, %15 : index
  %dim_8 = memref.dim %arg2, %c1 : memref<?x?xf16>
  %17 = arith.cmpi eq, %dim_8, %dim_5 : index
  %18 = arith.andi %16, %17 : i1
  %c9 = arith.constant 9 : index
  %19 = arith.muli %c9, %dim_4 : index
  %20 = arith.cmpi eq, %dim_6, %19 : index
  %21 = arith.andi %18, %20 : i1
  argus.assume %21, "Y is the (N * OH * OW, CO) output; W is (CO, KH * KW * C)"
  %grid_dim_y = gpu.grid_dim  y
  %c64 = arith.constant 64 : index
  %22 = arith.ceildivui %dim_7, %c64 : index
  %23 = arith.cmpi eq, %grid_dim_y, %22 : index
  %grid_dim_x = gpu.grid_dim  x
  %24 = arith.ceildivui %dim_5, %c64 : index
  %25 = arith.cmpi eq, %grid_dim_x, %24 : index
  %26 = arith.andi %23, %25 : i1
  argus.assume %26, "one block per output tile, boundary tiles included"
  %c8 = arith.constant 8 : index
  %27 = arith.remui %dim_4, %c8 : index
  %28 = arith.cmpi eq, %27, %c0 : index
  %29 = arith.remui %dim_5, %c8 : index
  %30 = arith.cmpi eq, %29, %c0 : index
  %31 = arith.andi %28, %30 : i1
  argus.assume %31, "rows of W and Y are whole 16-byte vectors (C, CO multiples of 8)"
  %block_id_y = gpu.block_id  y
  %32 = arith.muli %block_id_y, %c64 : index
  %block_id_x = gpu.block_id  x
  %33 = arith.muli %block_id_x, %c64 : index
  %34 = argus.alloc "sA" : <1 x <64x32xf16, shared, "(64,32):(32,1)">>
  %35 = argus.stage %34[%c0] : <1 x <64x32xf16, shared, "(64,32):(32,1)">>
  %36 = argus.alloc "sB" : <1 x <64x32xf16, shared, "(64,32):(32,1)">>
  %37 = argus.stage %36[%c0] : <1 x <64x32xf16, shared, "(64,32):(32,1)">>
  %38 = argus.fill 0.000000e+00 : <64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
  %39 = argus.tag %38[%32, %33] ["m", "n"] = #map : <64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
  %c32 = arith.constant 32 : index
  %40 = arith.ceildivui %dim_6, %c32 : index
  %41 = scf.for %arg3 = %c0 to %40 step %c1 iter_args(%arg4 = %39) -> (!argus.tile<64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>) {
    %45 = arith.muli %arg3, %c32 : index
    %46 = argus.im2col_view "X" %arg0[%32, %45] window [3, 3] stride [1, 1] pad [1, 1] dilation [1, 1] : memref<?x?x?x?xf16> -> <64x32xf16, global>
    %47 = argus.tag %46[%32, %45] ["m", "k"] = #map : <64x32xf16, global>
    %48 = argus.view "Wt" %arg1[%33, %45] clipped : memref<?x?xf16> -> <64x32xf16, global>
    %49 = argus.tag %48[%33, %45] ["n", "k"] = #map : <64x32xf16, global>
    argus.copy %47, %35 threads "((4,32),(8,2)):((512,1),(64,32))" : <64x32xf16, global>, <64x32xf16, shared, "(64,32):(32,1)">
    argus.copy %49, %37 threads "((4,32),(8,2)):((512,1),(64,32))" : <64x32xf16, global>, <64x32xf16, shared, "(64,32):(32,1)">
    argus.barrier
    %50 = argus.load %35 : <64x32xf16, shared, "(64,32):(32,1)"> -> <64x32xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [2, 2]>>
    %51 = argus.transpose %37 : <64x32xf16, shared, "(64,32):(32,1)"> -> <32x64xf16, shared, "(32,64):(1,32)">
    %52 = argus.load %51 : <32x64xf16, shared, "(32,64):(1,32)"> -> <32x64xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [2, 2]>>
    %53 = argus.mma "mma.m16n8k16.f32.f16" %50, %52, %arg4 : <64x32xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [2, 2]>>, <32x64xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [2, 2]>>, <64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
    argus.tag_assert %53, "a.k == b.k && a.m == acc.m && b.n == acc.n" : !argus.tile<64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
    argus.barrier
    scf.yield %53 : !argus.tile<64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
  }
  %42 = argus.view "Y" %arg2[%32, %33] clipped : memref<?x?xf16> -> <64x64xf16, global>
  %43 = argus.tag %42[%32, %33] ["m", "n"] = #map : <64x64xf16, global>
  %44 = argus.convert %41 : <64x64xf32, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>> -> <64x64xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>
  argus.store %44, %43 : <64x64xf16, register, #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [2, 2]>>, <64x64xf16, global>
  argus.tag_assert "value.m == dest.m && value.n == dest.n"
  return
}
