//===- Pipelines.cpp - --argus-to-nvptx / --argus-to-gfx942 --------------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "argus/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSDUMPBINARY
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;
using namespace mlir::argus;

namespace {

struct ArgusDumpBinaryPass
    : public ::mlir::argus::impl::ArgusDumpBinaryBase<ArgusDumpBinaryPass> {
  using ArgusDumpBinaryBase::ArgusDumpBinaryBase;
  void runOnOperation() override {
    if (path.empty())
      return;
    int index = 0;
    WalkResult r = getOperation().walk([&](gpu::BinaryOp bin) {
      for (Attribute a : bin.getObjects()) {
        auto obj = cast<gpu::ObjectAttr>(a);
        std::string file =
            index == 0 ? path.getValue() : path + "." + std::to_string(index);
        ++index;
        std::error_code ec;
        llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
        if (ec) {
          bin.emitError() << "argus-dump-binary: cannot write '" << file
                          << "': " << ec.message();
          return WalkResult::interrupt();
        }
        os << obj.getObject().getValue();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

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
  p.clock = o.clock;
  pm.addPass(createArgusInsertProbes(p));
}

void addBinary(OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = o.format;
  if (!o.toolkit.empty())
    bin.toolkitPath = o.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(bin));
  if (!o.dump.empty()) {
    ArgusDumpBinaryOptions d;
    d.path = o.dump;
    pm.addPass(createArgusDumpBinary(d));
  }
}

} // namespace

void mlir::argus::buildArgusToNVPTXPipeline(
    OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  addProbes(pm, o);
  ArgusToGPUOptions lower;
  lower.target = o.chip.empty() ? std::string("sm_90a") : o.chip.getValue();
  lower.probes = o.probes;
  lower.ldmatrix = o.ldmatrix;
  lower.minBlocksPerSM = o.minBlocksPerSM;
  pm.addPass(createArgusToGPU(lower));
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  gm.addPass(createConvertNVGPUToNVVMPass());
  gm.addPass(createConvertVectorToSCFPass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  gm.addPass(createLowerAffinePass());
  gm.addPass(createConvertVectorToLLVMPass());
  gm.addPass(createConvertGpuOpsToNVVMOps());
  gm.addPass(createConvertNVVMToLLVMPass());
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  gm.addPass(createReconcileUnrealizedCastsPass());
  addBinary(pm, o);
}

void mlir::argus::buildArgusToGFX942Pipeline(
    OpPassManager &pm, const ArgusTargetPipelineOptions &o) {
  addProbes(pm, o);
  ArgusToGPUOptions lower;
  std::string chip = o.chip.empty() ? std::string("gfx942") : o.chip.getValue();
  lower.target = chip;
  lower.probes = o.probes;
  lower.ldmatrix = o.ldmatrix;
  lower.minBlocksPerSM = o.minBlocksPerSM;
  pm.addPass(createArgusToGPU(lower));
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  ConvertAMDGPUToROCDLPassOptions amd;
  amd.chipset = chip;
  gm.addPass(createConvertAMDGPUToROCDLPass(amd));
  gm.addPass(createConvertVectorToSCFPass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  gm.addPass(createLowerAffinePass());
  gm.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = chip;
  gm.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
  gm.addPass(createReconcileUnrealizedCastsPass());
  addBinary(pm, o);
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
