// The flash-attention example lowers to gfx942: row reductions (max, sum)
// combine a thread's slots, then the lanes of a wave that hold the same rows
// with xor shuffles (ds_swizzle), and fill the row layout through the
// kernel's shared scratch; broadcasts of the row statistics stay in
// registers (the slot is picked by comparing coordinates where it depends on
// the lane); convert_layout (the MFMA C layout to the A layout) goes through
// the scratch, in f16 (the f32 -> f16 convert after it is moved before it:
// 16 KiB instead of 32, so the kernel fits the 64 KiB LDS with probes on);
// exp is v_exp_f32 (llvm.amdgcn.exp2 of x*log2(e)), with no
// OCML call. The ISA assembles with llvm-mc and links with ld.lld.

// RUN: argus-opt %examples/flash_attention_fwd.mlir --argus-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: argus-opt %examples/flash_attention_fwd.mlir --argus-to-gfx942="dump=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o %}
// RUN: %if ld.lld %{ %ld_lld -shared %t.o -o %t.hsaco %}
// With probes (every region, both signals) it still fits and assembles.
// RUN: argus-opt %examples/flash_attention_fwd.mlir --argus-to-gfx942="probes=1 dump=%t.p.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=PROBES < %t.p.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.p.s -o %t.p.o %}

// GPU-DAG: memref.global "private" @__argus_xchg_flash_attention_fwd_f32 : memref<512xf32, 3>
// GPU-DAG: memref.global "private" @__argus_xchg_flash_attention_fwd_f16 : memref<8192xf16, 3>
// GPU-DAG: memref.global "private" @__argus_flash_attention_fwd_sQ : memref<8192xf16, 3>
// GPU: gpu.func @flash_attention_fwd(
// GPU: scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>)
// The row maximum: in-thread, then lanes xor 1, 2, 4, 8, 16 (not 32: that
// lane bit selects other rows), then through the scratch.
// GPU: arith.maximumf
// GPU: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c64_i32{{.*}} : f32
// GPU: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c64_i32{{.*}} : f32
// GPU-NOT: gpu.shuffle  xor %{{.*}}, %c32_i32
// GPU: memref.store {{.*}} : memref<512xf32, 3>
// GPU: gpu.barrier
// The exponential.
// GPU: rocdl.exp2
// The MFMA for P V after the layout conversion.
// GPU: arith.truncf {{.*}} : vector<32xf32> to vector<32xf16>
// GPU: memref.store {{.*}} : memref<8192xf16, 3>
// GPU: gpu.barrier
// GPU: vector.load {{.*}} : memref<8192xf16, 3>, vector<4xf16>
// GPU: gpu.barrier
// GPU: amdgpu.mfma 32x32x8
// GPU-NOT: argus.

// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ISA: flash_attention_fwd:
// ISA-DAG: v_mfma_f32_32x32x8_f16
// ISA-DAG: ds_swizzle_b32
// ISA-DAG: v_exp_f32
// ISA-NOT: __ocml
// ISA: .group_segment_fixed_size: 51200
// ISA: .private_segment_fixed_size: 0

// PROBES: s_memtime
// PROBES: .group_segment_fixed_size: 51232
