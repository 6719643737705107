// A probe plan made by argus-insert-probes (scope, iteration window,
// capacity, regions made for sites) reaches the PTX through
// --argus-to-nvptx="probes=1": with no selection of its own the pipeline
// keeps the kernel's plan (keep-plans); its probe-scope-* options make the
// same selection in one call. Without either, every warp and iteration
// would write records.

// A second run with keep-plans leaves the first plan and markers as they are.
// RUN: argus-opt %s --argus-insert-probes="regions=body scope-warps=1 iteration-window=1:3 capacity=64" --argus-insert-probes="keep-plans=1" | FileCheck %s --check-prefix=KEEP
// Without it, the second run's defaults replace them.
// RUN: argus-opt %s --argus-insert-probes="regions=body scope-warps=1 iteration-window=1:3 capacity=64" --argus-insert-probes | FileCheck %s --check-prefix=REPLACE

// RUN: argus-opt %s --argus-insert-probes="scope-warps=1 iteration-window=1:3" --argus-to-nvptx="probes=1 dump=%t.kept.ptx" -o /dev/null
// RUN: argus-opt %s --argus-to-nvptx="probes=1 probe-scope-warps=1 probe-iteration-window=1:3 dump=%t.options.ptx" -o /dev/null
// RUN: argus-opt %s --argus-to-nvptx="probes=1 dump=%t.all.ptx" -o /dev/null
// RUN: diff %t.kept.ptx %t.options.ptx
// RUN: not diff %t.kept.ptx %t.all.ptx > /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.kept.ptx
// RUN: not argus-opt %s --argus-to-nvptx="probes=1 probe-iteration-window=3:1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

func.func @k(%n: index) attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  argus.region.begin "setup" id 1
  argus.barrier
  argus.region.end id 1
  scf.for %i = %c0 to %n step %c1 {
    argus.region.begin "body" id 7
    argus.barrier
    argus.region.end id 7
  }
  return
}

// KEEP-LABEL: func.func @k
// KEEP-SAME: argus_probes = #argus.probe_plan<capacity = 64, clock = "globaltimer", regions = {"7" = "body"}, warps = [1], blocks = [], iteration_lo = 1, iteration_hi = 3
// KEEP: argus.region.begin "setup" id 1{{$}}
// KEEP: argus.region.begin "body" id 7 {argus_probe}

// REPLACE-LABEL: func.func @k
// REPLACE-SAME: argus_probes = #argus.probe_plan<capacity = 4096, clock = "globaltimer", regions = {"1" = "setup", "7" = "body"}, warps = [], blocks = [], iteration_lo = 0, iteration_hi = -1
// REPLACE: argus.region.begin "setup" id 1 {argus_probe}

// The probe buffer is the kernel's last parameter; the timer is read.
// PTX-LABEL: .entry k(
// PTX: globaltimer

// ERR: iteration-window must be 'lo:hi' with 0 <= lo <= hi, got '3:1'
