// The MoE grouped GEMM lowers to gfx942: the routing reads block_expert with
// memref.load + index_cast, the token ids are a register tile (every thread
// holds all 64), and gather_view accesses read row ids[r] of X (and write
// row ids[r] of Y) with the row taken from the ids vector; the products are
// v_mfma_f32_32x32x8_bf16.

// RUN: argus-opt %examples/moe_grouped_gemm.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/moe_grouped_gemm.mlir --argus-to-gfx942="dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o %}
// RUN: %if ld.lld %{ %ld_lld -shared %t.o -o %t.hsaco %}

// GPU: gpu.func @moe_grouped_gemm(
// GPU: %[[E:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32, 1>
// GPU: arith.index_cast %[[E]] : i32 to index
// The ids: 16-byte loads into a vector<64xi32> per thread.
// GPU: vector.load {{.*}} : memref<64xi32, strided<[1], offset: ?>, 1>, vector<4xi32>
// GPU: scf.for
// Gathered X rows: row = ids[r], 16-byte loads from the whole X.
// GPU: %[[ID:.*]] = vector.extract %{{.*}}[%{{.*}}] : i32 from vector<64xi32>
// GPU: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// GPU: vector.load %{{.*}}[%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<?x4096xbf16, 1>, vector<8xbf16>
// GPU: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// Scattered Y rows.
// GPU: vector.extract %{{.*}}[%{{.*}}] : i32 from vector<64xi32>
// GPU: memref.store {{.*}} : memref<?x?xf32, 1>
// GPU-NOT: argus.
// GPU-NOT: unrealized_conversion_cast {{.*}}argus.gather

// ISA: moe_grouped_gemm:
// ISA: v_mfma_f32_32x32x8_bf16
// ISA: .private_segment_fixed_size: 0
