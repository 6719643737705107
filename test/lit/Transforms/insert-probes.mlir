// argus-insert-probes marks the selected regions' markers and records the
// probe plan on the kernel; markers stay where they are.

// RUN: argus-opt %s --argus-insert-probes | FileCheck %s --check-prefix=ALL
// RUN: argus-opt %s --argus-insert-probes="regions=outer,3 capacity=64 scope-warps=0,2 scope-blocks=5 iteration-window=2:6" | FileCheck %s --check-prefix=SEL
// RUN: argus-opt %s --argus-insert-probes="signals=duration" | FileCheck %s --check-prefix=DUR
// RUN: argus-opt %s --argus-insert-probes="signals=timeline clock=clock64" | FileCheck %s --check-prefix=TL
// RUN: not argus-opt %s --argus-insert-probes="regions=nope" 2>&1 | FileCheck %s --check-prefix=ERR1
// RUN: not argus-opt %s --argus-insert-probes="signals=energy" 2>&1 | FileCheck %s --check-prefix=ERR2
// RUN: not argus-opt %s --argus-insert-probes="iteration-window=5:2" 2>&1 | FileCheck %s --check-prefix=ERR3

func.func @k(%n: index) attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  argus.region.begin "outer" id 1
  scf.for %i = %c0 to %n step %c1 {
    argus.region.begin "body" id 2
    argus.region.end id 2
    argus.region.begin "other" id 3
    argus.barrier
    argus.region.end id 3
  }
  argus.region.end id 1
  return
}

// ALL: argus_probes = #argus.probe_plan<capacity = 4096, clock = "globaltimer", regions = {"1" = "outer", "2" = "body", "3" = "other"}, warps = [], blocks = [], iteration_lo = 0, iteration_hi = -1, warp_size = 32, warps_per_block = 2>
// ALL: argus.region.begin "outer" id 1 {argus_probe}
// ALL: argus.region.begin "body" id 2 {argus_probe}
// ALL: argus.region.end id 2 {argus_probe}
// ALL: argus.region.begin "other" id 3 {argus_probe}
// ALL-NEXT: argus.barrier
// ALL-NEXT: argus.region.end id 3 {argus_probe}
// ALL: argus.region.end id 1 {argus_probe}

// SEL: argus_probes = #argus.probe_plan<capacity = 64, clock = "globaltimer", regions = {"1" = "outer", "3" = "other"}, warps = [0, 2], blocks = [5], iteration_lo = 2, iteration_hi = 6, warp_size = 32, warps_per_block = 2>
// SEL: argus.region.begin "outer" id 1 {argus_probe}
// SEL: argus.region.begin "body" id 2{{$}}
// SEL: argus.region.end id 2{{$}}
// SEL: argus.region.begin "other" id 3 {argus_probe}
// SEL: argus.region.end id 3 {argus_probe}
// SEL: argus.region.end id 1 {argus_probe}

// Duration only: regions outside loops.
// DUR: argus.region.begin "outer" id 1 {argus_probe}
// DUR: argus.region.begin "body" id 2{{$}}
// DUR: argus.region.begin "other" id 3{{$}}
// DUR: argus.region.end id 1 {argus_probe}

// Timeline only: regions inside loops, per iteration.
// TL: clock = "clock64"
// TL: argus.region.begin "outer" id 1{{$}}
// TL: argus.region.begin "body" id 2 {argus_probe}
// TL: argus.region.begin "other" id 3 {argus_probe}
// TL: argus.region.end id 1{{$}}

// ERR1: error: argus-insert-probes: no region named or numbered 'nope' in any kernel
// ERR2: error: argus-insert-probes: unknown signal 'energy' (expected duration or timeline)
// ERR3: error: argus-insert-probes: iteration-window must be 'lo:hi' with 0 <= lo <= hi, got '5:2'
