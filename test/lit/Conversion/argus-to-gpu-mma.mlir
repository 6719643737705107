// The matrix-core patterns of argus-to-gpu (MmaLowering.cpp,
// WgmmaLowering.cpp, AsyncWgmmaLowering.cpp): argus.mma becomes the
// target's warp-level instruction (TargetInfo::emitMma: nvgpu.mma.sync on
// NVPTX, amdgpu.mfma on AMDGPU) once per repetition of the fragments, or
// wgmma.mma_async for a warpgroup instruction with B in shared memory;
// mma_async / wgmma_commit / wgmma_wait are sm_90a's wgmma groups.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

#FragA = #argus.frag<"mma.m16n8k16.f32.f16", a, warps = [1, 1]>
#FragB = #argus.frag<"mma.m16n8k16.f32.f16", b, warps = [1, 1]>
#FragC = #argus.frag<"mma.m16n8k16.f32.f16", c, warps = [1, 1]>
!RA = !argus.tile<16x16xf16, register, #FragA>
!RB = !argus.tile<16x16xf16, register, #FragB>
!RC = !argus.tile<16x16xf32, register, #FragC>
// Two n-repetitions: two mma.sync on 2-element rows.
// CHECK-LABEL: gpu.func @mma_sync
// CHECK-DAG: %[[A:.*]] = vector.shape_cast {{.*}} : vector<8xf16> to vector<4x2xf16>
// CHECK-DAG: %[[B:.*]] = vector.shape_cast {{.*}} : vector<4xf16> to vector<2x2xf16>
// CHECK-DAG: %[[C:.*]] = vector.shape_cast {{.*}} : vector<4xf32> to vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %[[C]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return
func.func @mma_sync()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90a">} {
  %a = argus.fill 1.0 : !RA
  %b = argus.fill 1.0 : !RB
  %c = argus.fill 0.0 : !RC
  %d = argus.mma "mma.m16n8k16.f32.f16" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

#FragA = #argus.frag<"v_mfma_f32_32x32x8_f16", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_32x32x8_f16", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_32x32x8_f16", c, warps = [1, 1]>
!RA = !argus.tile<32x16xf16, register, #FragA>
!RB = !argus.tile<16x32xf16, register, #FragB>
!RC = !argus.tile<32x32xf32, register, #FragC>
// Two k-repetitions: two MFMAs, the second on the first's result.
// CHECK-LABEL: gpu.func @mfma
// CHECK: %[[D0:.*]] = amdgpu.mfma 32x32x8 {{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: %[[C1:.*]] = vector.insert_strided_slice %[[D0]]
// CHECK: %[[ACC1:.*]] = vector.extract_strided_slice %[[C1]]
// CHECK: amdgpu.mfma 32x32x8 {{.*}} + %[[ACC1]] {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
func.func @mfma()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %a = argus.fill 1.0 : !RA
  %b = argus.fill 1.0 : !RB
  %c = argus.fill 0.0 : !RC
  %d = argus.mma "v_mfma_f32_32x32x8_f16" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

