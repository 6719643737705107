// mma.sync fragments are loaded from shared memory with ldmatrix where every
// lane's rows are 16-byte rows of the shared layout (the swizzled layouts of
// the pipelined GEMMs included): A (K contiguous) with ldmatrix.x4, B (N
// contiguous) with ldmatrix.x4.trans; no scalar shared loads remain.
// ldmatrix=0 keeps the plain vector loads.

// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: argus-opt %S/Inputs/gemm_mma_sync.mlir --argus-to-nvptx="dump=%t.1.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="ldmatrix=0 dump=%t.off.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t.off.ptx

// GPU: scf.for
// GPU: nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2048xf16, strided<[1], offset: ?>, 3> -> vector<4x2xf16>
// GPU: nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<2048xf16, strided<[1], offset: ?>, 3> -> vector<4x2xf16>
// GPU: nvgpu.mma.sync

// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: ld.shared.u16
// PTX-NOT: ld.shared.b16

// OFF-NOT: ldmatrix
// OFF: mma.sync.aligned.m16n8k16

// min-blocks-per-sm bounds the registers through .minnctapersm.
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="min-blocks-per-sm=4 dump=%t.occ.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=OCC < %t.occ.ptx
// RUN: FileCheck %s --check-prefix=NOOCC < %t.ptx
// OCC: .minnctapersm 4
// NOOCC-NOT: .minnctapersm
