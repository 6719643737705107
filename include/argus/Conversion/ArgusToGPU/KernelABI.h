//===- KernelABI.h - the ABI attributes of a lowered kernel -----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// The attributes with which argus-to-gpu records what a host needs to launch
// a lowered kernel beyond its argument list (docs/Lowering.md, "Kernel
// ABI"). The passes after the conversion read them: argus-tensor-map-params
// (the by-value tensor maps) and argus-dump-binary (the launch JSON next to
// the object).
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H
#define ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H

#include "llvm/ADT/StringRef.h"

namespace mlir::argus {

/// The tensor-map ABI on a lowered kernel (an array of dictionaries:
/// param, name, arg, box, element, swizzle, oob_fill, pass).
constexpr llvm::StringLiteral kTensorMapsAttr = "argus_tensor_maps";
/// The module attribute with the launch facts of the lowered kernels
/// (kernel name -> {dynamic_smem, tensor_maps}); the argus dialect accepts it
/// on a builtin.module.
constexpr llvm::StringLiteral kLaunchAttr = "argus.launch";
/// Bytes of dynamic shared memory a lowered kernel must be launched with.
constexpr llvm::StringLiteral kDynamicSmemAttr = "argus_dynamic_smem";

} // namespace mlir::argus

#endif // ARGUS_CONVERSION_ARGUSTOGPU_KERNELABI_H
