// With probes off, markers are erased and the code is byte-identical to the
// same kernel with no markers at all (PTX and AMDGPU assembly compared with
// diff). With probes on, the kernel gains the probe buffer argument and the
// timer reads.

// RUN: sed '/argus.region/d' %examples/gemm_pipelined_2stage.mlir > %t.nv.nomarkers.mlir
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="dump=%t.nv.marked.ptx" -o /dev/null
// RUN: argus-opt %t.nv.nomarkers.mlir --argus-to-nvptx="dump=%t.nv.plain.ptx" -o /dev/null
// RUN: diff %t.nv.marked.ptx %t.nv.plain.ptx
// The probe-insertion pass alone does not change the code either when the
// lowering runs with probes=false.
// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-insert-probes --argus-to-gpu="probes=false" --argus-to-nvptx="dump=%t.nv.off.ptx" -o /dev/null
// RUN: diff %t.nv.off.ptx %t.nv.plain.ptx

// RUN: sed '/argus.region/d' %examples/gemm_mfma.mlir > %t.amd.nomarkers.mlir
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="dump=%t.amd.marked.s" -o /dev/null
// RUN: argus-opt %t.amd.nomarkers.mlir --argus-to-gfx942="dump=%t.amd.plain.s" -o /dev/null
// RUN: diff %t.amd.marked.s %t.amd.plain.s

// RUN: argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-nvptx="probes=true dump=%t.nv.on.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=ON < %t.nv.on.ptx
// RUN: FileCheck %s --check-prefix=OFF < %t.nv.plain.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.nv.on.ptx -o %t.nv.on.cubin %}
// RUN: argus-opt %examples/gemm_mfma.mlir --argus-to-gfx942="probes=true dump=%t.amd.on.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=AMDON < %t.amd.on.s
// RUN: %if llvm-mc %{ %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.amd.on.s -o %t.amd.on.o %}

// OFF-NOT: globaltimer
// OFF: .param .u64 gemm_pipelined_2stage_param_9
// OFF-NEXT: )
// ON: .param .u64 gemm_pipelined_2stage_param_9,
// ON-NEXT: .param .u64 .ptr .global .align 1 gemm_pipelined_2stage_param_10
// ON-DAG: mov.u64 {{.*}}, %globaltimer;
// ON-DAG: mov.u32 {{.*}}, %smid;
// AMDON: s_memtime
// AMDON: s_getreg_b32

// The same for the flash-attention example (reductions, broadcasts and
// layout conversions between the markers).
// RUN: sed '/argus.region/d' %examples/flash_attention_fwd.mlir > %t.fa.nomarkers.mlir
// RUN: argus-opt %examples/flash_attention_fwd.mlir --argus-to-gfx942="dump=%t.fa.marked.s" -o /dev/null
// RUN: argus-opt %t.fa.nomarkers.mlir --argus-to-gfx942="dump=%t.fa.plain.s" -o /dev/null
// RUN: diff %t.fa.marked.s %t.fa.plain.s
