// Probe records (ProbeEmission.cpp) after argus-insert-probes: the probed
// markers become the target's timer read and hardware-unit id (TargetInfo::
// emitProbeStamp: %globaltimer or %clock64 and %smid on NVPTX; s_memtime or
// s_memrealtime and HW_ID on AMDGPU) stored by lane 0 of each warp; the
// block index reads the grid size (TargetInfo::emitGridDimXY: gpu.grid_dim
// on NVPTX, the HSA dispatch packet on AMDGPU).

// RUN: argus-opt %s -split-input-file --argus-insert-probes --argus-to-gpu | FileCheck %s
// RUN: argus-opt %s -split-input-file --argus-insert-probes="clock=clock64" --argus-to-gpu | FileCheck %s --check-prefix=CLK64
// RUN: argus-opt %s -split-input-file --argus-insert-probes="clock=memrealtime" --argus-to-gpu | FileCheck %s --check-prefix=REAL

// CHECK-LABEL: gpu.func @probe_nvptx
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>)
// CHECK: gpu.grid_dim x
// CHECK: gpu.grid_dim y
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.read.ptx.sreg.smid : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CLK64-LABEL: gpu.func @probe_nvptx
// CLK64: nvvm.read.ptx.sreg.clock64 : i64
// CLK64-NOT: globaltimer
// REAL-LABEL: gpu.func @probe_nvptx
// REAL: nvvm.read.ptx.sreg.globaltimer
func.func @probe_nvptx()
    attributes {argus.kernel = #argus.kernel<block = [64], target = "sm_90a">} {
  argus.region.begin "r" id 1
  argus.region.end id 1
  return
}

// -----

// CHECK-LABEL: gpu.func @probe_gfx942
// CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// CHECK: arith.ceildivui
// CHECK: arith.ceildivui
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.memtime"() : () -> i64
// CHECK: llvm.call_intrinsic "llvm.amdgcn.s.getreg"
// CHECK-NOT: gpu.grid_dim
// CLK64-LABEL: gpu.func @probe_gfx942
// CLK64: llvm.amdgcn.s.memtime
// REAL-LABEL: gpu.func @probe_gfx942
// REAL: llvm.call_intrinsic "llvm.amdgcn.s.memrealtime"() : () -> i64
func.func @probe_gfx942()
    attributes {argus.kernel = #argus.kernel<block = [128], target = "gfx942">} {
  argus.region.begin "r" id 1
  argus.region.end id 1
  return
}
