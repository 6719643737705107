//===- LoweredModule.h - what a lowering pipeline leaves for a host -*- C++
//-*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// After --argus-to-nvptx / --argus-to-gfx942 the module holds one gpu.binary
// per chip and, on the top module, the launch ABI of every kernel
// (#argus.kernel_launch). Hosts read both from here: the Python driver in
// process (no files) and argus-dump-binary for argus-opt users.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_TARGET_LOWEREDMODULE_H
#define ARGUS_TARGET_LOWEREDMODULE_H

#include "argus/Dialect/ArgusDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::argus {

/// One object of a gpu.binary: the binary's symbol (`argus_<chip>`) and the
/// bytes (PTX or AMDGPU assembly for format=isa, a cubin or code object for
/// format=bin).
struct LoweredObject {
  std::string binary;
  std::string bytes;
};

/// The objects of every gpu.binary in `top`, in op order.
std::vector<LoweredObject> loweredObjects(ModuleOp top);

/// The launch ABI of every lowered kernel in `top`, in name order.
std::vector<std::pair<std::string, KernelLaunchAttr>> launchABI(ModuleOp top);

/// A kernel's launch ABI as JSON (argus-dump-binary's companion file):
/// chip, block, dynamic_smem, params, tensor_maps, probes and grid (the grid
/// rule, argus/Analysis/GridRule.h); types as MLIR prints them ("bf16").
llvm::json::Value launchToJSON(KernelLaunchAttr launch);

} // namespace mlir::argus

#endif // ARGUS_TARGET_LOWEREDMODULE_H
