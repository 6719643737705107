// The warp-specialized Hopper GEMM example through --argus-to-nvptx: tensor
// maps by value after the user's arguments, 196672 bytes of dynamic shared
// memory (4 x 16 KiB A, 4 x 32 KiB B, 2 rings of 4 mbarriers), the producer
// (setmaxnreg.dec 40) issuing one A box and four B boxes per slab on
// full[s], the consumers (setmaxnreg.inc 232) issuing four wgmma per slab
// with the 128 accumulators in place, 32-bit stores of bf16 pairs. ptxas
// keeps everything in registers and honours setmaxnreg.

// RUN: argus-opt %examples/sm90a/gemm_tma_ws.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=EPI < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK: .extern .shared .align 1024 .b8 __argus_dynamic_smem[];
// CHECK-LABEL: .entry gemm_tma_ws(
// CHECK: .param .u64 gemm_tma_ws_param_11,
// CHECK-NEXT: .param .align 64 .b8 gemm_tma_ws_param_12[128],
// CHECK-NEXT: .param .align 64 .b8 gemm_tma_ws_param_13[128]
// CHECK: .maxntid 384, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: prefetch.tensormap
// CHECK-COUNT-4: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-4: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 256;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r{{[0-9]+}}], 49152;
// CHECK-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared::cta.b64 _,
// The epilogue (placed before the loop body): bf16 pairs, 32-bit stores.
// EPI: wgmma.wait_group.sync.aligned 0;
// EPI: cvt.rn.bf16x2.f32
// EPI: st.global.b32

// JSON: "gemm_tma_ws": {
// JSON: "dynamic_smem": 196672,
// JSON: "arg": 0,
// JSON: "box": [
// JSON-NEXT: 128,
// JSON-NEXT: 64
// JSON: "param": 12,
// JSON: "arg": 1,
// JSON: "param": 13,

// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
