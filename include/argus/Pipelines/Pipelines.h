//===- Pipelines.h - the lowering pipelines and registration ----*- C++ -*-===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// --argus-to-nvptx / --argus-to-gfx942, assembled from the passes of
// Transforms (probe plan, tensor-map parameters), Conversion (argus-to-gpu),
// upstream's GPU/NVVM/ROCDL conversions and Target (serialisation); and the
// registration of the dialects and passes that every tool (argus-opt, the
// Python module) shares.
//
//===----------------------------------------------------------------------===//

#ifndef ARGUS_PIPELINES_PIPELINES_H
#define ARGUS_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::argus {

/// Options of the --argus-to-nvptx / --argus-to-gfx942 pipelines.
struct ArgusTargetPipelineOptions
    : public PassPipelineOptions<ArgusTargetPipelineOptions> {
  Option<bool> probes{
      *this, "probes",
      llvm::cl::desc("lower with probes: the probe plan argus-insert-probes "
                     "recorded on a kernel, else every region (its "
                     "defaults); the probe-* options make a new selection"),
      llvm::cl::init(false)};
  Option<std::string> probeRegions{
      *this, "probe-regions",
      llvm::cl::desc("comma-free list 'a|b|3' of regions to probe"),
      llvm::cl::init("")};
  Option<std::string> probeSignals{
      *this, "probe-signals",
      llvm::cl::desc("'duration', 'timeline' or 'duration|timeline'"),
      llvm::cl::init("")};
  ListOption<int64_t> probeScopeWarps{
      *this, "probe-scope-warps",
      llvm::cl::desc("warps (in the block) that write records "
                     "(argus-insert-probes scope-warps)")};
  ListOption<int64_t> probeScopeBlocks{
      *this, "probe-scope-blocks",
      llvm::cl::desc("linear blocks that write records (argus-insert-probes "
                     "scope-blocks)")};
  Option<std::string> probeIterationWindow{
      *this, "probe-iteration-window",
      llvm::cl::desc("lo:hi, loop iterations recorded (argus-insert-probes "
                     "iteration-window)"),
      llvm::cl::init("")};
  Option<std::string> clock{*this, "clock",
                            llvm::cl::desc("probe timer (see argus-insert-"
                                           "probes)"),
                            llvm::cl::init("default")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (default), bin, "
                     "llvm, offloading"),
      llvm::cl::init("isa")};
  Option<std::string> dump{*this, "dump",
                           llvm::cl::desc("write the PTX / ISA / binary to "
                                          "this file"),
                           llvm::cl::init("")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("toolkit path for format=bin (CUDA root, or a "
                     "ROCm-style root with llvm/bin/ld.lld)"),
      llvm::cl::init("")};
  Option<bool> ldmatrix{*this, "ldmatrix",
                        llvm::cl::desc("load 16-bit fragments from shared "
                                       "memory with ldmatrix where the "
                                       "layouts allow (NVPTX)"),
                        llvm::cl::init(true)};
  Option<int64_t> minBlocksPerSM{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("NVPTX: at least this many resident blocks per SM "
                     "(.minnctapersm; bounds registers); 0: none"),
      llvm::cl::init(0)};
  Option<bool> lineinfo{
      *this, "lineinfo",
      llvm::cl::desc("emit line info (.loc / .file directives, no DWARF "
                     "sections) from the ops' source locations, for "
                     "per-instruction profiles (ptxas -lineinfo keeps it)"),
      llvm::cl::init(false)};
  Option<std::string> lineinfoRegions{
      *this, "lineinfo-regions",
      llvm::cl::desc("emit line info and write the line -> region table "
                     "(argus-print-line-regions) to this file"),
      llvm::cl::init("")};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("override the chip (default "
                                          "sm_90a / gfx942)"),
                           llvm::cl::init("")};
};

/// Build the full lowering of the module's kernels for one target family
/// (`nvptx`: kernels targeting sm_*, `gfx`: kernels targeting gfx*).
void buildArgusToNVPTXPipeline(OpPassManager &pm,
                               const ArgusTargetPipelineOptions &options);
void buildArgusToGFX942Pipeline(OpPassManager &pm,
                                const ArgusTargetPipelineOptions &options);

/// Register --argus-to-nvptx and --argus-to-gfx942.
void registerArgusPipelines();

/// Register every argus pass the pipelines are made of: the transforms
/// (argus/Transforms/Passes.h), the conversion (argus/Conversion/Passes.h)
/// and the serialisation (argus/Target/Passes.h).
void registerArgusPasses();

/// The dialects, LLVM conversion interfaces, GPU target models and LLVM IR
/// translations the lowering pipelines need.
void registerArgusLoweringDialects(DialectRegistry &registry);

/// The one registration every tool uses (argus-opt and the Python module):
/// the dialects argus kernels are written with plus the lowering's. Only the
/// dialects a module uses and those the passes declare (dependentDialects)
/// are loaded, so a pass that creates ops of an undeclared dialect fails the
/// same way in every tool.
void registerArgusDialects(DialectRegistry &registry);

} // namespace mlir::argus

#endif // ARGUS_PIPELINES_PIPELINES_H
