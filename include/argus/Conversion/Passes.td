//===- Passes.td - argus dialect conversions ---------------*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_CONVERSION_PASSES_TD
#define ARGUS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArgusToGPU : Pass<"argus-to-gpu", "::mlir::ModuleOp"> {
  let summary = "lower argus kernels to gpu.func kernels with per-thread code";
  let description = [{
    Each `func.func` with `argus.kernel` becomes a `gpu.func` kernel in a
    `gpu.module` carrying the target attribute (`#nvvm.target` for sm_*,
    `#rocdl.target` for gfx*). Block-collective tile ops become per-thread
    code that evaluates the tile layouts (thread, slot) -> coordinate with
    index arithmetic; matrix-core ops become `nvgpu.mma.sync` /
    `amdgpu.mfma` read from the instruction descriptors; `copy_async`
    becomes `cp.async` (NVPTX; a synchronous copy on AMDGPU); shared buffers
    become workgroup globals; tags and tag assertions are erased; probed
    region markers become timer reads and probe records, other markers are
    erased.

    Kernel ABI: every memref argument of rank r becomes a global pointer
    followed by r i64 sizes (row-major, contiguous); index arguments become
    i64; then one parameter per `argus.tensor_map` (op order: the 128-byte
    CUtensorMap by value, described by the kernel's `argus_tensor_maps`);
    with probes, one more global pointer (the probe buffer) comes last.
    sm_90a kernels needing more than 48 KiB of shared memory use dynamic
    shared memory (`argus_dynamic_smem` bytes, at most 227 KiB); the module
    records both per kernel in `argus.launch`.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "override the kernels' target chip (sm_90a, gfx942, ...)">,
    Option<"probes", "probes", "bool", "true",
           "lower probed markers to records (false: erase every marker)">,
    Option<"ldmatrix", "ldmatrix", "bool", "true",
           "NVPTX: load 16-bit register fragments from shared memory with "
           "ldmatrix(.trans) where every lane's rows are 16-byte rows of the "
           "shared layout (swizzled layouts included)">,
    Option<"minBlocksPerSM", "min-blocks-per-sm", "int64_t", "0",
           "NVPTX: ask ptxas for at least this many resident blocks per SM "
           "(nvvm.minctasm / .minnctapersm, which bounds the registers per "
           "thread); 0: no bound">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::ROCDL::ROCDLDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::math::MathDialect"
  ];
}

#endif // ARGUS_CONVERSION_PASSES_TD
