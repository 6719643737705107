// The line -> region table of per-instruction hardware metrics
// (--argus-print-line-regions; --argus-to-nvptx="lineinfo-regions=F" writes
// it beside PTX that carries the same lines).
// RUN: argus-opt %s --argus-print-line-regions -o /dev/null | FileCheck %s
// RUN: argus-opt %s --argus-print-line-regions="output=%t.json" -o /dev/null
// RUN: FileCheck %s < %t.json
// RUN: not argus-opt %s --argus-print-line-regions="output=%t.missing/dir/x.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// A helper's line (helper.py:7) has ops in two regions, one of them nested:
// each op counts for its innermost region only. Markers count for nothing;
// an op outside every region counts under "".
// CHECK-LABEL: "lines": [
// CHECK:      "file": "helper.py",
// CHECK-NEXT: "line": 7,
// CHECK-NEXT: "ops": {
// CHECK-NEXT:   "inner": 1,
// CHECK-NEXT:   "outer": 2
// CHECK-NEXT: }
// CHECK:      "file": "kernel.py",
// CHECK-NEXT: "line": 20,
// CHECK-NEXT: "ops": {
// CHECK-NEXT:   "": 1
// CHECK-NEXT: }
// CHECK-NOT: "line": 3
// CHECK-LABEL: "regions": [
// CHECK:      "id": 1,
// CHECK-NEXT: "name": "outer",
// CHECK-NEXT: "parent": null
// CHECK:      "id": 2,
// CHECK-NEXT: "name": "inner",
// CHECK-NEXT: "parent": "outer"
// CHECK: "schema": "argus.line_regions/1"
// ERR: error: argus-print-line-regions: cannot write '{{.*}}x.json'
func.func @k(%a: index)
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  argus.region.begin "outer" id 1 loc("kernel.py":3:1)
  %0 = arith.addi %a, %a : index loc("helper.py":7:5)
  %1 = arith.muli %0, %a : index loc("helper.py":7:9)
  argus.region.begin "inner" id 2 loc("kernel.py":3:1)
  %2 = arith.addi %1, %a : index loc("helper.py":7:5)
  argus.region.end id 2 loc("kernel.py":3:1)
  argus.region.end id 1 loc("kernel.py":3:1)
  return loc("kernel.py":20:3)
}
