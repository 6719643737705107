// completion-site / completion-iteration: a forced completion wait right
// after an asynchronous site's issue, in the listed iterations of the
// innermost loop only, inside a probed region completion:SITE from the issue
// to the wait. site-trace: probed regions issue:SITE and wait:SITE around
// the issue and the op that completes it, nothing forced.
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="completion-site=cp.async-group@mainloop#0,cp.async-group@mainloop#0 completion-iteration=3,11" | FileCheck %s --check-prefix=CPASYNC
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-insert-probes="completion-site=tma@produce#1 completion-iteration=5" | FileCheck %s --check-prefix=TMA
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-insert-probes="completion-site=tma@produce#0 completion-iteration=5" | FileCheck %s --check-prefix=TMA0
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-insert-probes="completion-site=wgmma-group@consume#0 completion-iteration=0" | FileCheck %s --check-prefix=WGMMA
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-insert-probes="site-trace=tma@produce#0,tma@produce#1" | FileCheck %s --check-prefix=TRACE
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-insert-probes="completion-site=tma@produce#0 completion-iteration=2" | argus-opt --argus-to-nvptx="probes=1 probe-regions=completion:tma@produce#0 probe-signals=timeline format=isa dump=%t.ptx" -o /dev/null
// RUN: grep -c globaltimer %t.ptx | FileCheck %s --check-prefix=PTX
// RUN: argus-opt %s --argus-insert-probes="completion-site=cp.async-group@once#0 completion-iteration=0" | FileCheck %s --check-prefix=NOLOOP
// RUN: not argus-opt %s --argus-insert-probes="completion-site=cp.async-group@once#0 completion-iteration=1" 2>&1 | FileCheck %s --check-prefix=ERR-ITER
// RUN: not argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="completion-site=cp.async-group@mainloop#0" 2>&1 | FileCheck %s --check-prefix=ERR-PAIR
// RUN: not argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes="completion-site=tma@mainloop#0 completion-iteration=0" 2>&1 | FileCheck %s --check-prefix=ERR-NAME
// RUN: not argus-opt %s --argus-insert-probes="completion-site=tma@load#0 completion-iteration=0" 2>&1 | FileCheck %s --check-prefix=ERR-PHASE

// One wait for the site, taken in iterations 3 and 11 of the main loop; the
// region is probed (per iteration) and selected alone.
// CPASYNC-LABEL: func.func @gemm_pipelined_2stage
// CPASYNC-SAME: regions = {"8" = "completion:cp.async-group@mainloop#0"}
// CPASYNC: scf.for %[[KT:.*]] = %[[LB:[^ ]*]] to %{{.*}} step %[[STEP:[^ ]*]]
// CPASYNC: argus.region.begin "completion:cp.async-group@mainloop#0" id 8 {argus_probe}
// CPASYNC-NEXT: argus.copy_async
// CPASYNC-NEXT: argus.copy_async
// CPASYNC-NEXT: argus.commit_group
// CPASYNC-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CPASYNC-NEXT: %[[O3:.*]] = arith.muli %[[STEP]], %[[C3]]
// CPASYNC-NEXT: %[[T3:.*]] = arith.addi %[[LB]], %[[O3]]
// CPASYNC-NEXT: %[[E3:.*]] = arith.cmpi eq, %[[KT]], %[[T3]]
// CPASYNC-NEXT: %[[C11:.*]] = arith.constant 11 : index
// CPASYNC-NEXT: %[[O11:.*]] = arith.muli %[[STEP]], %[[C11]]
// CPASYNC-NEXT: %[[T11:.*]] = arith.addi %[[LB]], %[[O11]]
// CPASYNC-NEXT: %[[E11:.*]] = arith.cmpi eq, %[[KT]], %[[T11]]
// CPASYNC-NEXT: %[[ANY:.*]] = arith.ori %[[E3]], %[[E11]]
// CPASYNC-NEXT: scf.if %[[ANY]] {
// CPASYNC-NEXT: argus.wait_group 0
// CPASYNC-NEXT: }
// CPASYNC-NEXT: argus.region.end id 8 {argus_probe}

// The TMA copy's forced wait is on its own barrier slot, at the parity of
// the phase it completes: stage %i mod 4 -> (%i / 4) mod 2.
// TMA-LABEL: func.func @gemm_tma_ws
// TMA: %[[S:.*]] = arith.remui %[[I:[^,]*]], %c4 : index
// TMA: argus.tma_load
// TMA-NEXT: argus.region.begin "completion:tma@produce#1" id 3 {argus_probe}
// TMA-NEXT: argus.tma_load {{.*}}, %[[FULL:.*]][%[[S]]]
// TMA: scf.if
// TMA-NEXT: %[[C4:.*]] = arith.constant 4 : index
// TMA-NEXT: %[[U:.*]] = arith.divui %[[I]], %[[C4]]
// TMA-NEXT: %[[C2:.*]] = arith.constant 2 : index
// TMA-NEXT: %[[P:.*]] = arith.remui %[[U]], %[[C2]]
// TMA-NEXT: argus.mbarrier.wait %[[FULL]][%[[S]]], %[[P]]
// TMA-NEXT: }
// TMA-NEXT: argus.region.end id 3 {argus_probe}

