// The gfx942 GEMM example lowers to gpu/amdgpu, then to AMDGPU assembly that
// llvm-mc assembles and ld.lld links into a code object.

// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="dump=%t.s" | FileCheck %s --check-prefix=BIN
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o %}
// RUN: %if ld.lld %{ %ld_lld -shared %t.o -o %t.hsaco %}

// GPU: module attributes {argus.launch = {gemm_mfma = #argus.kernel_launch<chip = "gfx942", block = [256, 1, 1], dynamic_smem = 0{{.*}}>}, gpu.container_module}
// GPU: gpu.module @argus_gfx942 [#rocdl.target<O = 3, chip = "gfx942">]
// GPU-DAG: memref.global "private" @__argus_gemm_mfma_sA : memref<4096xf16, 3> {alignment = 128 : i64}
// GPU-DAG: memref.global "private" @__argus_gemm_mfma_sB : memref<4096xf16, 3> {alignment = 128 : i64}
// GPU: gpu.func @gemm_mfma(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) kernel
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>
// The accumulator: 128x128 f32 over 256 threads = 64 slots per thread.
// GPU: scf.for {{.*}} iter_args({{.*}}) -> (vector<64xf32>)
// Vectorized global loads and shared stores (8 x f16 = 16 bytes).
// GPU: vector.load {{.*}} {alignment = 16 : i64} : memref<128x32xf16, strided<[?, 1], offset: ?>, 1>, vector<8xf16>
// GPU: vector.store {{.*}} {alignment = 16 : i64} : memref<4096xf16, strided<[1], offset: ?>, 3>, vector<8xf16>
// GPU: gpu.barrier
// GPU: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// No argus ops, tags or markers are left.
// GPU-NOT: argus.

// BIN: gpu.binary @argus_gfx942
// BIN-SAME: #rocdl.target<O = 3, chip = "gfx942">

// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ISA: gemm_mfma:
// ISA: s_barrier
// 2x2 repetitions x 4 k-steps per slab = 16 MFMAs in the loop.
// ISA-COUNT-16: v_mfma_f32_32x32x8_f16
