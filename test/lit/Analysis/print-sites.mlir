// The measured regions and their sites (--argus-print-sites; argus.measure
// reads the same analysis in process).
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-print-sites -o /dev/null | FileCheck %s --check-prefix=CPASYNC
// RUN: argus-opt %examples/flash_attention_fwd.mlir --argus-print-sites -o /dev/null | FileCheck %s --check-prefix=LOOP
// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-print-sites -o /dev/null | FileCheck %s --check-prefix=TMA
// RUN: argus-opt %s --argus-print-sites -split-input-file -verify-diagnostics -o /dev/null

// The main loop's cp.async group (issued at line 120, committed at 122) is
// completed by the wait_group at the top of the next iteration (line 105):
// the search wraps around the loop body.
// CPASYNC-LABEL: "async_sites": {
// CPASYNC: "issue": [
// CPASYNC: "line": 120,
// CPASYNC-NEXT: "op": "argus.copy_async"
// CPASYNC: "completion": {
// CPASYNC: "line": 105,
// CPASYNC-NEXT: "op": "argus.wait_group"
// It completes one iteration after its issue (wait_group 0 before the
// issue in the body).
// CPASYNC: "distance": 1,
// CPASYNC-NEXT: "in_loop": true,
// CPASYNC-NEXT: "kind": "cp.async-group",
// CPASYNC-NEXT: "region": "issue",
// CPASYNC-NEXT: "site": "cp.async-group@issue#0"
// CPASYNC: "pipeline_depth": 2,

// The key loop's header spans two lines (scf.for ... / iter_args(...) {):
// the regions in its body are in a loop, kv_loop around it is not.
// LOOP-LABEL: "regions": [
// LOOP: "id": 2,
// LOOP-NEXT: "in_loop": false,
// LOOP-NEXT: "name": "kv_loop",
// LOOP-NEXT: "parent": null,
// LOOP: "id": 3,
// LOOP-NEXT: "in_loop": true,
// LOOP-NEXT: "name": "load_kv",
// LOOP-NEXT: "parent": "kv_loop",

// Each TMA copy completes at the mbarrier.wait on its own ring (%full, line
// 140 in the consumer role), not at the producer's earlier wait on %empty
// (line 108), which comes first around the loop; the regions carry their
// warp roles.
// TMA-LABEL: "async_sites": {
// TMA: "produce": [
// TMA: "line": 116,
// TMA-NEXT: "op": "argus.tma_load"
// TMA: "completion": {
// TMA: "line": 140,
// TMA-NEXT: "op": "argus.mbarrier.wait"
// TMA: "site": "tma@produce#0"
// TMA: "line": 117,
// TMA-NEXT: "op": "argus.tma_load"
// TMA: "completion": {
// TMA: "line": 140,
// TMA: "site": "tma@produce#1"
// TMA: "pipeline_depth": 4,
// TMA: "name": "produce",
// TMA: "role": "producer",
// TMA-NEXT: "role_warps": [
// TMA-NEXT: 0,
// TMA-NEXT: 4
// TMA: "name": "consume",
// TMA: "role": "consumer",

// A measurement names regions: one name, one ID in the whole module.
func.func @a() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  argus.region.begin "body" id 1
  argus.region.end id 1
  return
}
func.func @b() attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  // expected-error @below {{region 'body' has two IDs (1 and 2): a measurement names regions, so one name needs one ID}}
  argus.region.begin "body" id 2
  argus.region.end id 2
  return
}
