// The sm_90a pipelined GEMM examples lower to gpu/nvgpu/nvvm, then to PTX
// that ptxas assembles: cp.async for copy_async, commit/wait groups,
// bar.sync, mma.sync m16n8k16.

// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="dump=%t.2.ptx" | FileCheck %s --check-prefix=BIN
// RUN: FileCheck %s --check-prefixes=PTX,PTX2 < %t.2.ptx
// RUN: argus-opt %examples/gemm_pipelined_3stage.mlir --argus-to-nvptx="dump=%t.3.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefixes=PTX,PTX3 < %t.3.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.2.ptx -o %t.2.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.3.ptx -o %t.3.cubin %}

// GPU: gpu.module @argus_sm_90a [#nvvm.target<O = 3, chip = "sm_90a">]
// Two stages of 64x32 and 32x64 f16 tiles.
// GPU-DAG: memref.global "private" @__argus_gemm_pipelined_2stage_sA : memref<4096xf16, 3>
// GPU-DAG: memref.global "private" @__argus_gemm_pipelined_2stage_sB : memref<4096xf16, 3>
// GPU: gpu.func @gemm_pipelined_2stage(
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>
// The A copy: Sw<2,3,2> on the shared offset (bits 5-6 into bits 3-4).
// GPU: %[[AND:.*]] = arith.andi %{{.*}}, %c96
// GPU: %[[SH:.*]] = arith.shrui %[[AND]], %c2
// GPU: %[[OFF:.*]] = arith.xori %{{.*}}, %[[SH]]
// GPU: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%[[OFF]]], 8 {bypassL1}
// GPU: nvvm.cp.async.commit.group
// GPU: scf.for {{.*}} -> (vector<32xf32>)
// GPU: nvvm.cp.async.wait.group 0
// GPU: gpu.barrier
// GPU: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// GPU-NOT: argus.

// BIN: gpu.binary @argus_sm_90a
// BIN-SAME: #nvvm.target<O = 3, chip = "sm_90a">

// PTX: .target sm_90a
// PTX: .entry gemm_pipelined_{{[23]}}stage(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX2: cp.async.wait_group 0;
// PTX3: cp.async.wait_group 1;
// PTX: bar.sync 0;
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
