// argus-mark-region-locations: each op inside a measured region gets its
// innermost region's name around its location (markers and ops outside
// every region keep theirs), for argus-region-line-files after the
// lowering (test/lit/Conversion/lineinfo-nvptx.mlir).
// RUN: argus-opt %s --argus-mark-region-locations --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @k
// CHECK: argus.region.begin "outer" id 1 loc("kernel.py":3:1)
// CHECK: arith.addi {{.*}} loc("argus.region:outer"("helper.py":7:5))
// CHECK: arith.muli {{.*}} loc("argus.region:outer"("helper.py":7:9))
// CHECK: arith.addi {{.*}} loc("argus.region:inner"("helper.py":7:5))
// CHECK: argus.region.end id 1 loc("kernel.py":5:1)
// CHECK: arith.subi {{.*}} loc("kernel.py":19:3)
func.func @k(%a: index) -> index
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  argus.region.begin "outer" id 1 loc("kernel.py":3:1)
  %0 = arith.addi %a, %a : index loc("helper.py":7:5)
  %1 = arith.muli %0, %a : index loc("helper.py":7:9)
  argus.region.begin "inner" id 2 loc("kernel.py":4:1)
  %2 = arith.addi %1, %a : index loc("helper.py":7:5)
  argus.region.end id 2 loc("kernel.py":4:1)
  argus.region.end id 1 loc("kernel.py":5:1)
  %3 = arith.subi %2, %a : index loc("kernel.py":19:3)
  return %3 : index loc("kernel.py":20:3)
}
