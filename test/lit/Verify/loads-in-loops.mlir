// RUN: not argus-opt %s -split-input-file --argus-verify-tags -o /dev/null 2>&1 | FileCheck %s

// Index values loaded inside a loop (a persistent kernel's work list: the
// expert of each work item) from a tensor the kernel never writes: the
// tensor's entries are one function of the index, the same for every
// block, iteration and load op of it, so two loads of one entry agree and
// loads of two entries may differ.

// Two load ops of the same entry: the stored rows' expert is the one the
// rows were read from (proved; no diagnostic before the next kernel's).
// CHECK-NOT: {{warning|error}}
#E = affine_map<(d0, d1)[s0] -> ((d0 + s0) floordiv 16)>
#S = affine_map<(d0, d1)[s0] -> (s0)>
!G = !argus.tile<16x8xf32, global>
!R = !argus.tile<16x8xf32, register, "(32,4):(4,1)">
func.func @expert_rows(%W: memref<?x8xf32>, %Y: memref<?x8xf32>,
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
    %bi = arith.index_cast %b : i32 to index
    %f = arith.minui %bi, %last : index
    %y0 = arith.muli %t, %c16 : index
    %gy = argus.view "Y" %Y[%y0, %c0] : memref<?x8xf32> -> !G
    %gyt = argus.tag %gy [%f] ["e"] = #S : !G
    argus.store %x, %gyt : !R, !G
    argus.tag_assert "value.e == dest.e"
  }
  return
}

// -----

// The second load is not clamped: an entry past the last expert is stored
// as that entry while the rows came from the last expert. The witness
// names the entry it reads.
// CHECK-LABEL: error: tag assertion 'value.e == dest.e' violated at 'argus.store'
// CHECK: note: kernel arguments: {{.*}}arg2[{{[0-9]+}}]={{[0-9]+}}
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

// -----

// A tensor the kernel writes may change between the loop's iterations:
// its loads inside the loop are not modelled (unknown, with the reason).
// CHECK-LABEL: warning: {{.*}} is unknown at {{.*}}a value loaded below the kernel's top level ({{.*}}) from a tensor the kernel writes, or not a kernel argument, is not modelled
!G = !argus.tile<16x8xf32, global>
!R = !argus.tile<16x8xf32, register, "(32,4):(4,1)">
!GI = !argus.tile<32xi32, global>
!RI = !argus.tile<32xi32, register, "(32,1):(1,0)">
func.func @written_table(%W: memref<?x8xf32>, %table: memref<?xi32>,
                         %src: memref<?xi32>)
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %z = argus.fill 0.0 : !R
  scf.for %t = %c0 to %c4 step %c1 {
    %a = memref.load %table[%t] : memref<?xi32>
    %ai = arith.index_cast %a : i32 to index
    %gw = argus.view "W" %W[%ai, %c0] : memref<?x8xf32> -> !G
    argus.store %z, %gw : !R, !G
  }
  %gs = argus.view "src" %src[%c0] : memref<?xi32> -> !GI
  %zi = argus.load %gs : !GI -> !RI
  %gt = argus.view "table" %table[%c0] : memref<?xi32> -> !GI
  argus.store %zi, %gt : !RI, !GI
  return
}
