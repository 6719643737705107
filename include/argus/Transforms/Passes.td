//===- Passes.td - argus transformation and lowering passes -*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TRANSFORMS_PASSES_TD
#define ARGUS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ArgusInsertProbes : Pass<"argus-insert-probes", "::mlir::ModuleOp"> {
  let summary = "select argus regions to measure (probe plan on the markers)";
  let description = [{
    Marks (`argus_probe`) the `argus.region.begin` / `argus.region.end` markers of the
    selected regions as probes and records the probe plan on the kernel
    (`argus_probes`). The lowering (`argus-to-gpu`) turns each probed marker
    into a timer read that lane 0 of each selected warp appends as a 32-byte
    record to the probe buffer (runtime/include/argus/runtime/ProbeFormat.h),
    an extra last kernel argument. Markers are never moved, merged or
    duplicated: the region ID names the region after lowering.

    Signals: `duration` probes regions that are not inside a loop (one
    begin/end pair per warp and launch); `timeline` probes regions inside
    loops, once per iteration, with the innermost loop's iteration number
    (normalised to 0, 1, ...) in the record, restricted to
    `iteration-window`.
  }];
  let options = [
    ListOption<"regions", "regions", "std::string",
               "region names or numeric IDs to probe (default: all)">,
    ListOption<"signals", "signals", "std::string",
               "signals: duration, timeline (default: both)">,
    ListOption<"scopeWarps", "scope-warps", "int64_t",
               "warp indices (in the block) that write records (default: all)">,
    ListOption<"scopeBlocks", "scope-blocks", "int64_t",
               "linear block indices that write records (default: all)">,
    Option<"iterationWindow", "iteration-window", "std::string", "\"\"",
           "lo:hi — record loop iterations lo <= i < hi only (default: all)">,
    Option<"capacity", "capacity", "int64_t", "4096",
           "records per warp the host should allocate (recorded on the kernel)">,
    Option<"clock", "clock", "std::string", "\"default\"",
           "timer: globaltimer | clock64 (NVPTX), memtime | memrealtime "
           "(AMDGPU); default: globaltimer / memtime">
  ];
}

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

def ArgusModuleToBinary : Pass<"argus-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary that reports backend errors as diagnostics";
  let description = [{
    Serialises every `gpu.module` into a `gpu.binary` like upstream
    `gpu-module-to-binary`, but so that nothing the LLVM backend does ends
    the calling process (argus-opt or the Python interpreter): each module
    is compiled in a forked child process, and a child that ends without an
    object (LLVM's `exit(1)` on an error such as AMDGPU's "local memory
    exceeds limit", a fatal error, a crash) becomes an error on the
    `gpu.module` with the child's messages as notes. The pass then fails and
    the module is left unchanged. Where no process can be forked the module
    is compiled in process, unguarded.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"isa\"",
           "isa (PTX / AMDGPU assembly), bin, llvm, offloading (fatbin)">,
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "toolkit path (CUDA root, or a ROCm-style root)">
  ];
}

def ArgusTensorMapParams : Pass<"argus-tensor-map-params",
                                "::mlir::gpu::GPUModuleOp"> {
  let summary = "tensor-map kernel parameters by value, as grid constants";
  let description = [{
    After the GPU-to-NVVM conversion: the parameters that the kernel's
    `argus_tensor_maps` passes by value become `llvm.byval` 128-byte arrays,
    64-byte aligned, with `nvvm.grid_constant` (PTX `.param .align 64 .b8
    p[128]`, whose generic address the TMA copies use without a local copy).
    The NVVM dialect accepts `nvvm.grid_constant` only on an `llvm.func`
    kernel, hence a pass after the conversion.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ArgusDumpBinary : Pass<"argus-dump-binary", "::mlir::ModuleOp"> {
  let summary = "write the objects of gpu.binary ops to a file";
  let description = [{
    Writes the object (PTX text, AMDGPU assembly, cubin or code object) of
    each `gpu.binary` to `path`; with several objects the i-th after the
    first goes to `path.<i>`. When a kernel has tensor maps or dynamic
    shared memory (the module's `argus.launch`), `path.json` gets the
    launch facts: per kernel `dynamic_smem` bytes and `tensor_maps`.
  }];
  let options = [
    Option<"path", "path", "std::string", "\"\"", "output file">
  ];
}

#endif // ARGUS_TRANSFORMS_PASSES_TD
