// The sm_90a flash attention example through the NVPTX pipeline:
// S = Q K^T reads K^T in place (the K stage is K-major for wgmma's B:
// imm-trans-a = imm-trans-b = 0), P V takes P from registers (the C
// fragment of S is the A fragment of P V: no exchange through shared
// memory) and V MN-major (imm-trans-b = 1); the softmax's row reductions
// are quad shuffles; exp2 is ex2.approx with no libdevice; the replicated
// LSE rows are stored once per element (a lane test, 2 stores of 32 bits
// next to the 32 of O).

// RUN: argus-opt %examples/sm90a/flash_attention_ws.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry flash_attention_ws(
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: ex2.approx
// CHECK: shfl.sync.bfly
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {{{.*}}}, {{.*}}, p, 1, 1, 1;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: lg2.approx
// CHECK-NOT: st.shared
// CHECK-NOT: __nv_
