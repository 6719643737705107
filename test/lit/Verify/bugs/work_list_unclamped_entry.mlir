// Bug corpus: work_list_unclamped_entry (a work list read inside a loop).
// Each work item copies the 16 rows of its expert table[t] (clamped to W's
// last expert) and tags the stored rows with a second load of table[t] that
// is not clamped: an entry past the last expert stores another expert's id.
// RUN: not argus-opt %s --argus-verify-tags="report=%t.json" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// CHECK: error: tag assertion 'value.e == dest.e' violated
// CHECK: note: kernel arguments: {{.*}}arg2[{{[0-9]+}}]={{[0-9]+}}
// JSON: "replay": "confirmed"
// JSON-NEXT: "status": "violated"

#E = affine_map<(d0, d1)[s0] -> ((d0 + s0) floordiv 16)>
#S = affine_map<(d0, d1)[s0] -> (s0)>
!G = !argus.tile<16x8xf32, global>
!R = !argus.tile<16x8xf32, register, "(32,4):(4,1)">
func.func @unclamped_second_load(%W: memref<?x8xf32>, %Y: memref<?x8xf32>,
                                 %table: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %table, %c0 : memref<?xi32>
  %c4096 = arith.constant 4096 : index
  %nb = arith.cmpi ule, %n, %c4096 : index
  argus.assume %nb, "at most 4096 work items"
  %wr = memref.dim %W, %c0 : memref<?x8xf32>
  %yr = memref.dim %Y, %c0 : memref<?x8xf32>
  %yn = arith.muli %n, %c16 : index
  %ok1 = arith.cmpi eq, %yr, %yn : index
  %rem = arith.remui %wr, %c16 : index
  %ok2 = arith.cmpi eq, %rem, %c0 : index
  %ok3 = arith.cmpi uge, %wr, %c16 : index
  %ok12 = arith.andi %ok1, %ok2 : i1
  %ok = arith.andi %ok12, %ok3 : i1
  argus.assume %ok, "Y has 16 rows per work item; W holds whole experts of 16 rows"
  %experts = arith.divui %wr, %c16 : index
  %last = arith.subi %experts, %c1 : index
  scf.for %t = %c0 to %n step %c1 {
    %a = memref.load %table[%t] : memref<?xi32>
    %ai = arith.index_cast %a : i32 to index
    %e = arith.minui %ai, %last : index
    %row = arith.muli %e, %c16 : index
    %gw = argus.view "W" %W[%row, %c0] : memref<?x8xf32> -> !G
    %gwt = argus.tag %gw [%row] ["e"] = #E : !G
    %x = argus.load %gwt : !G -> !R
    %b = memref.load %table[%t] : memref<?xi32>
    %f = arith.index_cast %b : i32 to index
    %y0 = arith.muli %t, %c16 : index
    %gy = argus.view "Y" %Y[%y0, %c0] : memref<?x8xf32> -> !G
    %gyt = argus.tag %gy [%f] ["e"] = #S : !G
    argus.store %x, %gyt : !R, !G
    argus.tag_assert "value.e == dest.e"
  }
  return
}
