// Bulk tensor stores, their wait and the barriers of warp roles lowered to
// NVPTX, one kernel per pattern.

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s --argus-to-nvptx="dump=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// A role's barrier needs named barriers: gfx942 has none.
// RUN: not argus-opt %s -split-input-file --argus-to-gpu=target=gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMD
// AMD: error: 'argus.barrier' op synchronises a warp role, which needs named barriers; gfx942 has only the block-wide s_barrier; hint: move the barrier out of the role

!TC = !argus.tensor_map<128x64xbf16, swizzle = 128>
!SC = !argus.tile<128x128xbf16, shared, "Sw<3,3,3> o (128,(64,2)):(64,(1,8192))">
!GC = !argus.tile<128x128xbf16, global>

// Thread 0 issues one store per box (box j reads 16384 j bytes after the
// tile and writes columns n + 64 j), then commits them as one bulk group.
// CHECK-LABEL: gpu.func @tma_store_boxes(
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[COL:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.if
// CHECK: "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];", "l,r,r,r" %[[MAP:.*]], %[[COL]], %[[ROW]], %[[S0:.*]] :
// CHECK: %[[S1:.*]] = arith.addi %[[S0]], %c16384_i32
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c64_i32
// CHECK: "l,r,r,r" %[[MAP]], %[[C1]], %[[ROW]], %[[S1]] :
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: "cp.async.bulk.commit_group;"
// CHECK: gpu.return
// PTX-LABEL: .entry tma_store_boxes(
// PTX-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX: cp.async.bulk.commit_group;
func.func @tma_store_boxes(%C: memref<?x?xbf16>, %m: index, %n: index)
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  %c0 = arith.constant 0 : index
  %map = argus.tensor_map "C" %C : memref<?x?xbf16> -> !TC
  %buf = argus.alloc "sC" : !argus.buffer<1 x !SC>
  %s = argus.stage %buf[%c0] : !argus.buffer<1 x !SC>
  %g = argus.view "C" %C[%m, %n] clipped : memref<?x?xbf16> -> !GC
  argus.tma_store %s, %g, %map : !SC, !GC, !TC
  return
}

// -----

// The issuing thread (the role's first) waits until its bulk groups but
// `pending` have read their sources.
// CHECK-LABEL: gpu.func @tma_store_wait(
// CHECK: scf.if
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.wait_group.read 1;"
// CHECK: scf.if
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.wait_group.read 0;"
// PTX-LABEL: .entry tma_store_wait(
// PTX: cp.async.bulk.wait_group.read 1;
// PTX: cp.async.bulk.wait_group.read 0;
func.func @tma_store_wait()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.tma_store_wait 1
  argus.tma_store_wait 0
  return
}

// -----

// A barrier at the top level is the block's; inside a role it is the
// role's named barrier (1 + the role's index) over the role's threads.
// CHECK-LABEL: gpu.func @role_barriers(
// CHECK: gpu.barrier
// CHECK: "bar.sync 1, 64;"
// CHECK: } else {
// CHECK: "bar.sync 2, 128;"
// CHECK: } {argus_role = array<i64: 64, 128, 2>}
// CHECK: } {argus_role = array<i64: 0, 64, 1>}
// PTX-LABEL: .entry role_barriers(
// PTX: bar.sync 0;
// PTX: bar.sync 1, 64;
// PTX: bar.sync 2, 128;
func.func @role_barriers()
    attributes {argus.kernel = #argus.kernel<block = [192], target = "sm_90a">} {
  argus.barrier
  argus.role "a" warps 0 to 2 {
    argus.barrier
  }
  argus.role "b" warps 2 to 6 {
    argus.barrier
  }
  return
}
