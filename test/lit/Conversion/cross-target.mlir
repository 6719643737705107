// Matrix-core instructions are target-specific: a kernel written with
// v_mfma cannot be lowered to NVPTX, nor one written with mma.sync to
// gfx942 (there is no such instruction there). The error says so.

// RUN: not argus-opt %examples/gemm_mfma.mlir --argus-to-nvptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not argus-opt %examples/gemm_pipelined_2stage.mlir --argus-to-gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=AMD

// NV: error: 'argus.mma' op instruction v_mfma_f32_32x32x8_f16 belongs to gfx942, but the kernel is lowered for sm_90a
// AMD: error: 'argus.mma' op instruction mma.m16n8k16.f32.f16 belongs to sm_90, but the kernel is lowered for gfx942
