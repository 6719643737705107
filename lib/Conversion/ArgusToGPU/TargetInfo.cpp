//===- TargetInfo.cpp - the target info of a chip -------------------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Conversion/ArgusToGPU/TargetInfo.h"

#include "LoweringSupport.h"

using namespace mlir;
using namespace mlir::argus;

TargetInfo::~TargetInfo() = default;

const TargetInfo &TargetInfo::get(StringRef chip) {
  if (chip.starts_with("gfx"))
    return getAMDGPUTargetInfo();
  return getNVPTXTargetInfo();
}
