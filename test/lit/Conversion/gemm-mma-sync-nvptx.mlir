// A plain (not pipelined) sm_90a GEMM (Inputs/gemm_mma_sync.mlir, the
// structure of the gfx942 example with mma.sync) lowers to PTX; with
// format=bin the serializer runs ptxas and returns a cubin.

// RUN: argus-opt %S/Inputs/gemm_mma_sync.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: %if ptxas %{ argus-opt %S/Inputs/gemm_mma_sync.mlir --argus-to-nvptx="format=bin toolkit=%cuda_root dump=%t.bin" -o /dev/null %}
// RUN: %if ptxas %{ head -c 4 %t.bin | FileCheck %s --check-prefix=ELF %}

// CHECK: .entry gemm_mma_sync(
// Synchronous copies: 16-byte global loads, 16-byte shared stores.
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0;
// 2 x 4 repetitions x 2 k-steps per slab.
// CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// The C fragment's two adjacent columns are stored together.
// CHECK: st.global.v2.b32
// CHECK-NOT: cp.async

// ELF: ELF
