// The sm_90a asynchronous ops lowered to NVPTX, one kernel per pattern:
// tensor-map parameters, mbarrier rings, TMA copies (one and several
// boxes), the proxy fence, warp roles (with and without a register budget),
// mma_async (.ss and A in registers; 16-bit and tf32), wgmma_commit and
// wgmma_wait.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// Over 48 KiB (@dynamic_64k): one extern shared array, before the kernels.
// PTX: .extern .shared .align 1024 .b8 __argus_dynamic_smem[];
// The launch facts (kernels in name order).
// JSON: "dynamic_64k": {
// JSON: "dynamic_smem": 65536

!TA0 = !argus.tensor_map<64x64xbf16, swizzle = 128>

// The map is the generic address of a by-value parameter after the user's
// arguments; thread 0 prefetches it.
// CHECK-LABEL: gpu.func @tensor_map_param(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64})
// CHECK-SAME: argus_tensor_maps = [#argus.tensor_map_param<param = 4, name = "A", arg = 0, box = [64, 64], element = bf16, swizzle = 128, oob_fill = "zero", pass = "value">]
// CHECK: scf.if
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "prefetch.tensormap [$0];", "l" %[[MAP]]
// PTX-LABEL: .entry tensor_map_param(
// PTX: .param .align 64 .b8 tensor_map_param_param_4[128]
// PTX: cvta.param.u64
// PTX: prefetch.tensormap
// JSON: "tensor_map_param": {
// JSON: "param": 4,
// JSON: "pass": "value",
func.func @tensor_map_param(%A: memref<?x?xbf16>, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA0
  return
}

// -----

// Thread 0 initialises every stage, fences the initialisation after the
// last ring, then one block barrier; arrive in every thread, expect_tx in
// the first thread, a try_wait loop in every thread; barrier[s] at 8 s.
// CHECK-LABEL: gpu.func @mbarrier_ops(
// CHECK: memref.get_global @__argus_mbarrier_ops_full : memref<2xi64, 3>
// CHECK: scf.if
// CHECK-COUNT-2: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK-NOT: fence.mbarrier_init
// CHECK: memref.get_global @__argus_mbarrier_ops_empty : memref<2xi64, 3>
// CHECK: scf.if
// CHECK-COUNT-2: "mbarrier.init.shared::cta.b64 [$0], 128;"
// CHECK: "fence.mbarrier_init.release.cluster;"
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.muli %{{.*}}, %c8_i32
// CHECK: "mbarrier.arrive.shared::cta.b64 _, [$0];"
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], 8192;"
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;
// CHECK-SAME: "r,r"
// PTX-LABEL: .entry mbarrier_ops(
// PTX: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 1;
// PTX: fence.mbarrier_init.release.cluster;
// PTX: bar.sync 0;
// PTX: mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];
// PTX: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r{{[0-9]+}}], 8192;
// PTX: mbarrier.try_wait.parity.shared::cta.b64 p, [%r{{[0-9]+}}], %r{{[0-9]+}};
func.func @mbarrier_ops(%s: index, %parity: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %full = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  %empty = argus.mbarrier.alloc "empty" arrivals 128 : !argus.mbarrier<2>
  argus.mbarrier.arrive %empty[%s] : !argus.mbarrier<2>
  argus.mbarrier.arrive_expect_tx %full[%s], 8192 : !argus.mbarrier<2>
  argus.mbarrier.wait %full[%s], %parity : !argus.mbarrier<2>
  return
}

// -----

!TA2 = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SA2 = !argus.tile<64x64xbf16, shared, "Sw<3,3,3> o (64,64):(64,1)">
!GA2 = !argus.tile<64x64xbf16, global>

