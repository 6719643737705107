// The out-of-bounds check: every element a load, copy or store reaches
// through an argus.view is inside the viewed tensor (view offset + tile
// coordinate < size, every dimension), for every block, iteration, thread
// and slot. Sizes are memref.dim parameters ("argN.dimK", static dims are
// constants), related to the launch by argus.assume.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t.json

!G = !argus.tile<64x4xf32, global>
!R = !argus.tile<64x4xf32, register, "(64,4):(1,64)">
!Gt = !argus.tile<4x64xf32, global>

// CHECK-LABEL: "kernel": "bounds_proved"
// A k-loop over 4-column slabs of A (M x K, M = 64 * grid_dim.y, K a
// multiple of 4), a transposed view of B and a store into a static tensor.
func.func @bounds_proved(%A: memref<?x?xf32>, %B: memref<?x?xf32>,
                         %C: memref<128x4xf32>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %by = gpu.block_id y
  %gy = gpu.grid_dim y
  %m0 = arith.muli %by, %c64 : index
  %M = arith.muli %gy, %c64 : index
  %a0 = memref.dim %A, %c0 : memref<?x?xf32>
  %a1 = memref.dim %A, %c1 : memref<?x?xf32>
  %okm = arith.cmpi eq, %a0, %M : index
  %okk = arith.cmpi eq, %a1, %K : index
  %ok = arith.andi %okm, %okk : i1
  argus.assume %ok, "A is (64 * grid_dim.y) x K"
  %b0 = memref.dim %B, %c0 : memref<?x?xf32>
  %b1 = memref.dim %B, %c1 : memref<?x?xf32>
  %okb0 = arith.cmpi uge, %b0, %c4 : index
  %okb1 = arith.cmpi eq, %b1, %M : index
  %okb = arith.andi %okb0, %okb1 : i1
  argus.assume %okb, "B is at least 4 x M"
  %gy2 = arith.cmpi ule, %gy, %c2 : index
  argus.assume %gy2, "at most 2 block rows (C has 128 rows)"
  %ktiles = arith.divui %K, %c4 : index
  scf.for %kt = %c0 to %ktiles step %c1 {
    %k0 = arith.muli %kt, %c4 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf32> -> !G
    // CHECK: "location": "{{.*}}bounds.mlir:[[@LINE+2]]:
    // CHECK: "status": "proved"
    %ra = argus.load %ga : !G -> !R
  }
  %gb = argus.view "B" %B[%c0, %m0] : memref<?x?xf32> -> !Gt
  %gbt = argus.transpose %gb : !Gt -> !G
  // CHECK: "location": "{{.*}}bounds.mlir:[[@LINE+2]]:
  // CHECK: "status": "proved"
  %rb = argus.load %gbt : !G -> !R
  %gc = argus.view "C" %C[%m0, %c0] : memref<128x4xf32> -> !G
  // CHECK: "location": "{{.*}}bounds.mlir:[[@LINE+2]]:
  // CHECK: "status": "proved"
  argus.store %rb, %gc : !R, !G
  return
}

// CHECK-LABEL: "kernel": "bounds_violated"
// The k-loop runs one slab too far (to ktiles + 1), and the store into the
// static 128 x 4 tensor C forgets that C has only 128 rows.
func.func @bounds_violated(%A: memref<?x?xf32>, %C: memref<128x4xf32>,
                           %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %by = gpu.block_id y
  %gy = gpu.grid_dim y
  %m0 = arith.muli %by, %c64 : index
  %M = arith.muli %gy, %c64 : index
  %a0 = memref.dim %A, %c0 : memref<?x?xf32>
  %a1 = memref.dim %A, %c1 : memref<?x?xf32>
  %okm = arith.cmpi eq, %a0, %M : index
  %okk = arith.cmpi eq, %a1, %K : index
  %ok = arith.andi %okm, %okk : i1
  argus.assume %ok, "A is (64 * grid_dim.y) x K"
  %ktiles = arith.divui %K, %c4 : index
  %kend = arith.addi %ktiles, %c1 : index
  %z = argus.fill 0.0 : !R
  scf.for %kt = %c0 to %kend step %c1 {
    %k0 = arith.muli %kt, %c4 : index
    %ga = argus.view "A" %A[%m0, %k0] : memref<?x?xf32> -> !G
    // DIAG: bounds.mlir:[[@LINE+4]]:{{[0-9]+}}: error: out-of-bounds violated at 'argus.load'
    // DIAG: reads A[{{[0-9]+}}, {{[0-9]+}}] (tile element ({{[0-9]+}}, {{[0-9]+}})), outside its sizes [{{[0-9]+}}, {{[0-9]+}}]: dimension 1
    // CHECK: "location": "{{.*}}bounds.mlir:[[@LINE+2]]:
    // CHECK: "status": "violated"
    %ra = argus.load %ga : !G -> !R
  }
  %gc = argus.view "C" %C[%m0, %c0] : memref<128x4xf32> -> !G
  // DIAG: bounds.mlir:[[@LINE+4]]:{{[0-9]+}}: error: out-of-bounds violated at 'argus.store'
  // DIAG: writes C[{{[0-9]+}}, {{[0-9]}}] (tile element ({{[0-9]+}}, {{[0-9]}})), outside its sizes [128, 4]: dimension 0
  // CHECK: "location": "{{.*}}bounds.mlir:[[@LINE+2]]:
  // CHECK: "status": "violated"
  argus.store %z, %gc : !R, !G
  return
}
