//===- KernelABI.h - the ABI attributes of a lowered kernel -----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The attributes with which argus-to-gpu records what a host needs to launch
// a lowered kernel beyond its argument list (docs/Lowering.md, "Kernel
// ABI"). The passes after the conversion read them: argus-tensor-map-params
// (the by-value tensor maps), argus-dump-binary (the launch JSON next to the
// object) and the Python driver (through LoweredModule.h).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H
#define ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H

#include "llvm/ADT/StringRef.h"

namespace mlir::argus {

/// The tensor-map ABI on a lowered kernel (an array of
/// #argus.tensor_map_param).
constexpr llvm::StringLiteral kTensorMapsAttr = "argus_tensor_maps";
/// What each parameter of a lowered kernel carries (an array of
/// #argus.kernel_param, in parameter order), while it is lowered.
constexpr llvm::StringLiteral kKernelParamsAttr = "argus_params";
/// The module attribute with the launch ABI of the lowered kernels (kernel
/// name -> #argus.kernel_launch); the argus dialect accepts it on a
/// builtin.module.
constexpr llvm::StringLiteral kLaunchAttr = "argus.launch";
/// The thread-block cluster shape (x, y, z) a lowered kernel must be
/// launched with; absent for kernels without a cluster.
constexpr llvm::StringLiteral kClusterAttr = "argus_cluster";
/// Bytes of dynamic shared memory a lowered kernel must be launched with.
constexpr llvm::StringLiteral kDynamicSmemAttr = "argus_dynamic_smem";

} // namespace mlir::argus

#endif // ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H