// One box: one copy from the first thread, coordinates innermost first
// (column, row) from the view's offsets.
// CHECK-LABEL: gpu.func @tma_one_box(
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[COL:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r" %{{.*}}, %{{.*}}, %[[COL]], %[[ROW]], %{{.*}}
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: gpu.return
// PTX-LABEL: .entry tma_one_box(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
func.func @tma_one_box(%A: memref<?x?xbf16>, %m: index, %k: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "A" %A : memref<?x?xbf16> -> !TA2
  %buf = argus.alloc "sA" : !argus.buffer<2 x !SA2>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<2>
  %s = argus.stage %buf[%c0] : !argus.buffer<2 x !SA2>
  %g = argus.view "A" %A[%m, %k] : memref<?x?xbf16> -> !GA2
  argus.mbarrier.arrive_expect_tx %bar[%c0], 8192 : !argus.mbarrier<2>
  argus.tma_load %g, %s, %map, %bar[%c0] : !GA2, !SA2, !TA2, !argus.mbarrier<2>
  return
}

// -----

!TB3 = !argus.tensor_map<64x64xbf16, swizzle = 128>
!SB3 = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!GB3 = !argus.tile<64x256xbf16, global>

// Four boxes along the columns: box j lands 8192 j bytes after the tile and
// reads columns k + 64 j.
// CHECK-LABEL: gpu.func @tma_boxes(
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[COL:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.if
// CHECK: "r,l,r,r,r" %[[D0:.*]], %[[MAP:.*]], %[[COL]], %[[ROW]], %[[BAR:.*]] :
// CHECK: %[[D1:.*]] = arith.addi %[[D0]], %c8192_i32
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c64_i32
// CHECK: "r,l,r,r,r" %[[D1]], %[[MAP]], %[[C1]], %[[ROW]], %[[BAR]] :
// CHECK: arith.addi %[[D0]], %c16384_i32
// CHECK: arith.addi %[[COL]], %c128_i32
// CHECK: arith.addi %[[D0]], %c24576_i32
// CHECK: arith.addi %[[COL]], %c192_i32
// CHECK: cp.async.bulk.tensor.2d
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: gpu.return
// PTX-LABEL: .entry tma_boxes(
// PTX-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
func.func @tma_boxes(%B: memref<?x?xbf16>, %k: index, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "B" %B : memref<?x?xbf16> -> !TB3
  %buf = argus.alloc "sB" : !argus.buffer<1 x !SB3>
  %bar = argus.mbarrier.alloc "full" arrivals 1 : !argus.mbarrier<1>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SB3>
  %g = argus.view "B" %B[%k, %n] : memref<?x?xbf16> -> !GB3
  argus.mbarrier.arrive_expect_tx %bar[%c0], 32768 : !argus.mbarrier<1>
  argus.tma_load %g, %s, %map, %bar[%c0] : !GB3, !SB3, !TB3, !argus.mbarrier<1>
  return
}

// -----

// CHECK-LABEL: gpu.func @fence(
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.shared::cta;", ""
// PTX-LABEL: .entry fence(
// PTX: fence.proxy.async.shared::cta;
func.func @fence()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.fence_proxy_async
  return
}

// -----

// Roles without a register budget: a warp-uniform if / else-if chain on
// the warp index (shuffled from lane 0); inside, thread ids are role-local
// (the copy layout's 64 threads are the role's: it reads tid - 64).
!G5 = !argus.tile<64x8xf16, global>
!S5 = !argus.tile<64x8xf16, shared, "(64,8):(8,1)">
// CHECK-LABEL: gpu.func @role_plain(
// CHECK-NOT: nvvm.maxntid
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[W32:.*]] = arith.index_castui %[[W]] : index to i32
// CHECK: %[[WU:.*]], %{{.*}} = gpu.shuffle idx %[[W32]], %c0_i32, %c32_i32 : i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[WU]], %c2_i32
// CHECK: scf.if %[[IN0]] {
// CHECK-NEXT: } else {
// CHECK: %[[HI:.*]] = arith.cmpi ult, %[[WU]], %c4_i32
// CHECK: %[[LO:.*]] = arith.cmpi uge, %[[WU]], %c2_i32
// CHECK: %[[IN1:.*]] = arith.andi %[[LO]], %[[HI]]
// CHECK: scf.if %[[IN1]] {
// CHECK-NOT: setmaxnreg
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[LOCAL:.*]] = arith.subi %[[T]], %c64
// CHECK: arith.remui %[[LOCAL]], %c64
// CHECK: } {argus_role = array<i64: 64, 64, 2>}
// CHECK: } {argus_role = array<i64: 0, 64, 1>}
func.func @role_plain(%X: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %buf = argus.alloc "s" : !argus.buffer<1 x !S5>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !S5>
  argus.role "idle" warps 0 to 2 {
  }
  argus.role "loader" warps 2 to 4 {
    %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !G5
    argus.copy %x, %s threads "(64,8):(8,1)" : !G5, !S5
  }
  return
}

// -----

// A register budget per role: the kernel starts with 65536 / 384 -> 168
// registers (.maxntid 384, .minnctapersm 1), so 40 decreases and 232
// increases.
// CHECK-LABEL: gpu.func @role_regs(
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK: scf.if
// CHECK-NEXT: "setmaxnreg.dec.sync.aligned.u32 40;"
// CHECK: } else {
// CHECK: scf.if
// CHECK-NEXT: "setmaxnreg.inc.sync.aligned.u32 232;"
// PTX-LABEL: .entry role_regs(
// PTX: .maxntid 384, 1, 1
// PTX: .minnctapersm 1
// PTX: shfl.sync.idx.b32
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
func.func @role_regs()
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 regs 40 {
  }
  argus.role "consumer" warps 4 to 12 regs 232 {
  }
  return
}

