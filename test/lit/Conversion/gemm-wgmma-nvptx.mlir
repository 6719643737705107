// The wgmma GEMM example: wgmma.m64n128k16 with A from registers (loaded
// with ldmatrix) and B from the 128-byte-swizzled, N-contiguous shared tile
// through a matrix descriptor (start >> 4 | LBO >> 4 << 16 | SBO >> 4 << 32
// | 128B swizzle << 62, imm-trans-b = 1). Per k-slab: fence.proxy.async +
// barrier, wgmma.fence, two wgmma.mma_async (k-steps 2048 bytes apart),
// commit, wait 0. Swizzled shared tiles are 1024-byte aligned.

// RUN: argus-opt %examples/gemm_wgmma.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/gemm_wgmma.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// A B layout that is not the canonical one is refused.
// RUN: sed 's/"Sw<3,3,3> o (32,(64,2)):(64,(1,2048))"/"(32,128):(128,1)"/' %examples/gemm_wgmma.mlir > %t.bad.mlir
// RUN: not argus-opt %t.bad.mlir --argus-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// GPU-DAG: memref.global "private" @__argus_gemm_wgmma_sB : memref<4096xf16, 3> {alignment = 1024 : i64}
// GPU: scf.for {{.*}} -> (vector<64xf32>)
// GPU: nvgpu.ldmatrix
// GPU: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;"
// GPU-NEXT: gpu.barrier
// GPU: memref.extract_aligned_pointer_as_index
// GPU: arith.constant 4611686293322072064 : i64
// GPU: "wgmma.fence.sync.aligned;"
// GPU-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// GPU: wgmma.commit_group.sync.aligned;\0Awgmma.wait_group.sync.aligned 0;
// GPU-NOT: argus.

// PTX: .shared .align 1024 .b8 __argus_gemm_wgmma_sB[8192];
// PTX: fence.proxy.async.shared::cta;
// PTX: bar.sync 0;
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;

// BAD: error: 'argus.mma' op wgmma lowering needs B in a 128-byte-swizzled layout
