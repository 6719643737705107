//===- Pipelines.cpp - --argus-to-nvptx / --argus-to-gfx942 --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Pipelines/Pipelines.h"

#include "argus/Analysis/Passes.h"
#include "argus/Conversion/Passes.h"
#include "argus/Target/Passes.h"
#include "argus/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::argus;

namespace {

SmallVector<std::string> splitBar(StringRef s) {
  SmallVector<StringRef> parts;
  s.split(parts, '|', -1, false);
  SmallVector<std::string> r;
  for (StringRef p : parts)
    r.push_back(p.trim().str());
  return r;
}

void addProbes(OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  if (!o.probes)
    return;
  ArgusInsertProbesOptions p;
  p.regions = splitBar(o.probeRegions);
  p.signals = splitBar(o.probeSignals);
  p.scopeWarps.assign(o.probeScopeWarps.begin(), o.probeScopeWarps.end());
  p.scopeBlocks.assign(o.probeScopeBlocks.begin(), o.probeScopeBlocks.end());
  p.iterationWindow = o.probeIterationWindow;
  p.clock = o.clock;
  // No selection of its own: a kernel argus-insert-probes planned before
  // (with scope, window, capacity or site regions) keeps that plan.
  p.keepPlans = p.regions.empty() && p.signals.empty() &&
                p.scopeWarps.empty() && p.scopeBlocks.empty() &&
                p.iterationWindow.empty() && o.clock == "default";
  pm.addPass(createArgusInsertProbes(p));
}

/// Probes (if asked for) and argus-to-gpu for `chip` (o.chip overrides it);
/// returns the gpu.module pass manager the target passes go into.
OpPassManager &addArgusToGPU(OpPassManager &pm,
                             const ArgusTargetPipelineOptions &o,
                             StringRef chip) {
  // The line table is taken while the region markers are still there.
  if (!o.lineinfoRegions.empty()) {
    ArgusPrintLineRegionsOptions lines;
    lines.output = o.lineinfoRegions;
    pm.addPass(createArgusPrintLineRegions(lines));
    pm.addPass(createArgusMarkRegionLocations());
  }
  addProbes(pm, o);
  ArgusToGPUOptions lower;
  lower.target = chip.str();
  lower.probes = o.probes;
  lower.ldmatrix = o.ldmatrix;
  lower.minBlocksPerSM = o.minBlocksPerSM;
  pm.addPass(createArgusToGPU(lower));
  return pm.nest<gpu::GPUModuleOp>();
}

void addCleanup(OpPassManager &gm) {
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
}

/// vector, scf, memref and affine down to LLVM (target-independent).
void addStandardToLLVM(OpPassManager &gm) {
  gm.addPass(createConvertVectorToSCFPass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  gm.addPass(createLowerAffinePass());
  gm.addPass(createConvertVectorToLLVMPass());
}

/// Cleanup, the last casts, then the binary (and its dump).
void addFinish(OpPassManager &pm, OpPassManager &gm,
               const ArgusTargetPipelineOptions &o) {
  addCleanup(gm);
  gm.addPass(createReconcileUnrealizedCastsPass());
  // Line info: a subprogram per function, so the translation keeps each
  // op's location; directives only, so ptxas needs no -g.
  if (o.lineinfo || !o.lineinfoRegions.empty()) {
    LLVM::DIScopeForLLVMFuncOpPassOptions di;
    di.emissionKind = LLVM::DIEmissionKind::DebugDirectivesOnly;
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(di));
    if (!o.lineinfoRegions.empty())
      pm.addPass(createArgusRegionLineFiles());
  }
  // gpu-module-to-binary with the LLVM backend guarded: its errors become
  // diagnostics instead of ending the process (ModuleToBinary.cpp).
  ArgusModuleToBinaryOptions bin;
  bin.format = o.format;
  bin.toolkit = o.toolkit;
  pm.addPass(createArgusModuleToBinary(bin));
  if (!o.dump.empty()) {
    ArgusDumpBinaryOptions d;
    d.path = o.dump;
    pm.addPass(createArgusDumpBinary(d));
  }
}

std::string chipOr(const ArgusTargetPipelineOptions &o, StringRef fallback) {
  return o.chip.empty() ? fallback.str() : o.chip.getValue();
}

} // namespace

void mlir::argus::buildArgusToNVPTXPipeline(
    OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  OpPassManager &gm = addArgusToGPU(pm, o, chipOr(o, "sm_90a"));
  addCleanup(gm);
  gm.addPass(createConvertNVGPUToNVVMPass());
  addStandardToLLVM(gm);
  gm.addPass(createConvertGpuOpsToNVVMOps());
  gm.addPass(createArgusTensorMapParams());
  gm.addPass(createConvertNVVMToLLVMPass());
  addFinish(pm, gm, o);
}

void mlir::argus::buildArgusToGFX942Pipeline(
    OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  std::string chip = chipOr(o, "gfx942");
  OpPassManager &gm = addArgusToGPU(pm, o, chip);
  addCleanup(gm);
  ConvertAMDGPUToROCDLPassOptions amd;
  amd.chipset = chip;
  gm.addPass(createConvertAMDGPUToROCDLPass(amd));
  addStandardToLLVM(gm);
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = chip;
  gm.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  addFinish(pm, gm, o);
}

void mlir::argus::registerArgusPasses() {
  registerArgusTransformsPasses();
  registerArgusConversionPasses();
  registerArgusTargetPasses();
}

void mlir::argus::registerArgusPipelines() {
  PassPipelineRegistration<ArgusTargetPipelineOptions>(
      "argus-to-nvptx",
      "Lower argus kernels to NVPTX (sm_90a): gpu/nvgpu/nvvm, then PTX "
      "(format=isa) or a cubin (format=bin, needs ptxas) in a gpu.binary",
      buildArgusToNVPTXPipeline);
  PassPipelineRegistration<ArgusTargetPipelineOptions>(
      "argus-to-gfx942",
      "Lower argus kernels to AMDGPU (gfx942): gpu/amdgpu/rocdl, then AMDGPU "
      "assembly (format=isa) or a code object (format=bin, needs ld.lld "
      "under toolkit/llvm/bin)",
      buildArgusToGFX942Pipeline);
}
