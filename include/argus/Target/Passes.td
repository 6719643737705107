//===- Passes.td - serialising lowered gpu.modules ---------*- tablegen -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TARGET_PASSES_TD
#define ARGUS_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // ARGUS_TARGET_PASSES_TD
