// RUN: argus-opt %s --argus-print-structure -o /dev/null | FileCheck %s
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-print-structure -o /dev/null | FileCheck %s --check-prefix=MFMA

// CHECK-LABEL: kernel @k  target gfx942  block [128] = 2 warps of 64
// CHECK-NEXT:   tensors: A
// CHECK-NEXT:   shared buffers:
// CHECK-NEXT:     s: 2 x 16x16xf16 "(16,16):(16,1)" (1024 bytes)
// CHECK-NEXT:   regions:
// CHECK-NEXT:     [7] outer  at print-structure.mlir:{{[0-9]+}}
// CHECK-NEXT:       [8] body (loop depth 1)  at print-structure.mlir:{{[0-9]+}}
// CHECK-NEXT:     [9] tail  at
// CHECK-NEXT:   matrix-core ops: none
// CHECK-NEXT:   tag assertions:
// CHECK-NEXT:     at argus.exp (print-structure.mlir:{{[0-9]+}}): input.m >= 0
func.func @k(%A: memref<?x?xf16>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = argus.alloc "s" : !argus.buffer<2 x !argus.tile<16x16xf16, shared, "(16,16):(16,1)">>
  %v = argus.view "A" %A[%c0, %c0] : memref<?x?xf16> -> !argus.tile<16x16xf16, global>
  argus.region.begin "outer" id 7
  scf.for %i = %c0 to %n step %c1 {
    argus.region.begin "body" id 8
    %r = argus.load %v : !argus.tile<16x16xf16, global> -> !argus.tile<16x16xf16, register, "(128,2):(2,1)">
    %t = argus.tag %r [] ["m"] = affine_map<(d0, d1) -> (d0)> : !argus.tile<16x16xf16, register, "(128,2):(2,1)">
    %e = argus.exp %t : !argus.tile<16x16xf16, register, "(128,2):(2,1)">
    argus.tag_assert %e, "input.m >= 0" : !argus.tile<16x16xf16, register, "(128,2):(2,1)">
    argus.region.end id 8
  }
  argus.region.end id 7
  argus.region.begin "tail" id 9
  argus.region.end id 9
  return
}

// MFMA-LABEL: kernel @gemm_mfma  target gfx942  block [256] = 4 warps of 64
// MFMA: tensors: A, B, C
// MFMA: [1] mainloop
// MFMA-NEXT: [2] load_tiles (loop depth 1)
// MFMA-NEXT: [3] mfma (loop depth 1)
// MFMA-NEXT: [4] epilogue
// MFMA: v_mfma_f32_32x32x8_f16 (loop depth 1)
// MFMA: at argus.mma (gemm_mfma.mlir:{{[0-9]+}}): a.k == b.k && a.m == acc.m && b.n == acc.n
// MFMA: at argus.store (gemm_mfma.mlir:{{[0-9]+}}): value.m == dest.m && value.n == dest.n
