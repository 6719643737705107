// sync-sites: each named synchronization site gets a probed region of its
// own around its op (next free ID of the kernel), selected whatever
// regions= and signals= say; unknown names are errors.
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="regions=mainloop signals=duration sync-sites=wait_group@mainloop#0,barrier@drain#0" | FileCheck %s
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="regions=mainloop sync-sites=wait_group@mainloop#0" | argus-opt --argus-to-nvptx="probes=1 probe-regions=mainloop|wait_group@mainloop#0 probe-signals=duration|timeline format=isa dump=%t.ptx" -o /dev/null
// RUN: grep -c globaltimer %t.ptx | FileCheck %s --check-prefix=PTX
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="sync-sites=barrier@drain#0" | FileCheck %s --check-prefix=ONLY
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="regions=prologue" | argus-opt --argus-insert-probes="regions=epilogue" | FileCheck %s --check-prefix=AGAIN
// RUN: not argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="sync-sites=barrier@nowhere#0" 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @gemm_pipelined_2stage
// CHECK-SAME: argus_probes = #argus.probe_plan<{{.*}}regions = {"2" = "mainloop", "8" = "wait_group@mainloop#0", "9" = "barrier@drain#0"}
// The wait inside the loop: its region is probed per iteration although
// signals= asked for durations only.
// CHECK: argus.region.begin "wait" id 3
// CHECK-NEXT: argus.region.begin "wait_group@mainloop#0" id 8 {argus_probe}
// CHECK-NEXT: argus.wait_group 0
// CHECK-NEXT: argus.region.end id 8 {argus_probe}
// CHECK-NEXT: argus.barrier
// CHECK-NEXT: argus.region.end id 3
// CHECK: argus.region.begin "drain" id 6
// CHECK-NOT: argus_probe
// CHECK: argus.region.begin "barrier@drain#0" id 9 {argus_probe}
// CHECK-NEXT: argus.barrier
// CHECK-NEXT: argus.region.end id 9 {argus_probe}

// Two probed regions, a timer read at each of their four markers.
// PTX: 4

// ERR: error: argus-insert-probes: no synchronization site named 'barrier@nowhere#0'; hint: argus-opt --argus-print-sites lists them

// Sync sites alone select only their regions.
// ONLY-LABEL: func.func @gemm_pipelined_2stage
// ONLY-SAME: regions = {"8" = "barrier@drain#0"}
// ONLY: argus.region.begin "prologue" id 1{{$}}
// ONLY: argus.region.begin "mainloop" id 2{{$}}
// ONLY: argus.region.begin "barrier@drain#0" id 8 {argus_probe}

// A second run's selection replaces the first's.
// AGAIN-LABEL: func.func @gemm_pipelined_2stage
// AGAIN-SAME: regions = {"7" = "epilogue"}
// AGAIN: argus.region.begin "prologue" id 1{{$}}
// AGAIN: argus.region.begin "epilogue" id 7 {argus_probe}