// The first copy's phase completes only with the second copy's bytes: the
// forced wait follows both (a wait between them would never return).
// TMA0: argus.region.begin "completion:tma@produce#0" id 3 {argus_probe}
// TMA0-NEXT: argus.tma_load
// TMA0-NEXT: argus.tma_load
// TMA0: scf.if
// TMA0: argus.mbarrier.wait
// TMA0-NEXT: }
// TMA0-NEXT: argus.region.end id 3 {argus_probe}

// WGMMA: argus.region.begin "completion:wgmma-group@consume#0" id 3 {argus_probe}
// WGMMA-NEXT: argus.mma_async
// WGMMA-NEXT: argus.tag_assert
// WGMMA-NEXT: argus.wgmma_commit
// WGMMA: scf.if
// WGMMA-NEXT: argus.wgmma_wait 0{{$}}
// WGMMA-NEXT: }
// WGMMA-NEXT: argus.region.end id 3 {argus_probe}
// WGMMA-NEXT: argus.wgmma_wait 1

// The issue of each copy in the producer, and the consumer's wait on their
// ring for both (nested, one per site).
// TRACE-LABEL: func.func @gemm_tma_ws
// TRACE-SAME: regions = {"3" = "issue:tma@produce#0", "4" = "wait:tma@produce#0", "5" = "issue:tma@produce#1", "6" = "wait:tma@produce#1"}
// TRACE: argus.region.begin "issue:tma@produce#0" id 3 {argus_probe}
// TRACE-NEXT: argus.tma_load
// TRACE-NEXT: argus.region.end id 3 {argus_probe}
// TRACE-NEXT: argus.region.begin "issue:tma@produce#1" id 5 {argus_probe}
// TRACE-NEXT: argus.tma_load
// TRACE-NEXT: argus.region.end id 5 {argus_probe}
// TRACE: argus.region.begin "wait:tma@produce#0" id 4 {argus_probe}
// TRACE-NEXT: argus.region.begin "wait:tma@produce#1" id 6 {argus_probe}
// TRACE-NEXT: argus.mbarrier.wait %{{.*}}[%{{.*}}], %{{.*}}
// TRACE-NEXT: argus.region.end id 6 {argus_probe}
// TRACE-NEXT: argus.region.end id 4 {argus_probe}

// It lowers: one probed region, a timer read at each of its two markers.
// PTX: 2

// Outside a loop the forced wait is unconditional.
// NOLOOP-LABEL: func.func @no_loop
// NOLOOP: argus.region.begin "completion:cp.async-group@once#0" id 2 {argus_probe}
// NOLOOP-NEXT: argus.copy_async
// NOLOOP-NEXT: argus.commit_group
// NOLOOP-NEXT: argus.wait_group 0
// NOLOOP-NEXT: argus.region.end id 2 {argus_probe}

// ERR-ITER: error: argus-insert-probes: 'cp.async-group@once#0' is not in a loop: its only iteration is 0
// ERR-PAIR: error: argus-insert-probes: completion-site and completion-iteration are paired lists: 1 site(s), 0 iteration(s)
// ERR-NAME: error: argus-insert-probes: no asynchronous site named 'tma@mainloop#0'; hint: argus-opt --argus-print-sites lists them
// ERR-PHASE: error: argus-insert-probes: cannot force the completion of 'tma@load#0': its barrier phase is known only for a stage index `x mod 2` (the ring's stages); hint: index the ring with `counter % 2`

// A copy whose stage index is not `x mod S`: its phase is not derived.
!G = !argus.tile<64x64xbf16, global>
!S = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!M = !argus.tensor_map<64x64xbf16, swizzle = 128>
func.func @phase_unknown(%A: memref<?x?xbf16>, %K: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = argus.tensor_map "A" %A : memref<?x?xbf16> -> !M
  %buf = argus.alloc "s" : !argus.buffer<2 x !S>
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  scf.for %k = %c0 to %K step %c1 {
    argus.region.begin "load" id 1
    %s = arith.andi %k, %c1 : index
    %g = argus.view "A" %A[%c0, %c0] : memref<?x?xbf16> -> !G
    %t = argus.stage %buf[%s] : !argus.buffer<2 x !S>
    argus.mbarrier.arrive_expect_tx %full[%s], 8192 : !argus.mbarrier<2>
    argus.tma_load %g, %t, %m, %full[%s] : !G, !S, !M, !argus.mbarrier<2>
    argus.region.end id 1
  }
  return
}

// A cp.async group outside any loop.
func.func @no_loop(%A: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x <64x32xf16, shared, "(64,32):(32,1)">>
  argus.region.begin "once" id 1
  %g = argus.view "A" %A[%c0, %c0] : memref<?x?xf16> -> !argus.tile<64x32xf16, global>
  %t = argus.stage %buf[%c0] : !argus.buffer<1 x <64x32xf16, shared, "(64,32):(32,1)">>
  argus.copy_async %g, %t threads "((4,32),(8,2)):((512,1),(64,32))" : !argus.tile<64x32xf16, global>, !argus.tile<64x32xf16, shared, "(64,32):(32,1)">
  argus.commit_group
  argus.wait_group 0
  argus.region.end id 1
  return
}
