// Warp roles (RoleLowering.cpp, before the conversion): argus.role becomes
// a warp-uniform if / else-if chain on the warp index (the target's warp
// size), made uniform for the backend where it needs that (TargetInfo::
// makeWarpUniform: a shuffle from lane 0 on NVPTX, nothing on AMDGPU); a
// register budget is setmaxnreg with the entry cap .maxntid /
// .minnctapersm (sm_90a only: TargetInfo::hasSetMaxNReg).

// RUN: argus-opt %s -split-input-file --argus-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @roles_nvptx
// CHECK: %[[W:.*]] = arith.divui %{{.*}}, %c32
// CHECK: %[[W32:.*]] = arith.index_castui %[[W]] : index to i32
// CHECK: %[[WU:.*]], %{{.*}} = gpu.shuffle idx %[[W32]], %c0_i32, %c32_i32 : i32
// CHECK: arith.cmpi ult, %[[WU]], %c2_i32
// CHECK: } else {
// CHECK: } {argus_role = array<i64: 64, 64, 2>}
// CHECK: } {argus_role = array<i64: 0, 64, 1>}
func.func @roles_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "sm_90a">} {
  argus.role "a" warps 0 to 2 {
  }
  argus.role "b" warps 2 to 4 {
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @roles_gfx942
// CHECK: %[[W:.*]] = arith.divui %{{.*}}, %c64
// CHECK: %[[W32:.*]] = arith.index_castui %[[W]] : index to i32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.cmpi ult, %[[W32]], %c1_i32
// CHECK: } {argus_role = array<i64: 64, 64, 2>}
// CHECK: } {argus_role = array<i64: 0, 64, 1>}
func.func @roles_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  argus.role "a" warps 0 to 1 {
  }
  argus.role "b" warps 1 to 2 {
  }
  return
}

// -----

// 65536 / 384 threads -> 168 registers at entry: 40 decreases, 232
// increases.
// CHECK-LABEL: gpu.func @role_regs
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK: scf.if
// CHECK-NEXT: "setmaxnreg.dec.sync.aligned.u32 40;"
// CHECK: scf.if
// CHECK-NEXT: "setmaxnreg.inc.sync.aligned.u32 232;"
func.func @role_regs()
    attributes {argus.kernel = #argus.kernel<block = [384], target = "sm_90a">} {
  argus.role "producer" warps 0 to 4 regs 40 {
  }
  argus.role "consumer" warps 4 to 12 regs 232 {
  }
  return
}
