// Line info for per-instruction profiles: lineinfo=1 gives the PTX .file /
// .loc directives from the ops' locations (no DWARF sections, so ptxas
// needs no -g and the .target has no debug flag); lineinfo-regions=F also
// writes the line -> region table of the same locations. Without either
// option the PTX has no line info.
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="lineinfo=1 dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,PLAIN < %t.ptx
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="lineinfo-regions=%t.json dump=%t2.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,REGIONS < %t2.ptx
// RUN: FileCheck %s --check-prefix=MAP < %t.json
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="dump=%t3.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=NONE < %t3.ptx
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="lineinfo=1 dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=GFX < %t.s

// The mma of the main loop (line 132 of the example) carries its line
// (in file 1 or, with lineinfo-regions, in the mma region's file).
// CHECK: .target sm_90a{{$}}
// CHECK: .loc {{[0-9]+}} 131
// CHECK: .loc {{[0-9]+}} 132
// CHECK-NEXT: mma.sync.aligned.m16n8k16
// CHECK-NOT: .section .debug_info
// CHECK: .file 1 "{{.*}}gemm_pipelined_2stage.mlir"

// With the region table, each instruction's line also names its innermost
// region (a file per region: argus-mark-region-locations, then
// argus-region-line-files), so a line with code in two regions is not
// ambiguous; plain line info names none.
// REGIONS-DAG: .file {{[0-9]+}} "{{.*}}gemm_pipelined_2stage.mlir [argus region mma]"
// REGIONS-DAG: .file {{[0-9]+}} "{{.*}}gemm_pipelined_2stage.mlir [argus region prologue]"
// PLAIN-NOT: argus region

// MAP-LABEL: "lines": [
// MAP:      "line": 132,
// MAP-NEXT: "ops": {
// MAP-NEXT:   "mma": 1
// MAP: "schema": "argus.line_regions/1"

// NONE-NOT: .loc
// NONE-NOT: .file

// GFX: .file 1 "{{.*}}" "gemm_mfma.mlir"
// GFX: .loc 1
