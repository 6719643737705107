// The view-tag check: an argus.tag on a global view must agree with each
// element's global coordinate g = view offsets + tile coordinate. The map at
// the tile coordinate (with its symbols) must equal the map at d := g (in the
// tag's coordinate order) with every symbol that provably equals a view
// offset replaced by 0; other symbols are kept.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t.json

#Coord = affine_map<(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)>
!G = !argus.tile<32x64xf16, global>
!Gt = !argus.tile<64x32xf16, global>

// A transposed view: tag coordinate (n, k) is global coordinate (k, n).
// An extra symbol (a head index) is kept; a symbol computed another way
// but equal to the offset in every instance counts as the offset.
func.func @proved(%B: memref<?x?xf16>, %Q: memref<?x?xf16>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %bz = gpu.block_id z
  %n0 = arith.muli %bx, %c64 : index
  %q0 = arith.muli %by, %c32 : index
  %byq = arith.divui %q0, %c32 : index
  %q0b = arith.muli %byq, %c32 : index
  %ktiles = arith.divui %K, %c32 : index
  scf.for %kt = %c0 to %ktiles step %c1 {
    %k0 = arith.muli %kt, %c32 : index
    %gb = argus.view "B" %B[%k0, %n0] : memref<?x?xf16> -> !G
    %gbt = argus.transpose %gb : !G -> !Gt
    // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+2]]:
    // CHECK: "status": "proved"
    %tag = argus.tag %gbt [%k0, %n0] ["n", "k"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s1, d1 + s0)> : !Gt
  }
  %gq = argus.view "Q" %Q[%q0, %c0] : memref<?x?xf16> -> !G
  // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+2]]:
  // CHECK: "status": "proved"
  %gqt = argus.tag %gq [%q0b, %c0, %bz] ["h", "m", "d"] = affine_map<(d0, d1)[s0, s1, s2] -> (s2, d0 + s0, d1 + s1)> : !G
  return
}

// Tags that do not follow the view. The A view is moved one slab ahead with
// its tag unchanged; the C tag encodes the block offset through the block id
// instead of the offset value (write tags with the view's offsets as
// symbols, or as functions of the global coordinate).
func.func @violated(%A: memref<?x?xf16>, %C: memref<?x?xf16>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %m0 = arith.muli %by, %c32 : index
  %n0 = arith.muli %bx, %c64 : index
  %ktiles = arith.divui %K, %c64 : index
  scf.for %kt = %c0 to %ktiles step %c1 {
    %k0 = arith.muli %kt, %c64 : index
    %k1 = arith.addi %k0, %c32 : index
    // DIAG-DAG: note: view 'argus.view' at {{.*}}view_tags.mlir:[[@LINE+1]]:{{[0-9]+}} has offsets ({{[0-9]+}}, {{[0-9]+}}); tag 'argus.tag' at {{.*}}view_tags.mlir:[[@LINE+8]]:{{[0-9]+}} has symbols ({{[0-9]+}}, {{[0-9]+}})
    %ga = argus.view "A" %A[%m0, %k1] : memref<?x?xf16> -> !G
    // DIAG-DAG: error: view-tag violated at 'argus.tag' ({{.*}}view_tags.mlir:[[@LINE+6]]:
    // DIAG-DAG: note: field 'k' of A element ({{[0-9]+}}, {{[0-9]+}}) at global ({{[0-9]+}}, {{[0-9]+}}) is {{[0-9]+}} but the tag map at the global coordinate gives {{[0-9]+}}
    // DIAG-DAG: note: expected = the tag map at d = ({{[0-9]+}}, {{[0-9]+}}) with symbols (s0 = 0 (equals view offset 0), s1 = {{[0-9]+}})
    // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+3]]:
    // CHECK: "replay": "confirmed"
    // CHECK-NEXT: "status": "violated"
    %gat = argus.tag %ga [%m0, %k0] ["m", "k"] = #Coord : !G
  }
  %gc = argus.view "C" %C[%m0, %n0] : memref<?x?xf16> -> !G
  // DIAG-DAG: error: view-tag violated at 'argus.tag' ({{.*}}view_tags.mlir:[[@LINE+5]]:
  // DIAG-DAG: note: field 'm' of C element
  // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+3]]:
  // CHECK: "replay": "confirmed"
  // CHECK-NEXT: "status": "violated"
  %gct = argus.tag %gc [%by, %n0] ["m", "n"] = affine_map<(d0, d1)[s0, s1] -> (d0 + s0 * 32, d1 + s1)> : !G
  return
}

// A view of a memref that is not a kernel argument: memory the kernel
// allocates itself with memref.alloc is outside the semantic model, so
// every check of the kernel is unknown, naming it (before, the tag was
// proved while the allocation's effects went unmodelled).
// DIAG: warning: tensor-name is unknown at 'argus.view': not modelled: 'memref.alloc' at
func.func @not_an_argument(%n: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %c0 = arith.constant 0 : index
  %m = memref.alloc(%n) : memref<?x64xf16>
  // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+3]]:
  // CHECK: "reason": "not modelled: 'memref.alloc' at
  // CHECK-NEXT: "replay": ""
  %g = argus.view "T" %m[%c0, %c0] : memref<?x64xf16> -> !G
  // CHECK: "location": "{{.*}}view_tags.mlir:[[@LINE+2]]:
  // CHECK: "status": "unknown"
  %gt = argus.tag %g [%c0, %c0] ["r", "c"] = #Coord : !G
  return
}