// -----

// mma_async .ss over two warpgroups: the A descriptor (K-major SW128: LBO 1,
// SBO 1024 >> 4 = 64) advances by the warpgroup (64 rows = 8192 bytes = 512
// units) and by 32 bytes (2 units) per k-step; the B descriptor (MN-major:
// LBO 8192 >> 4, SBO 1024 >> 4) by 2048 bytes (128 units) per k-step. One
// wgmma.fence, four wgmma.mma_async (imm-trans-a 0, imm-trans-b 1), no
// commit and no wait; then the commit, a wait without values, and a wait
// with the accumulators tied.
#FragC7 = #argus.frag<"wgmma.m64n256k16.f32.bf16.ss", c, warps = [2, 1]>
!SA7 = !argus.tile<128x64xbf16, shared, "Sw<3,3,3> o (128,64):(64,1)">
!SB7 = !argus.tile<64x256xbf16, shared, "Sw<3,3,3> o (64,(64,4)):(64,(1,4096))">
!RC7 = !argus.tile<128x256xf32, register, #FragC7>
// CHECK-LABEL: gpu.func @mma_async_ss(
// CHECK: %[[B0:.*]] = arith.ori %{{.*}}, %c4611686293338849280_i64
// CHECK: %[[A0:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[L:.*]] = arith.subi %[[T]], %c128
// CHECK: %[[WG:.*]] = arith.divui %[[L]], %c128
// CHECK: %[[WG64:.*]] = arith.index_castui %[[WG]] : index to i64
// CHECK: %[[OFF:.*]] = arith.muli %[[WG64]], %c512_i64
// CHECK: %[[A:.*]] = arith.addi %[[A0]], %[[OFF]]
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK-NOT: wgmma.commit_group
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {$0, {{.*}}, $127}, $256, $257, p, 1, 1, 0, 1;
// CHECK-SAME: %[[A]], %[[B0]], %{{.*}} : (
// CHECK: %[[A1:.*]] = arith.addi %[[A]], %c2_i64
// CHECK: %[[B1:.*]] = arith.addi %[[B0]], %c128_i64
// CHECK: wgmma.mma_async
// CHECK-SAME: %[[A1]], %[[B1]], %{{.*}} : (
// CHECK: arith.addi %[[A]], %c4_i64
// CHECK: arith.addi %[[B0]], %c256_i64
// CHECK: wgmma.mma_async
// CHECK: arith.addi %[[A]], %c6_i64
// CHECK: arith.addi %[[B0]], %c384_i64
// CHECK: wgmma.mma_async
// CHECK-NOT: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
// CHECK: "wgmma.wait_group.sync.aligned 1;", ""
// CHECK: "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},=f,0,1,{{.*}},127"
// PTX-LABEL: .entry mma_async_ss(
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.wait_group.sync.aligned 0;
func.func @mma_async_ss(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA7>
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB7>
  argus.role "consumer" warps 4 to 12 {
    %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA7>
    %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB7>
    %z = argus.fill 0.0 : !RC7
    %acc = argus.mma_async "wgmma.m64n256k16.f32.bf16.ss" %a, %b, %z : !SA7, !SB7, !RC7
    argus.wgmma_commit
    argus.wgmma_wait 1
    %r = argus.wgmma_wait 0, %acc : !RC7
    %g = argus.view "C" %C[%c0, %c0] : memref<?x?xf32> -> !argus.tile<128x256xf32, global>
    argus.store %r, %g : !RC7, !argus.tile<128x256xf32, global>
  }
  return
}

// -----

