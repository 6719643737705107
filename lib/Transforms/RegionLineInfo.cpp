//===- RegionLineInfo.cpp - line info that names measured regions ---------===//
//
// Part of Argus, under the Apache License v2.0 with LLVM Exceptions.
//
// Per-instruction hardware counters reach a region through the binary's
// line info. Source lines alone are ambiguous where one line has code in
// several regions (a helper called from two of them), so the lowering with
// `lineinfo-regions` carries each op's innermost region from the markers
// (argus-mark-region-locations, before the lowering) to the line info
// (argus-region-line-files, after it): the region becomes part of the file
// name of the instruction's line.
//
//===----------------------------------------------------------------------===//

#include "argus/Analysis/MeasurementSites.h"
#include "argus/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/Path.h"

namespace mlir::argus {
#define GEN_PASS_DEF_ARGUSMARKREGIONLOCATIONS
#define GEN_PASS_DEF_ARGUSREGIONLINEFILES
#include "argus/Transforms/Passes.h.inc"
} // namespace mlir::argus

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kRegionPrefix = "argus.region:";

struct MarkRegionLocationsPass
    : public argus::impl::ArgusMarkRegionLocationsBase<
          MarkRegionLocationsPass> {
  void runOnOperation() override {
    FailureOr<argus::MeasurementSites> sites =
        argus::MeasurementSites::compute(getOperation());
    if (failed(sites))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    sites->forEachOp([&](Operation *op, llvm::StringRef region) {
      if (!region.empty())
        op->setLoc(NameLoc::get(StringAttr::get(ctx, kRegionPrefix + region),
                                op->getLoc()));
    });
  }
};

/// The region a location was marked with, and the location inside.
std::optional<std::pair<llvm::StringRef, Location>> markedRegion(Location loc) {
  auto name = dyn_cast<NameLoc>(loc);
  if (!name || !name.getName().getValue().starts_with(kRegionPrefix))
    return std::nullopt;
  return std::make_pair(
      name.getName().getValue().drop_front(kRegionPrefix.size()),
      name.getChildLoc());
}

struct RegionLineFilesPass
    : public argus::impl::ArgusRegionLineFilesBase<RegionLineFilesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto scope =
          func.getLoc()->findInstanceOf<FusedLocWith<LLVM::DISubprogramAttr>>();
      if (!scope)
        return;
      auto sp = scope.getMetadata();
      LLVM::DIFileAttr file = sp.getFile();
      llvm::StringMap<LLVM::DILexicalBlockFileAttr> blocks;
      func.walk([&](Operation *op) {
        auto marked = markedRegion(op->getLoc());
        if (!marked)
          return;
        auto [region, inner] = *marked;
        LLVM::DILexicalBlockFileAttr &block = blocks[region];
        if (!block) {
          std::string name = (llvm::Twine(file ? file.getName().getValue()
                                               : llvm::StringRef("<unknown>")) +
                              " [argus region " + region + "]")
                                 .str();
          auto regionFile = LLVM::DIFileAttr::get(
              ctx, name, file ? file.getDirectory().getValue() : "");
          block = LLVM::DILexicalBlockFileAttr::get(ctx, sp, regionFile, 0);
        }
        op->setLoc(FusedLoc::get(ctx, {inner}, block));
      });
    });
  }
};

} // namespace