#FragA = #argus.frag<"mma.m16n8k8.f32.tf32", a, warps = [1, 1]>
#FragB = #argus.frag<"mma.m16n8k8.f32.tf32", b, warps = [1, 1]>
#FragC = #argus.frag<"mma.m16n8k8.f32.tf32", c, warps = [1, 1]>
!RA = !argus.tile<16x16xf32, register, #FragA>
!RB = !argus.tile<16x8xf32, register, #FragB>
!RC = !argus.tile<16x8xf32, register, #FragC>
// tf32 on f32 tiles: one f32 per register row, tf32 enabled; two
// k-repetitions chained through the accumulator. The operands are rounded
// to tf32 (to nearest, ties away) once per fragment element: 8 of A, 4 of B.
// CHECK-LABEL: gpu.func @mma_sync_tf32
// CHECK-COUNT-12: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NOT: nvvm.convert.float.to.tf32
// CHECK-DAG: %[[A:.*]] = vector.shape_cast {{.*}} : vector<4xf32> to vector<4x1xf32>
// CHECK-DAG: %[[B:.*]] = vector.shape_cast {{.*}} : vector<2xf32> to vector<2x1xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return
func.func @mma_sync_tf32()
    attributes {argus.kernel = #argus.kernel<block = [32], target = "sm_90">} {
  %a = argus.fill 1.0 : !RA
  %b = argus.fill 1.0 : !RB
  %c = argus.fill 0.0 : !RC
  %d = argus.mma "mma.m16n8k8.f32.tf32" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

#FragA = #argus.frag<"v_mfma_f32_16x16x4_f32", a, warps = [1, 1]>
#FragB = #argus.frag<"v_mfma_f32_16x16x4_f32", b, warps = [1, 1]>
#FragC = #argus.frag<"v_mfma_f32_16x16x4_f32", c, warps = [1, 1]>
!RA = !argus.tile<16x8xf32, register, #FragA>
!RB = !argus.tile<8x16xf32, register, #FragB>
!RC = !argus.tile<16x16xf32, register, #FragC>
// Full fp32 MFMA: scalar A and B operands, two k-repetitions.
// CHECK-LABEL: gpu.func @mfma_f32
// CHECK: amdgpu.mfma 16x16x4 {{.*}} : f32, f32, vector<4xf32>
// CHECK: amdgpu.mfma 16x16x4 {{.*}} : f32, f32, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
func.func @mfma_f32()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "gfx942">} {
  %a = argus.fill 1.0 : !RA
  %b = argus.fill 1.0 : !RB
  %c = argus.fill 0.0 : !RC
  %d = argus.mma "v_mfma_f32_16x16x4_f32" %a, %b, %c : !RA, !RB, !RC
  return
}

// -----

#FragA = #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>
#FragC = #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>
!RA = !argus.tile<64x32xf16, register, #FragA>
!SB = !argus.tile<32x64xf16, shared, "Sw<3,3,3> o (32,64):(64,1)">
!RC = !argus.tile<64x64xf32, register, #FragC>
// A warpgroup instruction with B in shared memory: fence the async proxy,
// one wgmma per k-step (two here), committed and waited for at once.
// CHECK-LABEL: gpu.func @wgmma
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK: gpu.barrier
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
func.func @wgmma()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %a = argus.fill 1.0 : !RA
  %z = argus.fill 0.0 : !RC
  %d = argus.mma "wgmma.m64n64k16.f32.f16" %a, %b, %z : !RA, !SB, !RC
  return
}

// -----

#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16.ss", c, warps = [1, 1]>
!SA = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
// mma_async: the wgmmas of the k-steps without commit or wait; then the
// group's commit and a wait that ties the accumulator registers.
// CHECK-LABEL: gpu.func @mma_async
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: wgmma.commit_group
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK: "wgmma.wait_group.sync.aligned 0;"
func.func @mma_async()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16.ss" %a, %b, %z : !SA, !SB, !RC
  argus.wgmma_commit
  %r = argus.wgmma_wait 0, %acc : !RC
  return
}

// -----

#FragA = #argus.frag<"wgmma.m64n128k16.f32.bf16", a, warps = [1, 1]>
#FragC = #argus.frag<"wgmma.m64n128k16.f32.bf16", c, warps = [1, 1]>
!RA = !argus.tile<64x64xbf16, register, #FragA>
!SB = !argus.tile<64x128xbf16, shared, "Sw<3,3,3> o (64,(64,2)):(64,(1,4096))">
!RC = !argus.tile<64x128xf32, register, #FragC>
// A in registers: the wgmma reads them until its group retires, so an empty
// asm block takes every A register (4 k-steps x 4) right before the wait
// that retires the group (the depth-1 wait after one commit does not; the
// one after the second commit does), and nowhere else.
// CHECK-LABEL: gpu.func @mma_async_register_a
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: wgmma A registers live
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NOT: wgmma A registers live
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT: wgmma A registers live
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "// wgmma A registers live until the wait", "r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r"
// CHECK-NOT: wgmma A registers live
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT: wgmma A registers live
// CHECK: return
func.func @mma_async_register_a(%a: !RA)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB>
  %z = argus.fill 0.0 : !RC
  %acc = argus.mma_async "wgmma.m64n128k16.f32.bf16" %a, %b, %z : !RA, !SB, !RC
  argus.wgmma_commit
  argus.wgmma_wait 1
  argus.wgmma_commit
  %r = argus.wgmma_wait 1, %acc : !RC
  return
}