// mma_async with A in registers (one warpgroup, N = 64): four 32-bit A
// registers per k-step, imm-trans-b only.
#FragA8 = #argus.frag<"wgmma.m64n64k16.f32.f16", a, warps = [1, 1]>
#FragC8 = #argus.frag<"wgmma.m64n64k16.f32.f16", c, warps = [1, 1]>
!RA8 = !argus.tile<64x32xf16, register, #FragA8>
!SB8 = !argus.tile<32x64xf16, shared, "Sw<3,3,3> o (32,64):(64,1)">
!RC8 = !argus.tile<64x64xf32, register, #FragC8>
// CHECK-LABEL: gpu.func @mma_async_rs(
// CHECK: "wgmma.fence.sync.aligned;"
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;
// CHECK-SAME: "=f,{{.*}},31,r,r,r,r,l,r"
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: "wgmma.commit_group.sync.aligned;"
// PTX-LABEL: .entry mma_async_rs(
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
func.func @mma_async_rs(%A: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sb = argus.alloc "sB" : !argus.buffer<1 x !SB8>
  %b = argus.stage %sb[%c0] : !argus.buffer<1 x !SB8>
  %ga = argus.view "A" %A[%c0, %c0] : memref<?x?xf16> -> !argus.tile<64x32xf16, global>
  %a = argus.load %ga : !argus.tile<64x32xf16, global> -> !RA8
  %z = argus.fill 0.0 : !RC8
  %acc = argus.mma_async "wgmma.m64n64k16.f32.f16" %a, %b, %z : !RA8, !SB8, !RC8
  argus.wgmma_commit
  %r = argus.wgmma_wait 0, %acc : !RC8
  %g = argus.view "C" %C[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x64xf32, global>
  argus.store %r, %g : !RC8, !argus.tile<64x64xf32, global>
  return
}

// -----

// tf32 (f32 in shared memory read at tf32 precision): wgmma.m64n256k8, K-major
// A and K-major B (the transpose of a 256 x 32 tile), both Sw<3,2,3> over
// 128-byte rows: SBO 1024 >> 4 = 64, the A descriptor advanced by the
// warpgroup (64 rows = 8192 bytes = 512 units), 32 bytes (2 units) per
// k-step of 8 elements, four k-steps; no transpose immediates (wgmma has
// them for 16-bit inputs only).
#FragC9 = #argus.frag<"wgmma.m64n256k8.f32.tf32.ss", c, warps = [2, 1]>
!SA9 = !argus.tile<128x32xf32, shared, "Sw<3,2,3> o (128,32):(32,1)">
!SW9 = !argus.tile<256x32xf32, shared, "Sw<3,2,3> o (256,32):(32,1)">
!SB9 = !argus.tile<32x256xf32, shared, "Sw<3,2,3> o (32,256):(1,32)">
!RC9 = !argus.tile<128x256xf32, register, #FragC9>
// CHECK-LABEL: gpu.func @mma_async_tf32_ss(
// CHECK: %[[B0:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64
// CHECK: %[[A0:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c512_i64
// CHECK: %[[A:.*]] = arith.addi %[[A0]], %[[OFF]]
// CHECK: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {$0, {{.*}}, $127}, $256, $257, p, 1, 1;
// CHECK-SAME: %[[A]], %[[B0]], %{{.*}} : (
// CHECK: %[[A1:.*]] = arith.addi %[[A]], %c2_i64
// CHECK: %[[B1:.*]] = arith.addi %[[B0]], %c2_i64
// CHECK: wgmma.mma_async
// CHECK-SAME: %[[A1]], %[[B1]], %{{.*}} : (
// CHECK: arith.addi %[[A]], %c4_i64
// CHECK: arith.addi %[[B0]], %c4_i64
// CHECK: wgmma.mma_async
// CHECK: arith.addi %[[A]], %c6_i64
// CHECK: arith.addi %[[B0]], %c6_i64
// CHECK: wgmma.mma_async
// CHECK-NOT: wgmma.mma_async
// PTX-LABEL: .entry mma_async_tf32_ss(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
func.func @mma_async_tf32_ss(%C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sa = argus.alloc "sA" : !argus.buffer<1 x !SA9>
  %sw = argus.alloc "sW" : !argus.buffer<1 x !SW9>
  argus.role "consumer" warps 4 to 12 {
    %a = argus.stage %sa[%c0] : !argus.buffer<1 x !SA9>
    %w = argus.stage %sw[%c0] : !argus.buffer<1 x !SW9>
    %b = argus.transpose %w : !SW9 -> !SB9
    %z = argus.fill 0.0 : !RC9
    %acc = argus.mma_async "wgmma.m64n256k8.f32.tf32.ss" %a, %b, %z : !SA9, !SB9, !RC9
    argus.wgmma_commit
    %r = argus.wgmma_wait 0, %acc : !RC9
    %g = argus.view "C" %C[%c0, %c0] : memref<?x?xf32> -> !argus.tile<128x256xf32, global>
    argus.store %r, %g : !RC9, !argus.tile<128x256xf32, global>
  }
  return
}

// -----

// tf32 with A in registers: one f32 per 32-bit register, four per k-step
// (a0..a3 of the fragment's k-step), B K-major, no transpose immediate.
#FragA10 = #argus.frag<"wgmma.m64n64k8.f32.tf32", a, warps = [1, 1]>
#FragC10 = #argus.frag<"wgmma.m64n64k8.f32.tf32", c, warps = [1, 1]>
!RA10 = !argus.tile<64x32xf32, register, #FragA10>
!SW10 = !argus.tile<64x32xf32, shared, "Sw<3,2,3> o (64,32):(32,1)">
!SB10 = !argus.tile<32x64xf32, shared, "Sw<3,2,3> o (32,64):(1,32)">
!RC10 = !argus.tile<64x64xf32, register, #FragC10>
// CHECK-LABEL: gpu.func @mma_async_tf32_rs(
// CHECK: %[[X:.*]] = vector.extract %{{.*}}[0] : f32 from vector<16xf32>
// CHECK: llvm.bitcast %[[X]] : f32 to i32
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1;
// CHECK-SAME: "=f,{{.*}},31,r,r,r,r,l,r"
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT: wgmma.mma_async
// PTX-LABEL: .entry mma_async_tf32_rs(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
func.func @mma_async_tf32_rs(%A: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %sw = argus.alloc "sW" : !argus.buffer<1 x !SW10>
  %w = argus.stage %sw[%c0] : !argus.buffer<1 x !SW10>
  %b = argus.transpose %w : !SW10 -> !SB10
  %ga = argus.view "A" %A[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x32xf32, global>
  %a = argus.load %ga : !argus.tile<64x32xf32, global> -> !RA10
  %z = argus.fill 0.0 : !RC10
  %acc = argus.mma_async "wgmma.m64n64k8.f32.tf32" %a, %b, %z : !RA10, !SB10, !RC10
  argus.wgmma_commit
  %r = argus.wgmma_wait 0, %acc : !RC10
  %g = argus.view "C" %C[%c0, %c0] : memref<?x?xf32> -> !argus.tile<64x64xf32, global>
  argus.store %r, %g : !RC10, !argus.tile<64x64xf32, global>
  return
}

// -----

// Named barriers: slot s is hardware barrier 8 + s (roles use 1..7), the id
// computed at run time; bar.sync waits, bar.arrive does not.
// CHECK-LABEL: gpu.func @named_barriers(
// CHECK: %[[ID:.*]] = arith.addi %{{.*}}, %c8_i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.sync $0, 256;", "r" %[[ID]]
// CHECK: "bar.arrive $0, 256;", "r"
// PTX-LABEL: .entry named_barriers(
// PTX: bar.sync %r{{[0-9]+}}, 256;
// PTX: bar.arrive %r{{[0-9]+}}, 256;
func.func @named_barriers()
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  argus.role "consumer" warps 4 to 12 {
    %t = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %q = arith.divui %t, %c128 : index
    %wg = arith.subi %q, %c1 : index
    argus.named_barrier.sync %wg, 256
    %other = arith.subi %c1, %wg : index
    argus.named_barrier.arrive %other, 256
  }
  return
}

// -----

// Over 48 KiB on sm_90a: one extern dynamic shared array (1024-byte
// aligned), the buffers views into it, the size on the kernel and in the
// launch facts.
!S9 = !argus.tile<256x64xf16, shared, "(256,64):(64,1)">
!G9 = !argus.tile<256x64xf16, global>
// CHECK-LABEL: memref.global "public" @__argus_dynamic_smem : memref<0xi8, 3> {alignment = 1024 : i64}
// CHECK-NOT: memref.global "private" @__argus_dynamic_64k
// CHECK-LABEL: gpu.func @dynamic_64k(
// CHECK-SAME: argus_dynamic_smem = 65536 : i64
// CHECK: %[[BASE:.*]] = memref.get_global @__argus_dynamic_smem : memref<0xi8, 3>
// CHECK: memref.view %[[BASE]][%c0{{.*}}][] : memref<0xi8, 3> to memref<32768xf16, 3>
func.func @dynamic_64k(%X: memref<?x?xf16>)
    attributes {argus.kernel = #argus.kernel<block = [256], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sa = argus.alloc "sA" : !argus.buffer<2 x !S9>
  %s0 = argus.stage %sa[%c0] : !argus.buffer<2 x !S9>
  %s1 = argus.stage %sa[%c1] : !argus.buffer<2 x !S9>
  %x = argus.view "X" %X[%c0, %c0] : memref<?x?xf16> -> !G9
  argus.copy %x, %s0 threads "(256,64):(1,256)" : !G9, !S9
  argus.copy %x, %s1 threads "(256,64):(1,256)" : !G9, !S9
  return
}
